// LibreTranslate's API (TOLK_LIBRETRANSLATE=true), written from its published description (/spec, docs) and from
// Mastodon's LibreTranslate translator's requests: each endpoint, JSON and form bodies, string and array q, text and
// html, auto, keys (api_key in body or query, or the header), billing, quota, the rate limit and the error shape.
// Parity beyond the basic shapes, answered as LibreTranslate answers it (read from its source, libretranslate/app.py and
// language.py): multipart bodies on /translate and /detect, parameters in the query string, a batch detected once,
// zh-Hant, CORS and its preflight, /health, /suggest, and `alternatives` read as its int() reads it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authHeaders, createAccount, createTestApp, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';
import { loadConfig } from '../../src/config.js';
import { redactUrl } from '../../src/http/log-redaction.js';
import { multipart } from '../documents/multipart.js';
import { waitFor } from '../helpers/wait.js';

let ctx: TestContext;
let pro: TestAccount;

before(async () => {
  ctx = await createTestApp({ env: { TOLK_LIBRETRANSLATE: 'true' }, engines: testEngines(['en-es', 'es-en', 'es-pt', 'es-pt-br', 'es-ca']) });
  pro = await createAccount(ctx);
});
after(async () => ctx.close());

const host = () => ({ host: pro.host });
const postJson = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url, headers: { ...host(), 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });
const postForm = (url: string, form: string) =>
  ctx.app.inject({ method: 'POST', url, headers: { ...host(), 'content-type': 'application/x-www-form-urlencoded' }, payload: form });
const usageEvents = (account: TestAccount, product: string) =>
  ctx.services.store.db.selectFrom('usage_events').selectAll().where('key_id', '=', account.keyId).where('product', '=', product as 'text_translation').execute();

