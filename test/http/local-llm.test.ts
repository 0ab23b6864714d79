// Rephrase, correct, custom instructions and formality through a GGUF model installed on this machine (no
// TOLK_LLM_URL): the server starts without one, finds it once installed, and every request below goes through it,
// proven by its generation count. The generated model writes nonsense, so the checked post-edits usually fall back
// to Apertium's translation; either way the answer is a 200.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { authHeaders, createAccount, createTestApp, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';
import { installTestLlm } from '../helpers/test-llm.js';
import { waitFor } from '../helpers/wait.js';

let ctx: TestContext;
let pro: TestAccount;
let modelsDir: string;

before(async () => {
  modelsDir = mkdtempSync(join(tmpdir(), 'tolk-llm-http-'));
  ctx = await createTestApp({ engines: testEngines(['en-es']), env: { TOLK_MODELS_DIR: modelsDir, TOLK_LLM_THREADS: '1', TOLK_LLM_CONTEXT: '2048' } });
  pro = await createAccount(ctx);
});
after(async () => {
  await ctx?.close();
  rmSync(modelsDir, { recursive: true, force: true });
});

const generations = () => ctx.services.languageModel!.model.stats().generations;
const spanishFormality = async () => {
  const targets = (await ctx.app.inject({ method: 'GET', url: '/v2/languages?type=target', headers: authHeaders(pro) })).json() as { language: string; supports_formality: boolean }[];
  return targets.find((t) => t.language === 'ES')?.supports_formality;
};
const translate = (payload: object) => ctx.app.inject({ method: 'POST', url: '/v2/translate', headers: authHeaders(pro), payload });
const write = (path: string, payload: object) => ctx.app.inject({ method: 'POST', url: `/v2/write/${path}`, headers: authHeaders(pro), payload });

describe('a language model installed on this machine', () => {
  it('is needed: without one, rephrasing and formality on Apertium are refused', async () => {
    assert.equal(await spanishFormality(), false);
    assert.equal((await write('rephrase', { text: ['The house is big.'], target_lang: 'en-US' })).statusCode, 400);
    const res = await translate({ text: ['Good morning.'], source_lang: 'EN', target_lang: 'ES', formality: 'more' });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, /doesn't support formality/);
  });

  it('is found once installed, without a restart: formality is reported for Spanish, writing style for English', async () => {
    const englishStyle = async () => {
      const langs = (await ctx.app.inject({ method: 'GET', url: '/v3/languages?resource=write', headers: authHeaders(pro) })).json() as { lang: string; features: Record<string, unknown> }[];
      return Boolean(langs.find((l) => l.lang === 'en-US')?.features.writing_style);
    };
    assert.equal(await englishStyle(), false);
    installTestLlm(modelsDir);
    await waitFor('Spanish formality to be reported', async () => (await spanishFormality()) === true);
    assert.equal(await englishStyle(), true);
  });

  it('rephrases through the model (/v2/write/rephrase)', async () => {
    const before = generations();
    const res = await write('rephrase', { text: ['The house is big.'], target_lang: 'en-US' });
    assert.equal(res.statusCode, 200, res.body);
    const [improvement] = res.json().improvements as { text: string; target_language: string }[];
    assert.equal(improvement!.target_language, 'en-US');
    assert.equal(typeof improvement!.text, 'string');
    assert.ok(generations() > before, 'the model generated');
  });

  it('corrects through the model (/v2/write/correct)', async () => {
    const before = generations();
    const res = await write('correct', { text: ['The hose is big.'], target_lang: 'en-US' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().improvements.length, 1);
    assert.ok(generations() > before, 'the model generated');
  });

  it('translates with custom_instructions: Apertium translates, the model rewrites, the checked result is returned', async () => {
    const before = generations();
    const counts = { ...ctx.services.languageModel!.postEdits };
    const res = await translate({ text: ['Good morning.', 'The house is big.'], source_lang: 'EN', target_lang: 'ES', custom_instructions: ['Use short sentences.'] });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().translations.length, 2);
    assert.ok(generations() > before, 'the model generated');
    const after = ctx.services.languageModel!.postEdits;
    assert.equal(after.used + after.refused - counts.used - counts.refused, 2, 'each text post-edited or refused');
  });

  it('translates with formality=more: a refused rewrite keeps the engine translation', async () => {
    const plain = await translate({ text: ['Good morning.'], source_lang: 'EN', target_lang: 'ES' });
    assert.equal(plain.statusCode, 200, plain.body);
    const before = generations();
    const refusedBefore = ctx.services.languageModel!.postEdits.refused;
    const res = await translate({ text: ['Good morning.'], source_lang: 'EN', target_lang: 'ES', formality: 'more' });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(generations() > before, 'the model generated');
    const text = res.json().translations[0].text as string;
    if (ctx.services.languageModel!.postEdits.refused > refusedBefore) assert.equal(text, plain.json().translations[0].text);
  });
});
