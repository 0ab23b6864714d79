// LibreTranslate parity beyond the basic shapes: what its own web page and applications send and read, answered as
// LibreTranslate answers it (read from its source, libretranslate/app.py and language.py): multipart bodies on
// /translate and /detect, parameters in the query string, a batch detected once, zh-Hant, CORS and its preflight,
// /health, /suggest, and `alternatives` read as its int() reads it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAccount, createTestApp, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';
import { multipart } from '../documents/multipart.js';

let ctx: TestContext;
let pro: TestAccount;

before(async () => {
  ctx = await createTestApp({ env: { TOLK_LIBRETRANSLATE: 'true' }, engines: testEngines(['en-es', 'es-en']) });
  pro = await createAccount(ctx);
});
after(async () => ctx.close());

const host = () => ({ host: pro.host });
const postJson = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url, headers: { ...host(), 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });
const postForm = (url: string, form: string) =>
  ctx.app.inject({ method: 'POST', url, headers: { ...host(), 'content-type': 'application/x-www-form-urlencoded' }, payload: form });
const postMultipart = (url: string, fields: Record<string, string | string[]>) => {
  const parts = Object.entries(fields).flatMap(([name, v]) => (Array.isArray(v) ? v : [v]).map((value) => ({ name, value })));
  const { payload, contentType } = multipart(parts);
  return ctx.app.inject({ method: 'POST', url, headers: { ...host(), 'content-type': contentType }, payload });
};

describe('LibreTranslate requests as its web page and applications send them', () => {
  it('multipart bodies on /translate and /detect, the key as a field (its web page posts FormData)', async () => {
    const tr = await postMultipart('/translate', { q: 'The dog sleeps.', source: 'en', target: 'es', format: 'text', api_key: pro.key });
    assert.equal(tr.statusCode, 200, tr.body);
    assert.match(tr.json().translatedText, /perro/i);
    const batch = await postMultipart('/translate', { q: ['The dog.', 'The cat.'], source: 'en', target: 'es', api_key: pro.key });
    assert.equal(batch.json().translatedText.length, 2, batch.body);
    const det = await postMultipart('/detect', { q: 'Los niños juegan en el jardín esta tarde.', api_key: pro.key });
    assert.equal(det.statusCode, 200, det.body);
    assert.equal(det.json()[0].language, 'es');
    const keyless = await postMultipart('/detect', { q: 'Hello there.' });
    assert.equal(keyless.statusCode, 403, keyless.body);
    assert.match(keyless.json().error, /api_key/);
  });

  it('q, source, target (and the key) in the query string, as Flask reads request.values', async () => {
    const url = `/translate?q=${encodeURIComponent('The house is big.')}&source=en&target=es&api_key=${pro.key}`;
    const res = await ctx.app.inject({ method: 'POST', url, headers: host() });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.json().translatedText, /casa/i);
    const det = await ctx.app.inject({ method: 'POST', url: `/detect?q=${encodeURIComponent('The children are playing in the garden.')}&api_key=${pro.key}`, headers: host() });
    assert.equal(det.json()[0].language, 'en', det.body);
  });

  it('a batch is detected once: poll options too short to tell take the post’s language (Mastodon)', async () => {
    const res = await postJson('/translate', {
      q: ['<p>¿Vamos a la playa mañana por la tarde con los niños?</p>', 'Sí', 'No'],
      source: 'auto',
      target: 'en',
      format: 'html',
      api_key: pro.key,
    });
    assert.equal(res.statusCode, 200, res.body);
    const { translatedText, detectedLanguage } = res.json();
    assert.deepEqual(detectedLanguage.map((d: { language: string }) => d.language), ['es', 'es', 'es']);
    assert.match(translatedText[0], /beach/i);
    assert.match(translatedText[1], /yes/i);
    // nothing to detect in the whole batch: LibreTranslate's "en" with confidence 0, the texts answered
    const numbers = await postJson('/translate', { q: ['12', '345'], source: 'auto', target: 'es', api_key: pro.key });
    assert.equal(numbers.statusCode, 200, numbers.body);
    assert.deepEqual(numbers.json().translatedText, ['12', '345']);
    assert.deepEqual(numbers.json().detectedLanguage, [{ language: 'en', confidence: 0 }, { language: 'en', confidence: 0 }]);
  });

  it('traditional Chinese is zh-Hant, simplified zh-Hans', async () => {
    const hant = await postJson('/detect', { q: '我們今天下午一起去學校圖書館看書，這裡很安靜。', api_key: pro.key });
    assert.equal(hant.json()[0].language, 'zh-Hant', hant.body);
    const hans = await postJson('/detect', { q: '我们今天下午一起去学校图书馆看书，这里很安静。', api_key: pro.key });
    assert.equal(hans.json()[0].language, 'zh-Hans', hans.body);
  });

  it('alternatives as int() reads it: a JSON 2.5 is 2, a form "2.5" is not a number', async () => {
    const json = await postJson('/translate', { q: 'The dog.', source: 'en', target: 'es', alternatives: 2.5, api_key: pro.key });
    assert.equal(json.statusCode, 200, json.body);
    assert.deepEqual(json.json().alternatives, []);
    const form = await postForm('/translate', `q=The%20dog.&source=en&target=es&alternatives=2.5&api_key=${pro.key}`);
    assert.deepEqual([form.statusCode, form.json()], [400, { error: 'Invalid request: alternatives parameter is not a number' }]);
  });

  it('/health answers {"status": "ok"}; /suggest is 403 {"error"} (no suggestion store), without a key', async () => {
    const health = await ctx.app.inject({ method: 'GET', url: '/health', headers: host() });
    assert.deepEqual([health.statusCode, health.json()], [200, { status: 'ok' }]);
    const suggest = await postJson('/suggest', { q: 'Hello', s: 'Hola', source: 'en', target: 'es' });
    assert.deepEqual([suggest.statusCode, suggest.json()], [403, { error: 'Suggestions are disabled on this server.' }]);
  });
});

