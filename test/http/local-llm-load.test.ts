// The local language model under load: while its one generation slot is taken, ten rephrase requests of one account,
// and translations that need the model (custom_instructions, formality on Apertium), are answered 429 with
// Retry-After within the queue's wait bound, not after minutes; nothing is generated for them or billed; once the
// slot is free, requests are served again.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DocumentClient } from '../helpers/documents.js';
import { authHeaders, createAccount, createTestApp, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';
import { installTestLlm } from '../helpers/test-llm.js';
import { waitFor } from '../helpers/wait.js';

const QUEUE_WAIT_MS = 500;

let ctx: TestContext;
let pro: TestAccount;
let modelsDir: string;
let dataDir: string;

before(async () => {
  modelsDir = mkdtempSync(join(tmpdir(), 'tolk-llm-load-'));
  dataDir = mkdtempSync(join(tmpdir(), 'tolk-llm-load-data-'));
  installTestLlm(modelsDir);
  ctx = await createTestApp({
    engines: testEngines(['en-es']),
    env: { TOLK_DATA_DIR: dataDir, TOLK_MODELS_DIR: modelsDir, TOLK_LLM_THREADS: '1', TOLK_LLM_CONTEXT: '2048', TOLK_LLM_QUEUE_WAIT_MS: String(QUEUE_WAIT_MS) },
  });
  pro = await createAccount(ctx);
});
after(async () => {
  await ctx?.close();
  rmSync(modelsDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

const model = () => ctx.services.languageModel!.model;
const post = (url: string, payload: object) => ctx.app.inject({ method: 'POST', url, headers: authHeaders(pro), payload });
const rephrase = () => post('/v2/write/rephrase', { text: ['The house is big.'], target_lang: 'en-US' });
/** Post-edits the model's queue refused as busy, from /metrics. */
const busyPostEdits = async () => {
  const res = await ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Service-Auth-Key ${pro.adminKey}`, host: pro.host } });
  const line = res.body.split('\n').find((l) => l.startsWith('tolk_llm_requests_total{') && l.includes('operation="post_edit"') && l.includes('outcome="busy"'));
  return line ? Number(line.split(' ').at(-1)) : 0;
};
const usage = async () => (await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(pro) })).json().character_count as number;

describe('the local language model with its slot taken', () => {
  it('serves a rephrase while the slot is free (and loads the model)', async () => {
    await waitFor('the installed model to be found', () => model().available());
    const res = await rephrase();
    assert.equal(res.statusCode, 200, res.body);
  });

  it('answers ten rephrase requests of one account 429 with Retry-After while the slot is held, bills nothing, then serves again', async () => {
    const billed = await usage();
    const generations = model().stats().generations;
    const holder = await model().slots.acquire('another account');
    try {
      // all ten are answered while the slot is still held: none of them waited for it
      const answers = await Promise.all(Array.from({ length: 10 }, () => rephrase()));
      for (const res of answers) {
        assert.equal(res.statusCode, 429, res.body);
        assert.ok(Number(res.headers['retry-after']) >= 1, `Retry-After: ${res.headers['retry-after']}`);
        assert.match(res.json().message, /language model is busy/);
      }
      assert.equal(model().stats().generations, generations, 'nothing was generated for them');
      assert.equal(model().queued(), 0, 'none of them is left in the queue');
    } finally {
      holder();
    }
    assert.equal(await usage(), billed, 'nothing billed');
    const again = await rephrase();
    assert.equal(again.statusCode, 200, again.body);
  });

  it('answers translations that need the model (custom_instructions, formality on Apertium) 429 with Retry-After', async () => {
    const release = await model().slots.acquire('another account');
    try {
      const withInstructions = await post('/v2/translate', { text: ['Good morning.'], source_lang: 'EN', target_lang: 'ES', custom_instructions: ['Use short sentences.'] });
      assert.equal(withInstructions.statusCode, 429, withInstructions.body);
      assert.ok(Number(withInstructions.headers['retry-after']) >= 1);
      const formal = await post('/v2/translate', { text: ['Good morning.'], source_lang: 'EN', target_lang: 'ES', formality: 'more' });
      assert.equal(formal.statusCode, 429, formal.body);
      assert.ok(Number(formal.headers['retry-after']) >= 1);
      // a plain translation does not need the model: Apertium answers it
      assert.equal((await post('/v2/translate', { text: ['Good morning.'], source_lang: 'EN', target_lang: 'ES' })).statusCode, 200);
    } finally {
      release();
    }
  });

  it('a document that needs the model retries it after its Retry-After while busy, and is translated once the slot is free', async () => {
    const holder = await model().slots.acquire('another account');
    let held = true;
    try {
      const documents = new DocumentClient(ctx, pro);
      const up = await documents.upload([
        { name: 'file', filename: 'note.txt', content: Buffer.from('Good morning.\nThe house is big.\n') },
        { name: 'source_lang', value: 'EN' },
        { name: 'target_lang', value: 'ES' },
        { name: 'formality', value: 'more' },
      ]);
      assert.equal(up.statusCode, 200, up.body);
      const { document_id: id, document_key: key } = up.json() as { document_id: string; document_key: string };
      await waitFor('the job to find the model busy', async () => (await busyPostEdits()) >= 1);
      holder();
      held = false;
      const status = await documents.waitFor(id, key);
      assert.equal(status.status, 'done', JSON.stringify(status));
    } finally {
      if (held) holder();
    }
  });
});
