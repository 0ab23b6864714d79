// /v2/document over HTTP (inject): upload (multipart, fields after the file), status, one-time download, every error.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buffer as readAll } from 'node:stream/consumers';
import { createAccount, authHeaders, type TestAccount, type TestContext } from '../helpers/harness.js';
import type { Part } from '../documents/multipart.js';
import { createDocumentsTestApp, DocumentClient, documentUsage as documentUsageOf, fixture, type DocumentsTestApp } from '../helpers/documents.js';
import { waitFor as waitUntil } from '../helpers/wait.js';
import { failChargedMarks } from '../helpers/failing-mark.js';

let app: DocumentsTestApp;
let ctx: TestContext;
let pro: TestAccount;

before(async () => {
  app = await createDocumentsTestApp();
  ({ ctx, account: pro } = app);
});
after(async () => app.close());

const client = (account: TestAccount) => new DocumentClient(ctx, account);
const upload = (parts: Part[], account: TestAccount = pro, headers: Record<string, string> = {}) => client(account).upload(parts, headers);
const status = (id: string, key: string, account: TestAccount = pro) => client(account).status(id, key);
const result = (id: string, key: string, account: TestAccount = pro) => client(account).download(id, key);
const waitFor = (id: string, key: string, account: TestAccount = pro) => client(account).waitFor(id, key);
/** The document characters charged to the pro account's key this period. */
const documentUsage = () => documentUsageOf(ctx, pro);