describe('LibreTranslate CORS', () => {
  it('by default as LibreTranslate: any origin, a 200 preflight, the headers on answers and on errors', async () => {
    const preflight = await ctx.app.inject({
      method: 'OPTIONS',
      url: '/translate',
      headers: { ...host(), origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(preflight.statusCode, 200, preflight.body);
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
    assert.match(String(preflight.headers['access-control-allow-headers']), /Content-Type/);
    assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
    const ok = await postJson('/translate', { q: 'The dog.', source: 'en', target: 'es', api_key: pro.key }, { origin: 'https://app.example' });
    assert.equal(ok.headers['access-control-allow-origin'], '*');
    const refused = await postJson('/translate', { q: 'The dog.', source: 'en', target: 'es' }, { origin: 'https://app.example' });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.headers['access-control-allow-origin'], '*', 'a page can read why it was refused');
    // the DeepL-style routes are not opened to other origins
    const deepl = await ctx.app.inject({ method: 'OPTIONS', url: '/v2/translate', headers: { ...host(), origin: 'https://app.example' } });
    assert.equal(deepl.headers['access-control-allow-origin'], undefined);
  });

  it('configurable: off, or only the listed origins', async () => {
    const off = await createTestApp({ engines: [], env: { TOLK_LIBRETRANSLATE: 'true', TOLK_LIBRETRANSLATE_CORS: 'false' } });
    const listed = await createTestApp({ engines: [], env: { TOLK_LIBRETRANSLATE: 'true', TOLK_LIBRETRANSLATE_CORS: 'https://a.example,https://b.example' } });
    try {
      const languages = (app: TestContext, origin: string) => app.app.inject({ method: 'GET', url: '/languages', headers: { origin } });
      assert.equal((await languages(off, 'https://a.example')).headers['access-control-allow-origin'], undefined);
      assert.equal((await off.app.inject({ method: 'OPTIONS', url: '/translate', headers: { origin: 'https://a.example' } })).statusCode, 404);
      assert.equal((await languages(listed, 'https://b.example')).headers['access-control-allow-origin'], 'https://b.example');
      assert.equal((await languages(listed, 'https://c.example')).headers['access-control-allow-origin'], undefined);
    } finally {
      await off.close();
      await listed.close();
    }
  });
});
