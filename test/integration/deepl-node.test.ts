// The official deepl-node client, pointed at a real Tolk server on loopback, works unchanged.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as deepl from 'deepl-node';
import { createAccount, createTestApp, type TestAccount, type TestContext, freePort } from '../helpers/harness.js';
import { HUNG_TEST_MS } from '../helpers/wait.js';

let ctx: TestContext;
let pro: TestAccount;
let free: TestAccount;
let paidUrl: string;
let freeUrl: string;

before(async () => {
  const port = await freePort();
  // One listener; the plan endpoints are told apart by Host (127.0.0.1 = paid, localhost = free).
  paidUrl = `http://127.0.0.1:${port}`;
  freeUrl = `http://localhost:${port}`;
  ctx = await createTestApp({
    env: { TOLK_PORT: String(port), TOLK_FREE_PORT: String(port), TOLK_BASE_URL: paidUrl, TOLK_FREE_BASE_URL: freeUrl },
  });
  pro = await createAccount(ctx, { plan: 'pro' });
  free = await createAccount(ctx, { plan: 'free', characterLimit: 40 });
  await ctx.app.listen({ port, host: '127.0.0.1' });
});
after(async () => ctx.close());

describe('deepl-node against Tolk', () => {
  it('translates a single text and reports the detected source language', async () => {
    const translator = new deepl.Translator(pro.key, { serverUrl: paidUrl, minTimeout: 2 * HUNG_TEST_MS });
    const result = await translator.translateText('The house is big.', null, 'es');
    assert.match(result.text, /casa/i);
    assert.equal(result.detectedSourceLang, 'en');
  });

  it('translates several texts in order with source language and billed characters', async () => {
    const translator = new deepl.Translator(pro.key, { serverUrl: paidUrl, minTimeout: 2 * HUNG_TEST_MS });
    const results = await translator.translateText(['The dog.', 'The cat.'], 'en', 'es', { showBilledCharacters: true } as deepl.TranslateTextOptions);
    assert.equal(results.length, 2);
    assert.match(results[0]!.text, /perro/i);
    assert.match(results[1]!.text, /gato/i);
    assert.equal(results[0]!.billedCharacters, 8);
  });

  it('reads usage', async () => {
    const translator = new deepl.Translator(pro.key, { serverUrl: paidUrl, minTimeout: 2 * HUNG_TEST_MS });
    const usage = await translator.getUsage();
    assert.ok(usage.character);
    assert.ok(usage.character.count >= 8 + 8 + 17);
  });

  it('lists languages', async () => {
    const translator = new deepl.Translator(pro.key, { serverUrl: paidUrl, minTimeout: 2 * HUNG_TEST_MS });
    const sources = await translator.getSourceLanguages();
    assert.ok(sources.some((l) => l.code === 'en' && l.name === 'English'));
    const targets = await translator.getTargetLanguages();
    assert.ok(targets.some((l) => l.code === 'es'));
  });

  it('maps 403 and 456 to the client’s error classes', async () => {
    const bad = new deepl.Translator('wrong-key', { serverUrl: paidUrl, minTimeout: 2 * HUNG_TEST_MS });
    await assert.rejects(bad.translateText('Hi', null, 'es'), deepl.AuthorizationError);
    const freeTranslator = new deepl.Translator(free.key, { serverUrl: freeUrl, minTimeout: 2 * HUNG_TEST_MS });
    const ok = await freeTranslator.translateText('The house is big.', 'en', 'es');
    assert.match(ok.text, /casa/i);
    await assert.rejects(freeTranslator.translateText('The house is big and the garden is green.', 'en', 'es'), deepl.QuotaExceededError);
  });

  it('a free key on the paid endpoint is refused', async () => {
    const wrong = new deepl.Translator(free.key, { serverUrl: paidUrl, minTimeout: 2 * HUNG_TEST_MS });
    await assert.rejects(wrong.translateText('Hi', 'en', 'es'), (err: Error) => err instanceof deepl.AuthorizationError && err.message.includes(freeUrl));
  });
});