describe('upload, status, download', () => {
  it('applies the glossary and style rule list of the upload to the document', async () => {
    const api = (url: string, payload: object) => ctx.app.inject({ method: 'POST', url, headers: authHeaders(pro), payload });
    const glossary = (await api('/v3/glossaries', { name: 'Doc', dictionaries: [{ source_lang: 'en', target_lang: 'es', entries: 'car\tautomóvil', entries_format: 'tsv' }] })).json();
    const style = (await api('/v3/style_rules', { name: 'Doc', language: 'es', configured_rules: { numbers: { decimal_separator: 'use_comma_as_decimal_separator' } } })).json();
    const text = 'I have a red car.\nIt costs 3.5 million.\n';
    const res = await upload([
      { name: 'file', filename: 'cars.txt', content: text },
      { name: 'source_lang', value: 'EN' },
      { name: 'target_lang', value: 'ES' },
      { name: 'glossary_id', value: glossary.glossary_id },
      { name: 'style_id', value: style.style_id },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    const { document_id, document_key } = res.json();
    assert.equal((await waitFor(document_id, document_key)).status, 'done');
    const out = (await result(document_id, document_key)).body;
    assert.match(out, /automóvil/);
    assert.match(out, /3,5/);
  });

  it('translates a txt file (fields after the file), downloadable once', async () => {
    const res = await upload([{ name: 'file', filename: 'sample.txt', content: fixture('sample.txt') }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }]);
    assert.equal(res.statusCode, 200, res.body);
    const { document_id, document_key } = res.json();
    assert.match(document_id, /^[0-9A-F]{32}$/);
    assert.match(document_key, /^[0-9A-F]{64}$/);
    const done = await waitFor(document_id, document_key);
    assert.equal(done.status, 'done');
    assert.equal(done.document_id, document_id);
    const lower = (await status(document_id.toLowerCase(), document_key)).json();
    assert.equal(lower.document_id, document_id.toLowerCase(), 'the id comes back as sent');
    const source = fixture('sample.txt').toString('utf8');
    const expectedChars = source.split(/\r?\n/).map((l) => l.trim()).join('').length;
    assert.equal(done.billed_characters, expectedChars);

    const before = await documentUsage();
    const dl = await result(document_id, document_key);
    assert.equal(dl.statusCode, 200, dl.body);
    assert.match(String(dl.headers['content-type']), /^text\/plain/);
    const text = dl.body;
    assert.match(text, /casa/i);
    assert.match(text, /perro/i);
    // line structure: same line endings and blank lines, indentation kept
    assert.deepEqual(text.match(/\r?\n/g), source.match(/\r?\n/g));
    assert.ok(text.split('\n')[2]!.startsWith('  '));
    // charged once the response has been delivered (just after inject resolves)
    await waitUntil('the download to be charged', async () => (await documentUsage()) !== before);
    assert.equal((await documentUsage()) - before, expectedChars);

    const again = await result(document_id, document_key);
    assert.equal(again.statusCode, 404);
    assert.equal(again.json().message, 'Document not found');
    assert.equal((await status(document_id, document_key)).statusCode, 404);
  });

  it('charges the uploading key with the upload request’s reporting tag, at download', async () => {
    const res = await upload(
      [{ name: 'file', filename: 'a.txt', content: 'The cat sleeps.' }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }],
      pro,
      { 'x-service-reporting-tag': 'Project-7' },
    );
    const { document_id, document_key } = res.json();
    assert.equal((await waitFor(document_id, document_key)).status, 'done');
    const events = () =>
      ctx.services.store.db.selectFrom('usage_events').selectAll().where('key_id', '=', pro.keyId).where('reporting_tag', '=', 'project-7').execute();
    assert.equal((await events()).length, 0);
    assert.equal((await result(document_id, document_key)).statusCode, 200);
    // charged once the response has been delivered (just after inject resolves: there is no socket to watch)
    const rows = await waitUntil('the download to be charged', async () => {
      const found = await events();
      return found.length > 0 && found;
    });
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.product, 'document_translation');
    assert.equal(Number(rows[0]!.units), 'The cat sleeps.'.length);
  });

  it('a delivery whose charged mark cannot be written charges nothing; taken over, the download is charged once', async () => {
    const text = 'The cat sleeps.';
    const { document_id: id, document_key: key } = (await upload([{ name: 'file', filename: 'a.txt', content: text }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }])).json();
    assert.equal((await waitFor(id, key)).status, 'done');
    const before = await documentUsage();
    const restore = await failChargedMarks(ctx.services.store);
    try {
      const first = await ctx.services.documents.download((await ctx.services.accounts.authenticate(pro.key))!, id, key);
      await readAll(first.stream);
      await assert.rejects(first.complete(), /charged mark refused/);
    } finally {
      await restore();
    }
    assert.equal(await documentUsage(), before, 'the charge is rolled back with its mark');
    // that node died before a retry: its download lease runs out and another request takes the download over
    await ctx.services.store.db.updateTable('documents').set({ lease_expires_at: 0 }).where('id', '=', id).execute();
    assert.equal((await result(id, key)).statusCode, 200);
    await waitUntil('the download to be charged', async () => (await documentUsage()) !== before);
    assert.equal((await documentUsage()) - before, text.length);
    assert.equal((await result(id, key)).statusCode, 404);
  });

  it('answers 404 for a wrong key, an unknown id, and another account', async () => {
    const res = await upload([{ name: 'target_lang', value: 'ES' }, { name: 'file', filename: 'a.txt', content: 'The house is big.' }]);
    const { document_id, document_key } = res.json();
    const wrong = 'A'.repeat(64);
    assert.equal((await status(document_id, wrong)).statusCode, 404);
    assert.equal((await status(document_id, 'nonsense')).statusCode, 404);
    assert.equal((await result(document_id, wrong)).statusCode, 404);
    assert.equal((await status('0'.repeat(32), document_key)).statusCode, 404);
    const other = await createAccount(ctx);
    assert.equal((await status(document_id, document_key, other)).statusCode, 404);
    const missing = await ctx.app.inject({ method: 'POST', url: `/v2/document/${document_id}`, headers: authHeaders(pro), payload: {} });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().message, "Parameter 'document_key' not specified");
    // the path schema validates; its failure names the parameter as the API words it
    const long = await status('0'.repeat(101), document_key);
    assert.equal(long.statusCode, 400);
    assert.deepEqual(long.json(), { message: "Value for 'document_id' not supported.", code: 'invalid_request' });
    const done = await waitFor(document_id, document_key);
    assert.equal(done.status, 'done');
  });

  it('status error when source equals target', async () => {
    const res = await upload([{ name: 'file', filename: 'a.txt', content: 'The house is big.' }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'EN-US' }]);
    assert.equal(res.statusCode, 200, res.body);
    const { document_id, document_key } = res.json();
    const body = await waitFor(document_id, document_key);
    assert.equal(body.status, 'error');
    assert.equal(body.error_message, 'Source and target language are equal.');
    const dl = await result(document_id, document_key);
    assert.equal(dl.statusCode, 409);
    assert.equal(dl.json().message, 'Document translation failed: Source and target language are equal.');
  });

  it('detects the source language when source_lang is omitted', async () => {
    const res = await upload([{ name: 'file', filename: 'a.txt', content: 'La casa es muy grande y el perro duerme en el jardín.' }, { name: 'target_lang', value: 'EN-US' }]);
    const { document_id, document_key } = res.json();
    assert.equal((await waitFor(document_id, document_key)).status, 'done');
    const dl = await result(document_id, document_key);
    assert.match(dl.body, /house/i);
  });

  it('503 while not done', async () => {
    // a document queued behind a long one is not done right after upload
    const big = 'The house is big and the dog sleeps in the garden.\n'.repeat(800);
    const first = (await upload([{ name: 'file', filename: 'big.txt', content: big }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }])).json();
    const res = await result(first.document_id, first.document_key);
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().message, 'Document translation is not done');
    const s = (await status(first.document_id, first.document_key)).json();
    assert.ok(['queued', 'translating', 'done'].includes(s.status));
    if (s.status === 'translating') assert.ok(Number.isInteger(s.seconds_remaining) && s.seconds_remaining >= 1);
    const done = await waitFor(first.document_id, first.document_key, pro);
    assert.equal(done.status, 'done');
  });
});

