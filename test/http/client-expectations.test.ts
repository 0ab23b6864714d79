// What the official clients expect of languages and v3 glossaries (the Python client sends GET bodies; deepl-node creates
// empty glossaries and lists dictionaries in the order it gave them), and clear 400s for malformed dictionaries.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as deepl from 'deepl-node';
import { LlmEngine } from '../../src/engines/llm/index.js';
import { startFakeLlmServer, type FakeLlmServer } from '../engines/llm-test-server.js';
import { createAccount, createTestApp, freePort, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';
import { HUNG_TEST_MS } from '../helpers/wait.js';

let ctx: TestContext;
let pro: TestAccount;
let url: string;
let client: deepl.DeepLClient;
let llm: FakeLlmServer;

before(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  llm = await startFakeLlmServer();
  const model = new LlmEngine({ url: llm.url, model: 'test', languages: ['en', 'de'], timeoutMs: 1500, retries: 0, backoffMs: 5 });
  ctx = await createTestApp({
    engines: [...testEngines(['en-es']), model],
    env: { TOLK_PORT: String(port), TOLK_FREE_PORT: String(port), TOLK_BASE_URL: url, TOLK_FREE_BASE_URL: url },
  });
  pro = await createAccount(ctx, { plan: 'pro' });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  client = new deepl.DeepLClient(pro.key, { serverUrl: url, maxRetries: 0, minTimeout: 2 * HUNG_TEST_MS });
});
after(async () => {
  await ctx?.close();
  await llm?.close();
});

const auth = () => ({ authorization: `DeepL-Auth-Key ${pro.key}`, host: pro.host });

describe('GET /v2/languages with a form body (the Python client)', () => {
  it('type=target in the body lists targets', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/v2/languages',
      headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'type=target',
    });
    assert.equal(res.statusCode, 200, res.body);
    const list = res.json() as { language: string; supports_formality?: boolean }[];
    assert.ok(list.length > 0);
    for (const l of list) assert.equal(typeof l.supports_formality, 'boolean', JSON.stringify(l));
    assert.deepEqual(list.map((l) => l.language), (await client.getTargetLanguages()).map((l) => l.code.toUpperCase()));
  });
});

describe('/v2/languages with only plain English engines', () => {
  it('lists EN-US beside EN-GB, and EN-US translates', async () => {
    // English comes only from the model here, as plain `en`
    const targets = (await client.getTargetLanguages()).map((l) => l.code);
    assert.ok(targets.includes('en-GB') && targets.includes('en-US'), targets.join(','));
    llm.answers.set('Guten Morgen.', 'Good morning.');
    const r = await client.translateText('Guten Morgen.', 'de', 'en-US');
    assert.equal(r.text, 'Good morning.');
  });
});

describe('v3 glossaries as the clients use them', () => {
  it('an empty glossary is created, then dictionaries are added', async () => {
    const g = await client.createMultilingualGlossary('Later', []);
    assert.deepEqual(g.dictionaries, []);
    await client.updateMultilingualGlossaryDictionary(g.glossaryId, { sourceLangCode: 'en', targetLangCode: 'de', entries: new deepl.GlossaryEntries({ entries: { artist: 'Maler' } }) });
    const got = await client.getMultilingualGlossary(g.glossaryId);
    assert.deepEqual(got.dictionaries.map((d) => [d.sourceLangCode, d.targetLangCode, d.entryCount]), [['en', 'de', 1]]);
  });

  it('dictionaries come back in the order they were given, a new one last', async () => {
    const entries = new deepl.GlossaryEntries({ entries: { a: 'b' } });
    const g = await client.createMultilingualGlossary('Order', [
      { sourceLangCode: 'fr', targetLangCode: 'en', entries },
      { sourceLangCode: 'en', targetLangCode: 'de', entries },
      { sourceLangCode: 'de', targetLangCode: 'en', entries },
    ]);
    const order = ['fr-en', 'en-de', 'de-en'];
    assert.deepEqual(g.dictionaries.map((d) => `${d.sourceLangCode}-${d.targetLangCode}`), order);
    await client.replaceMultilingualGlossaryDictionary(g.glossaryId, { sourceLangCode: 'en', targetLangCode: 'de', entries });
    await client.updateMultilingualGlossaryDictionary(g.glossaryId, { sourceLangCode: 'en', targetLangCode: 'es', entries });
    const got = await client.getMultilingualGlossary(g.glossaryId);
    assert.deepEqual(got.dictionaries.map((d) => `${d.sourceLangCode}-${d.targetLangCode}`), [...order, 'en-es']);
  });

  it('a dictionary that is not an object is a 400 naming the parameter, on POST and PATCH', async () => {
    const post = await ctx.app.inject({ method: 'POST', url: '/v3/glossaries', headers: auth(), payload: { name: 'x', dictionaries: [null] } });
    assert.equal(post.statusCode, 400, post.body);
    assert.match(post.json().message, /dictionaries/);
    const g = await client.createMultilingualGlossary('Patch', []);
    for (const bad of [null, 'x', 3, []]) {
      const patch = await ctx.app.inject({ method: 'PATCH', url: `/v3/glossaries/${g.glossaryId}`, headers: auth(), payload: { dictionaries: [bad] } });
      assert.equal(patch.statusCode, 400, `${JSON.stringify(bad)}: ${patch.body}`);
      assert.match(patch.json().message, /dictionaries/);
    }
  });
});

describe('glossary terms keep their case', () => {
  it('a capitalised term starting a lower-case text stays capitalised with preserve_formatting (as documents use it)', async () => {
    const g = await client.createMultilingualGlossary('Case', [
      { sourceLangCode: 'en', targetLangCode: 'es', entries: new deepl.GlossaryEntries({ entries: { artist: 'Pintor' } }) },
    ]);
    const r = await client.translateText('artist of the year', 'en', 'es', { glossary: g.glossaryId, preserveFormatting: true });
    assert.match(r.text, /^Pintor\b/, r.text);
    // without a glossary term the source's lower case still wins
    const plain = await client.translateText('the house', 'en', 'es', { preserveFormatting: true });
    assert.match(plain.text, /^la\b/, plain.text);
  });
});

describe('/v2/write/rephrase as the clients use it', () => {
  it("'default' style and tone set nothing, en answers as en-US", async () => {
    llm.answers.set('I could relly use sum help.', 'I could really use some help.');
    const r = await client.rephraseText('I could relly use sum help.', 'en', 'default', 'default');
    assert.equal(r.text, 'I could really use some help.');
    assert.equal(r.targetLang, 'en-US');
    assert.doesNotMatch(llm.requests.at(-1)!.system, /style|tone/i);
    const styled = await client.rephraseText('I could relly use sum help.', 'en', deepl.WritingStyle.BUSINESS, 'default');
    assert.equal(styled.targetLang, 'en-US');
    assert.match(llm.requests.at(-1)!.system, /business style/);
  });

  it('a text in another language than target_lang is translated and rephrased', async () => {
    llm.answers.set('Wir treffen uns morgen im Büro.', "We'll meet at the office tomorrow.");
    const r = await client.rephraseText('Wir treffen uns morgen im Büro.', 'en-GB');
    assert.equal(r.text, "We'll meet at the office tomorrow.");
    assert.equal(r.targetLang, 'en-GB');
    assert.equal(r.detectedSourceLang, 'de');
    assert.match(llm.requests.at(-1)!.system, /German: translate it into/);
  });
});