describe('LibreTranslate /translate', () => {
  it('a string q in JSON, key as api_key: translatedText is a string, no detection without auto', async () => {
    const res = await postJson('/translate', { q: 'The house is big.', source: 'en', target: 'es', api_key: pro.key });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.match(body.translatedText, /casa/i);
    assert.deepEqual(Object.keys(body), ['translatedText']);
    assert.match(res.headers['x-trace-id'] as string, /^[0-9a-f]{32}$/);
  });

  it('an array q with source=auto: arrays of translations and detected languages with confidence, in order', async () => {
    const res = await postJson('/translate', {
      q: ['The children are playing in the garden this afternoon.', 'Los niños juegan en el jardín esta tarde.'],
      source: 'auto',
      target: 'en',
      api_key: pro.key,
    });
    assert.equal(res.statusCode, 200, res.body);
    const { translatedText, detectedLanguage } = res.json();
    assert.equal(translatedText.length, 2);
    assert.match(translatedText[1], /garden/i);
    assert.deepEqual(detectedLanguage.map((d: { language: string }) => d.language), ['en', 'es']);
    for (const d of detectedLanguage) assert.ok(d.confidence > 50 && d.confidence <= 100, JSON.stringify(d));
  });

  it('a form body, and repeated q fields as an array', async () => {
    const one = await postForm('/translate', `q=The%20dog.&source=en&target=es&api_key=${pro.key}`);
    assert.equal(one.statusCode, 200, one.body);
    assert.match(one.json().translatedText, /perro/i);
    const many = await postForm('/translate', `q=The%20dog.&q=The%20cat.&source=en&target=es&api_key=${pro.key}`);
    assert.equal(many.statusCode, 200, many.body);
    assert.equal(many.json().translatedText.length, 2);
    assert.match(many.json().translatedText[1], /gato/i);
  });

  it('format=html keeps the markup through the markup layer', async () => {
    const res = await postJson('/translate', { q: '<p>The <b>house</b> is big.</p>', source: 'en', target: 'es', format: 'html', api_key: pro.key });
    assert.equal(res.statusCode, 200, res.body);
    const text: string = res.json().translatedText;
    assert.match(text, /^<p>.*<\/p>$/s);
    assert.match(text, /<b>casa<\/b>/i);
  });

  it('alternatives: empty lists, as the engines give one translation', async () => {
    const one = await postJson('/translate', { q: 'The dog.', source: 'en', target: 'es', alternatives: 3, api_key: pro.key });
    assert.deepEqual(one.json().alternatives, []);
    const many = await postJson('/translate', { q: ['The dog.', 'The cat.'], source: 'en', target: 'es', alternatives: '2', api_key: pro.key });
    assert.deepEqual(many.json().alternatives, [[], []]);
    const bad = await postJson('/translate', { q: 'The dog.', source: 'en', target: 'es', alternatives: 'many', api_key: pro.key });
    assert.deepEqual([bad.statusCode, bad.json()], [400, { error: 'Invalid request: alternatives parameter is not a number' }]);
  });

  it("Mastodon's requests (JSON: q, source or auto, target, format html, api_key) and its /languages read", async () => {
    // app/lib/translation_service/libre_translate.rb: Oj.dump(q:, source: source.presence || 'auto', target:,
    // format: 'html', api_key:) with Content-Type: application/json on every request; older releases send one text,
    // current ones an array and read detectedLanguage[i].language
    const mastodon = (payload: unknown) => postJson('/translate', payload);
    const old = await mastodon({ q: '<p>The cat sleeps.</p>', source: 'auto', target: 'es', format: 'html', api_key: pro.key });
    assert.equal(old.statusCode, 200, old.body);
    assert.match(old.json().translatedText, /<p>.*gato.*<\/p>/i);
    assert.equal(old.json().detectedLanguage.language, 'en');
    const current = await mastodon({ q: ['<p>The cat sleeps.</p>', '<p>The <a href="https://example.org/@dog">dog</a> sleeps.</p>'], source: 'en', target: 'es', format: 'html', api_key: pro.key });
    assert.equal(current.statusCode, 200, current.body);
    const [cat, dog] = current.json().translatedText;
    assert.match(cat, /<p>.*gato.*<\/p>/i);
    assert.match(dog, /<a href="https:\/\/example.org\/@dog">perro<\/a>/i);
    // languages: code → targets without itself, no key
    const languages = await ctx.app.inject({ method: 'GET', url: '/languages', headers: { ...host(), 'content-type': 'application/json' } });
    assert.equal(languages.statusCode, 200, languages.body);
    const en = languages.json().find((l: { code: string }) => l.code === 'en');
    // English reaches Portuguese and Catalan through Spanish (a pivot)
    assert.deepEqual(en, { code: 'en', name: 'English', targets: ['ca', 'es', 'pt', 'pt-BR'] });
  });

  it("Discourse's requests (form bodies with api_key: /detect, then /translate with format=html)", async () => {
    // discourse-translator's LibreTranslate provider: URI.encode_www_form(q:, [source:, target:, format: 'html',] api_key:)
    const detected = await postForm('/detect', `q=${encodeURIComponent('<p>The children are playing in the garden.</p>')}&api_key=${pro.key}`);
    assert.equal(detected.statusCode, 200, detected.body);
    const source = detected.json()[0].language;
    assert.equal(source, 'en');
    const res = await postForm('/translate', `q=${encodeURIComponent('<p>The <em>house</em> is big.</p>')}&source=${source}&target=es&format=html&api_key=${pro.key}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.json().translatedText, /^<p>.*<em>casa<\/em>.*<\/p>$/i);
  });

  it("LibreTranslate's language codes: pt-BR and pb, and 400 naming an unknown one", async () => {
    for (const target of ['pt-BR', 'pb']) {
      const res = await postJson('/translate', { q: 'La casa es grande.', source: 'es', target, api_key: pro.key });
      assert.equal(res.statusCode, 200, `${target}: ${res.body}`);
      assert.match(res.json().translatedText, /casa/i);
    }
    const unknown = await postJson('/translate', { q: 'Hola.', source: 'es', target: 'xx', api_key: pro.key });
    assert.deepEqual([unknown.statusCode, unknown.json()], [400, { error: 'xx is not supported' }]);
  });

  it('400 with the parameter named: missing q, source or target, a bad format, a pair no engine serves', async () => {
    const cases: [unknown, RegExp][] = [
      [{ source: 'en', target: 'es' }, /^Invalid request: missing q parameter$/],
      [{ q: 'Hi', target: 'es' }, /^Invalid request: missing source parameter$/],
      [{ q: 'Hi', source: 'en' }, /^Invalid request: missing target parameter$/],
      [{ q: 'Hi', source: 'en', target: 'es', format: 'pdf' }, /^pdf format is not supported$/],
      [{ q: [1], source: 'en', target: 'es' }, /q parameter/],
      [{ q: 'Hi', source: 'en', target: 'de' }, /./],
    ];
    for (const [payload, message] of cases) {
      const res = await postJson('/translate', { ...(payload as object), api_key: pro.key });
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      assert.deepEqual(Object.keys(res.json()), ['error']);
      assert.match(res.json().error, message);
    }
  });

  it('never answers 500 for junk bodies; a text of unclosed tags is answered at once', async () => {
    const payloads: [string, string][] = [
      ['application/json', 'null'],
      ['application/json', '[]'],
      ['application/json', '"q"'],
      ['application/json', `{"q": {"a": 1}, "source": "en", "target": "es", "api_key": "${pro.key}"}`],
      ['application/json', `{"q": "a", "source": ["en"], "target": "es", "api_key": "${pro.key}"}`],
      ['application/json', `{"q": "a", "source": "en", "target": "es", "format": 1, "api_key": "${pro.key}"}`],
      ['application/json', '{"q": "a", "api_key": {"k": 1}}'],
      ['application/x-www-form-urlencoded', '%%%'],
      ['application/x-www-form-urlencoded', `q=a&source=en&target=es&alternatives=1e999&api_key=${pro.key}`],
      ['text/plain', 'q=a'],
    ];
    for (const url of ['/translate', '/detect']) {
      for (const [type, payload] of payloads) {
        const res = await ctx.app.inject({ method: 'POST', url, headers: { ...host(), 'content-type': type }, payload });
        // /detect reads only q: the bodies with a good q and a bad source are fine there
        assert.ok(res.statusCode < 500, `${url} ${type} ${payload} → ${res.statusCode} ${res.body}`);
        if (url === '/translate' || res.statusCode !== 200) assert.equal(typeof res.json().error, 'string', `${url} ${payload}: ${res.body}`);
      }
    }
    const started = Date.now();
    const tags = await postJson('/translate', { q: '<'.repeat(100_000), source: 'auto', target: 'es', format: 'html', api_key: pro.key });
    assert.ok(tags.statusCode < 500, tags.body);
    assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
  });

  it('keys: 403 {error} when missing, empty or unknown; accepted in the query and in the Authorization header', async () => {
    for (const key of [undefined, '', 'not-a-key']) {
      const res = await postJson('/translate', { q: 'Hi', source: 'en', target: 'es', ...(key === undefined ? {} : { api_key: key }) });
      assert.equal(res.statusCode, 403, res.body);
      assert.match(res.json().error, /Authorization failed/);
      assert.match(res.headers['x-trace-id'] as string, /^[0-9a-f]{32}$/);
    }
    const inQuery = await postJson(`/translate?api_key=${pro.key}`, { q: 'The dog.', source: 'en', target: 'es' });
    assert.equal(inQuery.statusCode, 200, inQuery.body);
    // the request log line masks it, as the download URL's document key
    assert.equal(redactUrl(`/translate?api_key=${pro.key}`), '/translate?api_key=[redacted]');
    assert.equal(redactUrl('/download_file/D/a.txt?key=K&expires=1&signature=S'), '/download_file/D/a.txt?key=[redacted]&expires=1&signature=[redacted]');
    const inHeader = await postJson('/translate', { q: 'The dog.', source: 'en', target: 'es' }, authHeaders(pro));
    assert.equal(inHeader.statusCode, 200, inHeader.body);
    // a proxy's own Authorization header does not hide the api_key
    const behindProxy = await postJson('/translate', { q: 'The dog.', source: 'en', target: 'es', api_key: pro.key }, { authorization: 'Basic cHJveHk6c2VjcmV0' });
    assert.equal(behindProxy.statusCode, 200, behindProxy.body);
  });

  it('bills the key in the usage ledger, as /v2/translate does; a spent quota is 403', async () => {
    const account = await createAccount(ctx, { characterLimit: 20 });
    const res = await postJson('/translate', { q: ['The dog.', 'The cat.'], source: 'en', target: 'es', api_key: account.key }, { 'x-service-reporting-tag': 'Mastodon' });
    assert.equal(res.statusCode, 200, res.body);
    const events = await usageEvents(account, 'text_translation');
    assert.equal(events.reduce((n, e) => n + Number(e.units), 0), 'The dog.The cat.'.length);
    assert.ok(events.every((e) => e.reporting_tag === 'mastodon'));
    const usage = await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) });
    assert.equal(usage.json().character_count, 16);
    const over = await postJson('/translate', { q: 'The house is very big.', source: 'en', target: 'es', api_key: account.key });
    assert.equal(over.statusCode, 403, over.body);
    assert.match(over.json().error, /quota/i);
  });

  it('leaves the DeepL-style routes as they were (their error body, their header-only keys)', async () => {
    const res = await postJson('/v2/translate', { text: ['Hi'], target_lang: 'ES', api_key: pro.key });
    assert.equal(res.statusCode, 403);
    assert.ok(res.json().message);
    assert.equal(res.json().error, undefined);
  });
});

describe('LibreTranslate /detect, /languages, /frontend/settings, /spec', () => {
  it('/detect: [{language, confidence}] from JSON or a form; 400 without q', async () => {
    const json = await postJson('/detect', { q: 'The children are playing in the garden this afternoon.', api_key: pro.key });
    assert.equal(json.statusCode, 200, json.body);
    const [best] = json.json();
    assert.equal(best.language, 'en');
    assert.ok(best.confidence > 50 && best.confidence <= 100);
    const form = await postForm('/detect', `q=${encodeURIComponent('Los niños juegan en el jardín esta tarde.')}&api_key=${pro.key}`);
    assert.equal(form.json()[0].language, 'es');
    const empty = await postJson('/detect', { api_key: pro.key });
    assert.deepEqual([empty.statusCode, empty.json()], [400, { error: 'Invalid request: missing q parameter' }]);
    assert.equal((await postJson('/detect', { q: 'Hello' })).statusCode, 403);
  });

  it('/languages: every language with its targets in LibreTranslate codes, without a key', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/languages', headers: host() });
    const byCode = new Map<string, { name: string; targets: string[] }>(res.json().map((l: { code: string }) => [l.code, l]));
    assert.deepEqual(byCode.get('es')?.targets, ['ca', 'en', 'pt', 'pt-BR']);
    assert.equal(byCode.get('pt-BR')?.name, 'Portuguese (Brazilian)');
    assert.deepEqual(byCode.get('pt-BR')?.targets, []);
  });

  it('/frontend/settings: keys required, the document formats, no key needed', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/frontend/settings', headers: host() });
    assert.equal(res.statusCode, 200);
    const settings = res.json();
    assert.equal(settings.keyRequired, true);
    assert.ok(settings.supportedFilesFormat.includes('.txt') && settings.supportedFilesFormat.includes('.docx'));
    assert.equal(settings.language.source.code, 'auto');
  });

  it('/spec describes the LibreTranslate routes', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/spec', headers: host() });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(Object.keys(res.json().paths).sort(), ['/detect', '/frontend/settings', '/languages', '/translate', '/translate_file']);
  });
});

describe('LibreTranslate /translate_file', () => {
  const uploadFile = (fields: { name: string; value: string }[]) => {
    const { payload, contentType } = multipart([{ name: 'file', filename: 'note.txt', content: 'The cat sleeps.', contentType: 'text/plain' }, ...fields]);
    return ctx.app.inject({ method: 'POST', url: '/translate_file', headers: { ...host(), 'content-type': contentType }, payload });
  };

  it('translates through the document jobs; the signed URL downloads once and charges the uploading key', async () => {
    const res = await uploadFile([{ name: 'source', value: 'en' }, { name: 'target', value: 'es' }, { name: 'api_key', value: pro.key }]);
    assert.equal(res.statusCode, 200, res.body);
    const url = new URL(res.json().translatedFileUrl);
    assert.match(url.pathname, /^\/download_file\/[0-9A-F]{32}\/note\.txt$/);
    const download = await ctx.app.inject({ method: 'GET', url: url.pathname + url.search, headers: host() });
    assert.equal(download.statusCode, 200, download.body);
    assert.match(download.body, /gato/i);
    assert.match(String(download.headers['content-disposition']), /filename="note\.txt"/);
    const charged = await waitFor('the download to be charged', async () => (await usageEvents(pro, 'document_translation')).length > 0);
    assert.ok(charged);
    const again = await ctx.app.inject({ method: 'GET', url: url.pathname + url.search, headers: host() });
    assert.equal(again.statusCode, 404);
    assert.deepEqual(Object.keys(again.json()), ['error']);
  });

  it('a damaged file is a 400 naming the problem, as /v2/document tells it in the status; never a 500', async () => {
    const files = [
      { filename: 'damaged.docx', content: Buffer.from('PK\x03\x04 not really a zip package') },
      { filename: 'cut.idml', content: Buffer.from('just text') },
      { filename: 'bad.xlf', content: '<xliff version="1.2"><file><body><trans-unit id="1"><source>Hi' },
    ];
    for (const file of files) {
      const { payload, contentType } = multipart([{ name: 'file', ...file }, { name: 'source', value: 'en' }, { name: 'target', value: 'es' }, { name: 'api_key', value: pro.key }]);
      const res = await ctx.app.inject({ method: 'POST', url: '/translate_file', headers: { ...host(), 'content-type': contentType }, payload });
      assert.equal(res.statusCode, 400, `${file.filename}: ${res.body}`);
      assert.match(res.json().error, /^Cannot translate file: The .*(damaged|not well-formed)/);
    }
  });

  it('403 for a URL whose signature was altered, and for an upload without a key', async () => {
    const res = await uploadFile([{ name: 'source', value: 'auto' }, { name: 'target', value: 'es' }, { name: 'api_key', value: pro.key }]);
    assert.equal(res.statusCode, 200, res.body);
    const url = new URL(res.json().translatedFileUrl);
    const forged = url.pathname.replace(/note\.txt$/, 'other.txt') + url.search;
    assert.equal((await ctx.app.inject({ method: 'GET', url: forged, headers: host() })).statusCode, 403);
    const keyless = await uploadFile([{ name: 'source', value: 'en' }, { name: 'target', value: 'es' }]);
    assert.equal(keyless.statusCode, 403, keyless.body);
    assert.match(keyless.json().error, /api_key/);
  });
});

describe('LibreTranslate surface, configured', () => {
  it('is off by default; the rate limit answers 429 {"error": "Slowdown: …"} with Retry-After', async () => {
    assert.equal(loadConfig({}).libreTranslate, false);
    const limited = await createTestApp({ engines: [], env: { TOLK_LIBRETRANSLATE: 'true', TOLK_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const account = await createAccount(limited);
      const detect = () =>
        limited.app.inject({ method: 'POST', url: '/detect', headers: { host: account.host, 'content-type': 'application/json' }, payload: { q: 'Hello there, my friend.', api_key: account.key } });
      const codes = [];
      let last;
      for (let i = 0; i < 3; i++) codes.push((last = await detect()).statusCode);
      assert.deepEqual(codes, [200, 200, 429]);
      assert.match(last!.json().error, /^Slowdown: /);
      assert.ok(Number(last!.headers['retry-after']) >= 1);
    } finally {
      await limited.close();
    }
  });
});

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
