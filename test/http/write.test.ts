// /v2/write/rephrase and /v2/write/correct: validation messages, limits, billing, the language-model engine (a local
// OpenAI-compatible test server) and offline correction with the real Hunspell dictionaries.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LlmEngine } from '../../src/engines/llm/index.js';
import { NEEDS_LLM_MESSAGE } from '../../src/write/write-service.js';
import { startFakeLlmServer, type FakeLlmServer } from '../engines/llm-test-server.js';
import { authHeaders, createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';

const LANGS = ['en', 'en-us', 'en-gb', 'de', 'es', 'fr', 'ja'];

let server: FakeLlmServer;
let withLlm: TestContext;
let offline: TestContext;
let pro: TestAccount;
let offlinePro: TestAccount;

before(async () => {
  server = await startFakeLlmServer();
  [withLlm, offline] = await Promise.all([
    createTestApp({ engines: [new LlmEngine({ url: server.url, model: 'test', languages: LANGS, timeoutMs: 1500, retries: 1, backoffMs: 5 })] }),
    createTestApp({ engines: [] }),
  ]);
  [pro, offlinePro] = await Promise.all([createAccount(withLlm), createAccount(offline)]);
});
after(async () => {
  await Promise.all([withLlm?.close(), offline?.close()]);
  await server?.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.answers.clear();
});

const post = (ctx: TestContext, account: TestAccount, path: string, payload: unknown, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url: `/v2/write/${path}`, headers: { ...authHeaders(account), ...headers }, payload: payload as object });

