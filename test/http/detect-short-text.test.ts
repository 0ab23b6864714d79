// Short texts: /v3/detect/language and source-less /v2/translate agree, and neither claims a wrong language (issue 20);
// the installed dictionaries and analysers decide what the n-gram vote is unsure of (issue 44).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAccount, authHeaders, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';

let ctx: TestContext;
let account: TestAccount;

before(async () => {
  ctx = await createTestApp();
  account = await createAccount(ctx, { features: ['detection'] });
});
after(async () => ctx.close());

const post = (url: string, payload: object) =>
  ctx.app.inject({ method: 'POST', url, headers: authHeaders(account), payload });

describe('short texts', () => {
  it('/v3/detect/language answers the text\'s own language or insufficient_confidence, never another', async () => {
    const texts: Array<[string, string]> = [['proton beam', 'en'], ['Protonenstrahl', 'de'], ['haz de protones', 'es'], ['Test', 'de'], ['Děkuji', 'cs']];
    const res = await post('/v3/detect/language', { text: texts.map(([text]) => text) });
    assert.equal(res.statusCode, 200);
    const results = res.json().results as Array<{ detection_status: string; detected_language?: string }>;
    results.forEach((r, i) => {
      const [text, lang] = texts[i]!;
      assert.ok(r.detection_status === 'insufficient_confidence' || r.detected_language === lang, `${text}: ${JSON.stringify(r)}`);
    });
    // "Test" is a word of every dictionary here; no lexicon knows Czech
    assert.deepEqual(results.slice(3), [{ detection_status: 'insufficient_confidence' }, { detection_status: 'insufficient_confidence' }]);
  });

  it('greetings the vote is unsure of are detected from the lexicons: Obrigado, Merci beaucoup, Hola; Bon dia as Catalan', async () => {
    const res = await post('/v3/detect/language', { text: ['Obrigado', 'Merci beaucoup', 'Hola', 'Bon dia'] });
    assert.deepEqual(res.json().results, [
      { detected_language: 'pt', detection_status: 'success' },
      { detected_language: 'fr', detection_status: 'success' },
      { detected_language: 'es', detection_status: 'success' },
      // Catalan is detected, though outside the languages /v3/detect/language reports
      { detection_status: 'unsupported_language' },
    ]);
    const translated = await post('/v2/translate', { text: ['Hola', 'Bon dia'], target_lang: 'EN' });
    assert.equal(translated.statusCode, 200, translated.body);
    const [hola, bonDia] = translated.json().translations as Array<{ text: string; detected_source_language: string }>;
    assert.deepEqual(hola, { detected_source_language: 'ES', text: 'Hello' });
    assert.equal(bonDia!.detected_source_language, 'CA');
    assert.match(bonDia!.text, /good (morning|day)/i);
    // detected and named as what it is where no engine translates it (es-pt goes one way only here)
    const obrigado = await post('/v2/translate', { text: ['Obrigado'], target_lang: 'EN' });
    assert.equal(obrigado.json().message, "Detected source language 'PT' cannot be translated to 'EN' by the installed engines.");
  });

  it('a target no engine serves is refused as such, whatever the short text, even one detected in it (no 200 labelled with it)', async () => {
    // no German engine here; "Protonenstrahl" and the sentence are detected as German, the target itself
    const german = 'Die Kinder spielen im Garten, und der Hund schläft in der Sonne.';
    const detected = (await post('/v3/detect/language', { text: [german] })).json().results[0];
    assert.deepEqual(detected, { detected_language: 'de', detection_status: 'success' });
    for (const text of ['proton beam', 'Test', 'Děkuji', 'Hola', 'Protonenstrahl', german]) {
      const res = await post('/v2/translate', { text: [text], target_lang: 'DE' });
      assert.equal(res.statusCode, 400, `${text}: ${res.body}`);
      assert.equal(res.json().message, "Target language 'DE' is not supported by the installed engines.", text);
    }
    // the same with the source named as the target
    const named = await post('/v2/translate', { text: ['Protonenstrahl'], source_lang: 'DE', target_lang: 'DE' });
    assert.equal(named.statusCode, 400, named.body);
    assert.equal(named.json().message, "Target language 'DE' is not supported by the installed engines.");
  });

  it('/v2/translate falls back to the default source (EN) instead of refusing a wrong guess', async () => {
    const res = await post('/v2/translate', { text: ['proton beam'], target_lang: 'ES' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().translations[0].detected_source_language, 'EN');
  });

  it('/v2/translate takes the source /v3/detect/language reports when it reports success', async () => {
    const text = 'Los niños juegan en el jardín';
    const detected = (await post('/v3/detect/language', { text: [text] })).json().results[0];
    assert.deepEqual(detected, { detected_language: 'es', detection_status: 'success' });
    const res = await post('/v2/translate', { text: [text], target_lang: 'EN' });
    assert.equal(res.json().translations[0].detected_source_language, 'ES');
  });

  it('a Spanish snippet the vote is unsure of is Spanish by its dictionaries, on both routes', async () => {
    // the default source (EN) is the target, so before the lexicons voted the likeliest candidate (ES) was taken
    const text = 'de protones';
    const detected = (await post('/v3/detect/language', { text: [text] })).json().results[0];
    assert.deepEqual(detected, { detected_language: 'es', detection_status: 'success' });
    const res = await post('/v2/translate', { text: [text], target_lang: 'EN' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().translations[0].detected_source_language, 'ES');
  });
});