describe('formats', () => {
  it('srt: numbering, timing and CRLF kept byte for byte, cue text translated', async () => {
    const src = fixture('sample.srt');
    const res = await upload([{ name: 'file', filename: 'sample.srt', content: src }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }]);
    const { document_id, document_key } = res.json();
    assert.equal((await waitFor(document_id, document_key)).status, 'done');
    const out = (await result(document_id, document_key)).body;
    const srcLines = src.toString('utf8').split('\r\n');
    const outLines = out.split('\r\n');
    assert.equal(outLines.length, srcLines.length);
    srcLines.forEach((line, i) => {
      if (/^\d+$/.test(line) || line.includes('-->') || line === '') assert.equal(outLines[i], line);
    });
    assert.match(out, /casa/i);
    assert.match(out, /<i>.*coche.*<\/i>/i);
  });

  it('json: only string values translated; keys, numbers and placeholders untouched', async () => {
    const src = fixture('sample.json').toString('utf8');
    const res = await upload([{ name: 'file', filename: 'sample.json', content: src }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }]);
    const { document_id, document_key } = res.json();
    assert.equal((await waitFor(document_id, document_key)).status, 'done');
    const dl = await result(document_id, document_key);
    assert.match(String(dl.headers['content-type']), /^application\/json/);
    const out = dl.body;
    const parsed = JSON.parse(out);
    assert.match(parsed.title, /casa/i);
    assert.ok(out.includes('12345678901234567890'));
    assert.ok(parsed.nested.greeting.includes('{name}') && parsed.nested.greeting.includes('{count}'));
    assert.deepEqual(parsed.nested.items.slice(2), [42, true, null]);
    assert.equal(parsed.nested.url, 'https://example.com/house');
    assert.ok('The house is big.' in parsed);
    assert.deepEqual(Object.keys(parsed), Object.keys(JSON.parse(src)));
    assert.equal(out.split('\n').length, src.split('\n').length);
  });

  it('a malformed json file ends in error status with a message', async () => {
    const res = await upload([{ name: 'file', filename: 'bad.json', content: '{"a": "The house", ' }, { name: 'target_lang', value: 'ES' }]);
    const { document_id, document_key } = res.json();
    const body = await waitFor(document_id, document_key);
    assert.equal(body.status, 'error');
    assert.match(body.error_message, /could not be parsed/);
  });
});