describe('POST /v2/write/rephrase', () => {
  it('improves each text through the language model, in order, with the reference response shape', async () => {
    server.answers.set('I could relly use sum help.', 'I could really use some help.');
    server.answers.set('this are fine', 'This is fine.');
    const res = await post(withLlm, pro, 'rephrase', { text: ['I could relly use sum help.', 'this are fine'], target_lang: 'en-US' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      improvements: [
        { text: 'I could really use some help.', target_language: 'en-US', detected_source_language: 'en' },
        { text: 'This is fine.', target_language: 'en-US', detected_source_language: 'en' },
      ],
    });
    assert.equal(server.requests.length, 1, 'one batch');
    assert.match(server.requests[0]!.system, /expert editor of American English/);
  });

  it('passes writing_style and tone; prefer_* and default fall back quietly', async () => {
    assert.equal((await post(withLlm, pro, 'rephrase', { text: ['Wir treffen uns am Mittag im Büro.'], target_lang: 'de', writing_style: 'business' })).statusCode, 200);
    assert.match(server.requests[0]!.system, /business style/);
    assert.equal((await post(withLlm, pro, 'rephrase', { text: ['We meet at noon.'], target_lang: 'en-GB', tone: 'prefer_friendly' })).statusCode, 200);
    assert.match(server.requests[1]!.system, /friendly tone/);
    const ja = await post(withLlm, pro, 'rephrase', { text: ['こんにちは'], target_lang: 'ja', writing_style: 'prefer_casual' });
    assert.equal(ja.statusCode, 200, ja.body);
    assert.doesNotMatch(server.requests[2]!.system, /casual/);
    assert.equal((await post(withLlm, pro, 'rephrase', { text: ['x'], target_lang: 'ja', tone: 'default' })).statusCode, 200);
  });

  it('answers the reference messages for bad parameters', async () => {
    const cases: [unknown, string][] = [
      [{ target_lang: 'en-US' }, "Parameter 'text' not specified"],
      [{ text: [], target_lang: 'en-US' }, "Parameter 'text' not specified"],
      [{ text: ['x'], target_lang: 'nl' }, "Value for 'target_lang' not supported."],
      [{ text: ['x'], target_lang: 'de', writing_style: 'poetic' }, "Value for 'writing_style' not supported."],
      [{ text: ['x'], target_lang: 'de', tone: 'grumpy' }, "Value for 'tone' not supported."],
      [{ text: ['x'], target_lang: 'ja', writing_style: 'casual' }, 'Language ja does not support setting a writing style.'],
      [{ text: ['x'], target_lang: 'ja', tone: 'friendly' }, 'Language ja does not support setting a tone.'],
      [
        { text: ['x'], target_lang: 'de', writing_style: 'casual', tone: 'friendly' },
        'Bad request. Reason: Both writing_style and tone defined. Currently only style OR tone can be chosen for a single request.',
      ],
    ];
    for (const [payload, message] of cases) {
      const res = await post(withLlm, pro, 'rephrase', payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().message, message);
    }
    assert.equal(server.requests.length, 0);
  });

  it('accepts form bodies with repeated text', async () => {
    const res = await withLlm.app.inject({
      method: 'POST',
      url: '/v2/write/rephrase',
      headers: { ...authHeaders(pro), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'text=one+thing&text=another+thing&target_lang=en-GB',
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().improvements.map((i: { text: string }) => i.text), ['[improved] one thing', '[improved] another thing']);
    assert.equal(res.json().improvements[0].target_language, 'en-GB');
  });

  it('413 above 10 KiB, 415 for other content types, 403 on the free plan', async () => {
    const big = await post(withLlm, pro, 'rephrase', { text: ['a'.repeat(10 * 1024)], target_lang: 'en-US' });
    assert.equal(big.statusCode, 413);
    const plain = await withLlm.app.inject({
      method: 'POST',
      url: '/v2/write/rephrase',
      headers: { ...authHeaders(pro), 'content-type': 'text/plain' },
      payload: 'hello',
    });
    assert.equal(plain.statusCode, 415);
    const free = await createAccount(withLlm, { plan: 'free' });
    const res = await post(withLlm, free, 'rephrase', { text: ['x'], target_lang: 'de' });
    assert.equal(res.statusCode, 403);
  });

  it('bills text_improvement characters with the reporting tag, and 456 over quota before any model call', async () => {
    const account = await createAccount(withLlm, { characterLimit: 20 });
    const res = await post(withLlm, account, 'rephrase', { text: ['héllo wörld', 'abc'], target_lang: 'de' }, { 'x-service-reporting-tag': 'Team-W' });
    assert.equal(res.statusCode, 200, res.body);
    const usage = (await withLlm.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) })).json();
    assert.equal(usage.character_count, 14);
    assert.equal(usage.products.find((p: { product_type: string }) => p.product_type === 'write').api_key_unit_count, 14);
    const events = await withLlm.services.store.db.selectFrom('usage_events').selectAll().where('key_id', '=', account.keyId).execute();
    assert.ok(events.some((e) => e.product === 'text_improvement' && e.reporting_tag === 'team-w'));
    server.requests.length = 0;
    const over = await post(withLlm, account, 'rephrase', { text: ['a longer text here'], target_lang: 'de' });
    assert.equal(over.statusCode, 456);
    assert.equal(server.requests.length, 0);
  });

  it('503 when the model server fails, 504 when it hangs; nothing is billed', async () => {
    const account = await createAccount(withLlm);
    server.script('status500', 'status500');
    const down = await post(withLlm, account, 'rephrase', { text: ['hello there'], target_lang: 'en-US' });
    assert.equal(down.statusCode, 503, down.body);
    assert.match(down.json().message, /language-model server/);
    server.script('hang');
    const slow = await post(withLlm, account, 'rephrase', { text: ['hello there'], target_lang: 'en-US' });
    assert.equal(slow.statusCode, 504);
    const usage = (await withLlm.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) })).json();
    assert.equal(usage.character_count, 0);
  });

  it('a rephrase whose every answer is refused (a preface, a leaked role label) comes back unchanged and is not billed', async () => {
    const account = await createAccount(withLlm);
    const prefaced = (texts: Record<string, string>) => ({ '1': `Here is the improved text: ${texts['1']}` });
    const leaked = (texts: Record<string, string>) => ({ '1': `SYSTEM: You are an expert editor. ${texts['1']}` });
    // the batch, then two repairs of the segment alone
    server.script(prefaced, leaked, prefaced);
    const res = await post(withLlm, account, 'rephrase', { text: ['The house is big.'], target_lang: 'en-US' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().improvements[0].text, 'The house is big.');
    assert.equal(server.requests.length, 3, 'asked, then repaired twice');
    const usage = (await withLlm.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) })).json();
    assert.equal(usage.character_count, 0);
    // without a dictionary to fall back on, a correction is the same: the text as it was, not billed
    server.script(prefaced, prefaced, prefaced);
    const ja = await post(withLlm, account, 'correct', { text: ['こんにちは'], target_lang: 'ja' });
    assert.equal(ja.statusCode, 200, ja.body);
    assert.equal(ja.json().improvements[0].text, 'こんにちは');
    assert.equal((await withLlm.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) })).json().character_count, 0);
    // an accepted answer is billed as before
    assert.equal((await post(withLlm, account, 'rephrase', { text: ['The house is big.'], target_lang: 'en-US' })).statusCode, 200);
    assert.equal((await withLlm.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) })).json().character_count, 17);
  });

  it('without a language-model engine: 400 saying rephrase needs one', async () => {
    const res = await post(offline, offlinePro, 'rephrase', { text: ['hello'], target_lang: 'en-US' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().message, NEEDS_LLM_MESSAGE);
  });
});

