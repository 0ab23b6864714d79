// /v2/translate and the language lists through the Bergamot engine, on a generated model of the real format.
import assert from 'node:assert/strict';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApertiumEngine } from '../../src/engines/apertium/index.js';
import { BergamotEngine } from '../../src/engines/bergamot/index.js';
import { makeModel, modelsDirWith } from '../helpers/bergamot-models.js';
import { DocumentClient, fixture } from '../helpers/documents.js';
import { authHeaders, createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import { unzipAll } from '../helpers/zip.js';
import { concludedText, connectVoice, synthesize } from '../voice/voice-helpers.js';
import type { AddressInfo } from 'node:net';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

let modelsDir: string;
let ctx: TestContext;
let pro: TestAccount;
let bergamot: BergamotEngine;

const languages = async (type: 'source' | 'target'): Promise<string[]> =>
  (await ctx.app.inject({ method: 'GET', url: `/v2/languages?type=${type}`, headers: authHeaders(pro) })).json().map((l: { language: string }) => l.language);

const translate = async (c: TestContext, body: Record<string, unknown>) =>
  c.app.inject({ method: 'POST', url: '/v2/translate', headers: { ...authHeaders(pro), 'content-type': 'application/json' }, payload: body });

before(async () => {
  modelsDir = await modelsDirWith(['en-es']);
  bergamot = new BergamotEngine({ modelsDir, workers: 1, rescanIntervalMs: 0 });
  // The production order: Bergamot first, so the neural model wins en→es over Apertium.
  ctx = await createTestApp({ engines: [bergamot, new ApertiumEngine({ pairs: ['en-es', 'es-en'], maxPipelinesPerPair: 1 })] });
  pro = await createAccount(ctx);
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await ctx.close();
  await rm(modelsDir, { recursive: true, force: true });
});

describe('bergamot through HTTP', () => {
  it('translates en→es with the neural model where Apertium also has the pair', async () => {
    const [expected] = await bergamot.translate({ source: 'en', target: 'es' }, ['The house is big.'], {});
    const res = await translate(ctx, { text: ['The house is big.'], source_lang: 'EN', target_lang: 'ES' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().translations[0].text, expected);
    assert.notEqual(expected, 'La casa es grande.');
  });

  it('keeps a glossary term through the neural model (the model drops plain-text placeholders)', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/v3/glossaries',
      headers: { ...authHeaders(pro), 'content-type': 'application/json' },
      payload: { name: 'terms', dictionaries: [{ source_lang: 'en', target_lang: 'es', entries: 'house\tCasa-Tolk', entries_format: 'tsv' }] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const res = await translate(ctx, { text: ['The house is big.', 'We are at home.'], source_lang: 'EN', target_lang: 'ES', glossary_id: created.json().glossary_id });
    assert.equal(res.statusCode, 200, res.body);
    const [withTerm, without] = res.json().translations.map((t: { text: string }) => t.text);
    assert.equal(withTerm.split('Casa-Tolk').length - 1, 1, withTerm);
    assert.doesNotMatch(without, /Casa-Tolk/);
  });

  it('keeps markup with tag_handling=xml (Tolk’s markup layer around the model)', async () => {
    const res = await translate(ctx, { text: ['<p>The house is <b>big</b>.</p>'], source_lang: 'EN', target_lang: 'ES', tag_handling: 'xml' });
    assert.equal(res.statusCode, 200);
    const out: string = res.json().translations[0].text;
    assert.match(out, /^<p>.*<b>.*<\/b>.*<\/p>$/s);
  });

  it('translates a docx end to end with the neural model', async () => {
    const src = fixture('sample.docx');
    const { status, file } = await new DocumentClient(ctx, pro).translateFile([
      { name: 'file', filename: 'report.docx', content: src },
      { name: 'source_lang', value: 'EN' },
      { name: 'target_lang', value: 'ES' },
    ]);
    assert.equal(status.status, 'done', JSON.stringify(status));
    const before = new Map(await unzipAll(src));
    const after = new Map(await unzipAll(file!.data));
    assert.deepEqual([...after.keys()], [...before.keys()]);
    const text = [...after.get('word/document.xml')!.toString('utf8').matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]).join(' ');
    const [neural] = await bergamot.translate({ source: 'en', target: 'es' }, ['The cat is red.'], {});
    // The generated model's vocabulary pieces, not the English source.
    assert.ok(neural!.split(' ').some((w) => text.includes(w)));
    assert.doesNotMatch(text, /\bThe cat\b/);
  });

  it('exposes the neural engine and the ended document jobs in the metrics', async () => {
    const families = parsePrometheusTextFormat((await ctx.services.metrics.exposition()).body);
    const value = (name: string, labels: Record<string, string> = {}) =>
      Number(families.find((f) => f.name === name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value);
    assert.equal(value('tolk_bergamot_workers', { state: 'running' }), 1);
    assert.equal(value('tolk_bergamot_workers', { state: 'busy' }), 0);
    assert.equal(value('tolk_bergamot_queue_depth'), 0);
    assert.equal(value('tolk_bergamot_models', { state: 'installed' }), 1);
    assert.equal(value('tolk_bergamot_models', { state: 'loaded' }), 1);
    assert.equal(value('tolk_bergamot_model_copies', { pair: 'en-es' }), 1);
    // The docx above ended on this node.
    assert.equal(value('tolk_document_jobs_total', { outcome: 'done' }), 1);
    assert.equal(value('tolk_document_jobs_total', { outcome: 'error' }), 0);
  });

  it('runs a voice session whose Spanish comes from the neural model', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v3/voice/realtime',
      headers: authHeaders(pro),
      payload: { source_media_content_type: 'audio/pcm;encoding=s16le;rate=16000', source_language: 'en', target_languages: ['es'] },
    });
    assert.equal(res.statusCode, 200, res.body);
    const port = (ctx.app.server.address() as AddressInfo).port;
    const client = await connectVoice(`ws://127.0.0.1:${port}/v3/voice/realtime/connect?token=${encodeURIComponent(res.json().token)}`);
    await client.stream(synthesize('The weather is nice today. I would like to visit the old city.'), 3200, 60);
    await client.closed;
    assert.ok(!client.messages.some((m) => m.error), JSON.stringify(client.messages.find((m) => m.error)));
    assert.ok(client.messages.some((m) => m.end_of_target_transcript?.language === 'es'));
    const spanish = concludedText(client.messages, 'es');
    assert.ok(spanish.trim().length > 0);
    // Apertium would say "tiempo", "ciudad": the generated model only emits its own nonsense pieces.
    assert.doesNotMatch(spanish, /tiempo|ciudad/i);
  });

  it('lists German once a German model is installed, without a restart, and pivots through English', async () => {
    assert.ok(!(await languages('source')).includes('DE'));
    await makeModel(join(modelsDir, '.de-en.partial'), 'de-en');
    await rename(join(modelsDir, '.de-en.partial'), join(modelsDir, 'de-en'));
    await bergamot.rescan();
    assert.ok((await languages('source')).includes('DE'));
    const res = await translate(ctx, { text: ['Das Haus ist groß.'], source_lang: 'DE', target_lang: 'ES' });
    assert.equal(res.statusCode, 200);
    assert.ok(res.json().translations[0].text.length > 0);
    await rm(join(modelsDir, 'de-en'), { recursive: true });
    await bergamot.rescan();
    assert.ok(!(await languages('source')).includes('DE'));
  });
});

describe('TOLK_ENGINE_ROUTES over the neural default', () => {
  it('sends en→es to Apertium when the routes say so', async () => {
    const engine = new BergamotEngine({ modelsDir, workers: 1, rescanIntervalMs: 0 });
    const routed = await createTestApp({
      env: { TOLK_ENGINE_ROUTES: 'en-es=apertium' },
      engines: [engine, new ApertiumEngine({ pairs: ['en-es'], maxPipelinesPerPair: 1 })],
    });
    try {
      const account = await createAccount(routed);
      const res = await routed.app.inject({
        method: 'POST',
        url: '/v2/translate',
        headers: { ...authHeaders(account), 'content-type': 'application/json' },
        payload: { text: ['The house is big.'], source_lang: 'EN', target_lang: 'ES' },
      });
      assert.equal(res.json().translations[0].text, 'La casa es grande.');
    } finally {
      await routed.close();
    }
  });
});