describe('upload errors', () => {
  const file: Part = { name: 'file', filename: 'a.txt', content: 'The house is big.' };
  const cases: [string, Part[], number, string | RegExp][] = [
    ['unsupported extension', [{ name: 'file', filename: 'a.exe', content: 'x' }, { name: 'target_lang', value: 'ES' }], 400, 'Invalid file data.'],
    ['no extension', [{ name: 'file', filename: 'README', content: 'x' }, { name: 'target_lang', value: 'ES' }], 400, 'Invalid file data.'],
    ['format not built yet', [{ name: 'file', filename: 'a.doc', content: 'x' }, { name: 'target_lang', value: 'ES' }], 400, /not supported by this server yet/],
    ['missing file', [{ name: 'target_lang', value: 'ES' }], 400, "Parameter 'file' not specified"],
    ['missing target_lang', [file], 400, "Parameter 'target_lang' not specified"],
    ['bad target_lang', [file, { name: 'target_lang', value: 'XX' }], 400, "Value for 'target_lang' not supported."],
    ['bad source_lang', [file, { name: 'target_lang', value: 'ES' }, { name: 'source_lang', value: 'QQ' }], 400, "Value for 'source_lang' not supported."],
    ['bad formality', [file, { name: 'target_lang', value: 'ES' }, { name: 'formality', value: 'very' }], 400, "Value for 'formality' not supported."],
    ['bad watermark flag', [file, { name: 'target_lang', value: 'ES' }, { name: 'enable_watermark', value: 'maybe' }], 400, "Value for 'enable_watermark' not supported."],
    ['glossary without source', [file, { name: 'target_lang', value: 'ES' }, { name: 'glossary_id', value: '0d4c8f0e-0000-4000-8000-000000000000' }], 400, 'Use of a glossary requires the source_lang parameter to be specified'],
    ['unknown glossary', [file, { name: 'target_lang', value: 'ES' }, { name: 'source_lang', value: 'EN' }, { name: 'glossary_id', value: '0d4c8f0e-0000-4000-8000-000000000000' }], 404, /Glossary not found/],
    ['unknown style rule list', [file, { name: 'target_lang', value: 'ES' }, { name: 'style_id', value: '0d4c8f0e-0000-4000-8000-000000000000' }], 404, 'Style rule not found'],
    ['unknown translation memory', [file, { name: 'target_lang', value: 'ES' }, { name: 'source_lang', value: 'EN' }, { name: 'translation_memory_id', value: '0d4c8f0e-0000-4000-8000-000000000000' }], 404, /not found/i],
    ['threshold out of range', [file, { name: 'target_lang', value: 'ES' }, { name: 'translation_memory_threshold', value: '101' }], 400, 'Parameter "translation_memory_threshold" must be an integer between 0 and 100'],
    ['unsupported pair', [file, { name: 'target_lang', value: 'JA' }, { name: 'source_lang', value: 'EN' }], 400, /not supported by the installed engines/],
    ['output format conversion', [file, { name: 'target_lang', value: 'ES' }, { name: 'output_format', value: 'docx' }], 400, /Conversion from 'txt' to 'docx'/],
    ['empty file', [{ name: 'file', filename: 'a.txt', content: '' }, { name: 'target_lang', value: 'ES' }], 400, 'Invalid file data.'],
  ];
  for (const [name, parts, code, message] of cases) {
    it(name, async () => {
      const res = await upload(parts);
      assert.equal(res.statusCode, code, res.body);
      if (typeof message === 'string') assert.equal(res.json().message, message);
      else assert.match(res.json().message, message);
    });
  }

  it('the filename field names the file when the part has none usable', async () => {
    const res = await upload([{ name: 'file', filename: 'blob', content: 'The house is big.' }, { name: 'filename', value: 'notes.txt' }, { name: 'target_lang', value: 'ES' }]);
    assert.equal(res.statusCode, 200, res.body);
  });

  it('413 for a file over the format limit, 400 for a non-multipart body', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 10, 'a');
    const res = await upload([{ name: 'file', filename: 'big.txt', content: big }, { name: 'target_lang', value: 'ES' }]);
    assert.equal(res.statusCode, 413, res.body);
    const json = await ctx.app.inject({ method: 'POST', url: '/v2/document', headers: authHeaders(pro), payload: { target_lang: 'ES' } });
    assert.equal(json.statusCode, 400);
  });

  it('456 when the quota is used up', async () => {
    const poor = await createAccount(ctx, { plan: 'pro', characterLimit: 5 });
    const res = await upload([{ name: 'file', filename: 'a.txt', content: 'The house is big.' }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }], poor);
    assert.equal(res.statusCode, 200, res.body);
    const { document_id, document_key } = res.json();
    assert.equal((await waitFor(document_id, document_key, poor)).status, 'done');
    // billing happens at download: 17 characters do not fit a limit of 5
    const dl = await result(document_id, document_key, poor);
    assert.equal(dl.statusCode, 456);
    // the document is still there to download once the quota allows it
    assert.equal((await status(document_id, document_key, poor)).json().status, 'done');
  });
});