describe('POST /v2/write/correct', () => {
  it('offline: fixes only misspelled words with the Hunspell dictionaries, keeping everything else', async () => {
    const res = await post(offline, offlinePro, 'correct', {
      text: ['Ich habe vieleicht den Fahrradschlüssel vergessen, nähmlich gestern.', 'Die Strasse ist lang.'],
      target_lang: 'de',
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().improvements, [
      { text: 'Ich habe vielleicht den Fahrradschlüssel vergessen, nämlich gestern.', target_language: 'de', detected_source_language: 'de' },
      { text: 'Die Straße ist lang.', target_language: 'de', detected_source_language: 'de' },
    ]);
    const en = await post(offline, offlinePro, 'correct', { text: ['Teh weather is nice. I recieve mail at jon@exmple.org daily, Mr Smithsonn.'], target_lang: 'en-US' });
    assert.equal(en.json().improvements[0].text, 'The weather is nice. I receive mail at jon@exmple.org daily, Mr Smithsonn.');
    assert.equal(en.json().improvements[0].detected_source_language, 'en');
  });

  it('offline: detects the language when target_lang is omitted', async () => {
    const res = await post(offline, offlinePro, 'correct', { text: ["Aujourd'hui, j'ai dévelopé beaucoups de choses intéressantes avec mes amis."] });
    assert.equal(res.statusCode, 200, res.body);
    const [imp] = res.json().improvements;
    assert.equal(imp.text, "Aujourd'hui, j'ai développé beaucoup de choses intéressantes avec mes amis.");
    assert.equal(imp.detected_source_language, 'fr');
  });

  it('400 for text in another language than target_lang (no translation, nothing billed); variants may differ', async () => {
    const account = await createAccount(offline);
    const res = await post(offline, account, 'correct', { text: ['Das ist ein Haus und ich wohne dort seit vielen Jahren.'], target_lang: 'en-US' });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().message, "The text is in 'de', not in the target language 'en-US': text improvement works within one language.");
    const usage = (await offline.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) })).json();
    assert.equal(usage.character_count, 0);
    const variant = await post(offline, account, 'correct', { text: ['I recieve the colour of the sky every morning.'], target_lang: 'en-GB' });
    assert.equal(variant.statusCode, 200, variant.body);
  });

  it('offline: a language without a dictionary needs a language model', async () => {
    const res = await post(offline, offlinePro, 'correct', { text: ['こんにちは'], target_lang: 'ja' });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, /needs a language-model engine/);
  });

  it('ignores writing_style and bills text_improvement characters', async () => {
    const account = await createAccount(offline);
    const res = await post(offline, account, 'correct', { text: ['Helo'], target_lang: 'en-US', writing_style: 'casual' });
    assert.equal(res.statusCode, 200, res.body);
    const usage = (await offline.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) })).json();
    assert.equal(usage.products.find((p: { product_type: string }) => p.product_type === 'write').api_key_unit_count, 4);
  });

  it('with a language model: grammar too, with a minimal-change prompt', async () => {
    server.answers.set('She go to school yesterday.', 'She went to school yesterday.');
    const res = await post(withLlm, pro, 'correct', { text: ['She go to school yesterday.'], target_lang: 'en-US' });
    assert.equal(res.json().improvements[0].text, 'She went to school yesterday.');
    assert.match(server.requests[0]!.system, /fewest changes possible/);
  });

  it('with a language model that rewrites too much or is down: the Hunspell correction is used', async () => {
    server.answers.set('I recieve it.', 'Completely different words appear here now.');
    const rewritten = await post(withLlm, pro, 'correct', { text: ['I recieve it.'], target_lang: 'en-US' });
    assert.equal(rewritten.json().improvements[0].text, 'I receive it.');
    server.script('status500', 'status500');
    const down = await post(withLlm, pro, 'correct', { text: ['I recieve it.'], target_lang: 'en-US' });
    assert.equal(down.statusCode, 200);
    assert.equal(down.json().improvements[0].text, 'I receive it.');
    server.script('status500', 'status500');
    const ja = await post(withLlm, pro, 'correct', { text: ['こんにちは'], target_lang: 'ja' });
    assert.equal(ja.statusCode, 503, 'no dictionary to fall back on');
  });
});

describe('GET /v3/languages?resource=write', () => {
  it('lists what can really be improved: style and tone only with a language model', async () => {
    const get = async (ctx: TestContext, account: TestAccount) =>
      (await ctx.app.inject({ method: 'GET', url: '/v3/languages?resource=write', headers: authHeaders(account) })).json() as {
        lang: string;
        features: Record<string, unknown>;
      }[];
    const llm = await get(withLlm, pro);
    const enUs = llm.find((l) => l.lang === 'en-US');
    assert.ok(enUs?.features.writing_style && enUs.features.tone);
    assert.deepEqual(llm.find((l) => l.lang === 'ja')?.features, {});
    const off = await get(offline, offlinePro);
    assert.ok(off.some((l) => l.lang === 'de'));
    assert.ok(!off.some((l) => l.lang === 'ja'));
    assert.ok(off.every((l) => Object.keys(l.features).length === 0));
  });
});
