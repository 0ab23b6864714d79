// Data of every kind an installation holds (accounts, keys, usage, glossaries, translation memories, style rules,
// spoken terms, a translated document), and the checks that it is all there and usable through a running server's
// HTTP API. Shared by the backup/restore and upgrade tests: they put the data in differently and check it alike.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { waitFor } from './wait.js';

export interface InstallationData {
  accountId: string;
  adminKey: string;
  devKey: string;
  devKeyId: string;
  glossary?: { id: string; tsv: string; source: string; term: RegExp };
  memory?: { id: string; source: string; target: string };
  styleRule?: { id: string; name: string };
  spokenTerms?: { id: string; lang: string; entries: string };
  /** A translated document not yet downloaded. */
  document?: { id: string; key: string; contains: RegExp; billedCharacters: number };
}

export interface Api {
  (method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; text: string; json(): any }>;
}

export function apiOf(base: string, defaultKey: string): Api {
  return async (method, path, body, key = defaultKey) => {
    const headers: Record<string, string> = { authorization: `Service-Auth-Key ${key}` };
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(`${base}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await res.text();
    return { status: res.status, text, json: () => JSON.parse(text) };
  };
}

const TMX = new URL('../../../test/fixtures/customization/small.tmx', import.meta.url);

/** Creates data of every kind through the API of the server at `base` (account and keys from `cli`). */
export async function seedThroughApi(base: string, cli: (args: string[]) => Promise<Record<string, string>>): Promise<InstallationData> {
  const account = await cli(['account', 'create', '--plan', 'pro', '--name', 'Backed up']);
  const dev = await cli(['key', 'create', '--account', account.account_id!, '--label', 'restored']);
  const api = apiOf(base, dev.key!);
  const glossary = await api('POST', '/v3/glossaries', { name: 'Cars', dictionaries: [{ source_lang: 'en', target_lang: 'es', entries: 'car\tautomóvil\nboat\tbarca', entries_format: 'tsv' }] });
  assert.equal(glossary.status, 201, glossary.text);
  const style = await api('POST', '/v3/style_rules', { name: 'Comma decimals', language: 'es', configured_rules: { numbers: { decimal_separator: 'use_comma_as_decimal_separator' } } });
  assert.equal(style.status, 201, style.text);
  const terms = await api('POST', '/v3/spoken-terms', { name: 'Products', term_lists: [{ lang: 'en', entries: 'Tolk\nApertium' }] });
  assert.equal(terms.status, 201, terms.text);

  const tmx = readFileSync(TMX);
  const start = await api('POST', '/v3/translation_memories/import', { source_file: { file_name: 'a.tmx', content_length: tmx.length }, parameters: { display_name: 'Printers' } });
  assert.equal(start.status, 200, start.text);
  const upload = new URL(start.json().upload_url as string);
  const put = await fetch(`${base}${upload.pathname}${upload.search}`, { method: 'PUT', headers: { 'content-type': 'application/xml' }, body: tmx });
  assert.equal(put.status, 204, await put.text());
  const job = async () => (await api('GET', `/v3/translation_memories/jobs/${start.json().job_id}`)).json().results[0];
  await waitFor('the translation memory import', async () => (await job()).status === 'completed');

  const form = new FormData();
  form.set('source_lang', 'EN');
  form.set('target_lang', 'ES');
  form.set('file', new Blob(['The house is big and the garden is green.\n']), 'house.txt');
  const up = await api('POST', '/v2/document', form);
  assert.equal(up.status, 200, up.text);
  const document = up.json() as { document_id: string; document_key: string };
  const status = async () => (await api('POST', `/v2/document/${document.document_id}`, { document_key: document.document_key })).json();
  const done = await waitFor('the document translation', async () => {
    const s = await status();
    assert.notEqual(s.status, 'error', JSON.stringify(s));
    return s.status === 'done' && s;
  });
  return {
    accountId: account.account_id!,
    adminKey: account.admin_key!,
    devKey: dev.key!,
    devKeyId: dev.key_id!,
    glossary: { id: glossary.json().glossary_id, tsv: 'car\tautomóvil\nboat\tbarca', source: 'I bought a new car.', term: /automóvil/ },
    memory: { id: (await job()).translation_memory_id, source: 'The printer is out of paper.', target: 'La impresora no tiene papel.' },
    styleRule: { id: style.json().style_id, name: 'Comma decimals' },
    spokenTerms: { id: terms.json().spoken_terms_id, lang: 'en', entries: 'Tolk\nApertium' },
    document: { id: document.document_id, key: document.document_key, contains: /casa/, billedCharacters: done.billed_characters },
  };
}

/** The account's characters this billing period, as the developer key sees them. */
export async function characterCount(base: string, data: InstallationData): Promise<number> {
  const usage = await apiOf(base, data.devKey)('GET', '/v2/usage');
  assert.equal(usage.status, 200, usage.text);
  return usage.json().character_count as number;
}

/**
 * Checks through the server at `base` that every kind of `data` is there and works: the keys authenticate, the
 * glossary's entries and the memory's segments are listed and applied, the style rule and spoken terms read back,
 * the document downloads with its key (and its characters are then charged), a translation is charged.
 */
export async function checkInstallation(base: string, data: InstallationData): Promise<void> {
  const api = apiOf(base, data.devKey);
  const keys = await api('GET', '/v2/admin/developer-keys', undefined, data.adminKey);
  assert.equal(keys.status, 200, keys.text);
  assert.ok(keys.json().some((k: { key_id: string }) => k.key_id === data.devKeyId), keys.text);
  const translate = async (body: Record<string, unknown>) => {
    const res = await api('POST', '/v2/translate', { source_lang: 'EN', target_lang: 'ES', ...body });
    assert.equal(res.status, 200, res.text);
    return res.json().translations[0].text as string;
  };
  if (data.glossary) {
    const entries = await api('GET', `/v3/glossaries/${data.glossary.id}/entries?source_lang=en&target_lang=es`);
    assert.equal(entries.status, 200, entries.text);
    assert.equal(entries.json().dictionaries[0].entries, data.glossary.tsv);
    assert.match(await translate({ text: [data.glossary.source], glossary_id: data.glossary.id }), data.glossary.term);
  }
  if (data.memory) {
    const segments = await api('GET', `/v3/translation_memories/${data.memory.id}/segments`);
    assert.equal(segments.status, 200, segments.text);
    assert.ok(segments.text.includes(data.memory.target), segments.text);
    assert.equal(await translate({ text: [data.memory.source], translation_memory_id: data.memory.id, translation_memory_threshold: 100 }), data.memory.target);
  }
  if (data.styleRule) {
    const rule = await api('GET', `/v3/style_rules/${data.styleRule.id}`);
    assert.equal(rule.status, 200, rule.text);
    assert.equal(rule.json().name, data.styleRule.name);
    assert.match(await translate({ text: ['It costs 3.5 dollars.'], style_id: data.styleRule.id }), /3,5/);
  }
  if (data.spokenTerms) {
    const entries = await api('GET', `/v3/spoken-terms/${data.spokenTerms.id}/entries?lang=${data.spokenTerms.lang}`);
    assert.equal(entries.status, 200, entries.text);
    assert.equal(entries.json().entries, data.spokenTerms.entries);
  }
  if (data.document) {
    const before = await characterCount(base, data);
    const res = await api('POST', `/v2/document/${data.document.id}/result`, { document_key: data.document.key });
    assert.equal(res.status, 200, res.text);
    assert.match(res.text, data.document.contains);
    await waitFor('the download to be charged', async () => (await characterCount(base, data)) === before + data.document!.billedCharacters);
  }
  const before = await characterCount(base, data);
  await translate({ text: ['Hello'] });
  assert.equal(await characterCount(base, data), before + 'Hello'.length);
}