describe('markup formats (on src/markup)', () => {
  const tags = (s: string) => [...s.matchAll(/<\/?([A-Za-z][\w:-]*)/g)].map((m) => m[0]);

  it('html: text and alt translated; tags, script, style and code byte for byte', async () => {
    const src = fixture('sample.html').toString('utf8');
    const res = await upload([{ name: 'file', filename: 'page.html', content: src }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }]);
    const { document_id, document_key } = res.json();
    assert.equal((await waitFor(document_id, document_key)).status, 'done');
    const dl = await result(document_id, document_key);
    assert.match(String(dl.headers['content-type']), /^text\/html/);
    const out = dl.body;
    assert.deepEqual(tags(out), tags(src));
    assert.match(out, /<h1>[^<]*perro[^<]*<\/h1>/i);
    assert.match(out, /alt="[^"]*casa[^"]*"/i);
    assert.match(out, /<b>[^<]*roj[^<]*<\/b>/i);
    assert.ok(out.includes('<script>var house = "The house is big";</script>'));
    assert.ok(out.includes('<code>The house is big</code>'));
    assert.ok(out.includes('<style>p { color: red; }</style>'));
  });

  it('xml: element text translated, structure, attributes and comments kept, still well-formed', async () => {
    const src = fixture('sample.xml').toString('utf8');
    const res = await upload([{ name: 'file', filename: 'catalogue.xml', content: src }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }]);
    const { document_id, document_key } = res.json();
    assert.equal((await waitFor(document_id, document_key)).status, 'done');
    const out = (await result(document_id, document_key)).body;
    assert.deepEqual(tags(out), tags(src));
    assert.ok(out.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<!-- a catalogue -->'));
    assert.match(out, /<title>[^<]*casa[^<]*<\/title>/i);
    assert.match(out, /<em>[^<]*jard[^<]*<\/em>/i);
    assert.ok(out.includes('<price currency="EUR">12.50</price>'));
  });

  it('malformed xml ends in error status', async () => {
    const res = await upload([{ name: 'file', filename: 'bad.xml', content: '<a><b>The house</a>' }, { name: 'target_lang', value: 'ES' }]);
    const { document_id, document_key } = res.json();
    const body = await waitFor(document_id, document_key);
    assert.equal(body.status, 'error');
    assert.match(body.error_message, /not well-formed/);
  });
});
