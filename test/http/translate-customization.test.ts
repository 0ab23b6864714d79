// /v2/translate with glossaries, a style rule list, a translation memory and custom instructions, on real Apertium:
// each changes the translation, and missing or mismatched resources get the reference's errors before any billing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { readFileSync } from 'node:fs';
import { authHeaders, createAccount, createTestApp, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';

let ctx: TestContext;
let acc: TestAccount;
before(async () => {
  ctx = await createTestApp({ engines: testEngines(['en-es']) });
  acc = await createAccount(ctx);
});
after(async () => ctx.close());

const api = (method: string, url: string, payload?: object) =>
  ctx.app.inject({ method: method as 'GET', url, headers: authHeaders(acc), ...(payload ? { payload } : {}) });
const translate = (body: object) => api('POST', '/v2/translate', { source_lang: 'EN', target_lang: 'ES', ...body });
const usage = async () => (await api('GET', '/v2/usage')).json().character_count as number;

describe('customization through /v2/translate', () => {
  it('a glossary term appears inside the real translation; glossary_ids combine glossaries', async () => {
    const text = 'I bought a new car and a boat.';
    const plain = (await translate({ text: [text] })).json().translations[0].text as string;
    assert.doesNotMatch(plain, /automóvil|barca/);
    const g1 = (await api('POST', '/v3/glossaries', { name: 'Cars', dictionaries: [{ source_lang: 'en', target_lang: 'es', entries: 'car\tautomóvil', entries_format: 'tsv' }] })).json();
    const g2 = (await api('POST', '/v3/glossaries', { name: 'Boats', dictionaries: [{ source_lang: 'en', target_lang: 'es', entries: 'boat\tbarca', entries_format: 'tsv' }] })).json();
    const one = await translate({ text: [text], glossary_id: g1.glossary_id });
    assert.equal(one.statusCode, 200, one.body);
    const withOne = one.json().translations[0].text as string;
    assert.match(withOne, /automóvil/);
    assert.doesNotMatch(withOne, /barca/);
    const both = (await translate({ text: [text], glossary_ids: [g1.glossary_id, g2.glossary_id] })).json().translations[0].text as string;
    assert.match(both, /automóvil/);
    assert.match(both, /barca/);
    // the rest of the sentence is still Apertium's Spanish
    assert.match(both, /compré|Compré/i);
  });

  it('glossary errors: unknown id 404, no dictionary for the pair 400, nothing billed', async () => {
    const before = await usage();
    const missing = await translate({ text: ['A car.'], glossary_id: '00000000-0000-4000-8000-000000000000' });
    assert.equal(missing.statusCode, 404, missing.body);
    const de = (await api('POST', '/v3/glossaries', { name: 'DE', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'car\tAuto', entries_format: 'tsv' }] })).json();
    const wrongPair = await translate({ text: ['A car.'], glossary_id: de.glossary_id });
    assert.equal(wrongPair.statusCode, 400, wrongPair.body);
    // the reference's wording, which integrations match (a WordPress plugin's regular expression, verbatim)
    assert.match(wrongPair.json().message, /No dictionary found for language pair [A-Za-z0-9-]+ in glossary [a-f0-9-]+/);
    assert.ok(wrongPair.json().message.includes(`en-es in glossary ${de.glossary_id}`), wrongPair.body);
    assert.equal(await usage(), before);
  });

  it('a style rule list rewrites the output (decimal comma); its language must match the target', async () => {
    const style = (await api('POST', '/v3/style_rules', { name: 'Numbers', language: 'es', configured_rules: { numbers: { decimal_separator: 'use_comma_as_decimal_separator' } } })).json();
    const plain = (await translate({ text: ['The price is 3.5 euros.'] })).json().translations[0].text as string;
    assert.match(plain, /3\.5/);
    const styled = await translate({ text: ['The price is 3.5 euros.'], style_id: style.style_id });
    assert.equal(styled.statusCode, 200, styled.body);
    assert.match(styled.json().translations[0].text, /3,5/);
    const german = (await api('POST', '/v3/style_rules', { name: 'DE', language: 'de' })).json();
    const mismatch = await translate({ text: ['Hello.'], style_id: german.style_id });
    assert.equal(mismatch.statusCode, 400);
    assert.match(mismatch.json().message, /Style rule language does not match/);
  });

  it('a translation memory answers exact and fuzzy hits; a missing memory is 404', async () => {
    const job = await ctx.services.memories.startImport(acc.accountId, { displayName: 'TM', contentType: 'application/xml' });
    await ctx.services.memories.receiveUpload(acc.accountId, job.jobId, Readable.from([readFileSync(new URL('../../../test/fixtures/customization/small.tmx', import.meta.url))]));
    await ctx.services.memories.idle();
    const memoryId = (await ctx.services.memories.list(acc.accountId, 0, 10)).memories[0]!.id;
    const res = await translate({ text: ['The printer is out of paper.', 'The printer is out of ink.', 'Restart the computer before installing the update.'], translation_memory_id: memoryId, translation_memory_threshold: 70 });
    assert.equal(res.statusCode, 200, res.body);
    const [exact, fuzzy, markup] = res.json().translations.map((t: { text: string }) => t.text);
    assert.equal(exact, 'La impresora no tiene papel.');
    assert.equal(fuzzy, 'La impresora no tiene papel.'); // 5 of 6 tokens: a fuzzy hit at threshold 70
    assert.equal(markup, 'Reinicie el ordenador antes de instalar la actualización.');
    const strict = (await translate({ text: ['The printer is out of ink.'], translation_memory_id: memoryId, translation_memory_threshold: 100 })).json();
    assert.notEqual(strict.translations[0].text, 'La impresora no tiene papel.');
    assert.equal((await translate({ text: ['Hello.'], translation_memory_id: '00000000-0000-4000-8000-000000000000' })).statusCode, 404);
  });

  it('form bodies carry style_id, custom_instructions and tag_handling_version too (deepl-node sends forms)', async () => {
    const form = (fields: [string, string][]) =>
      ctx.app.inject({
        method: 'POST',
        url: '/v2/translate',
        headers: { ...authHeaders(acc), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams([['source_lang', 'EN'], ['target_lang', 'ES'], ...fields]).toString(),
      });
    const style = (await api('POST', '/v3/style_rules', { name: 'Form', language: 'es', configured_rules: { numbers: { decimal_separator: 'use_comma_as_decimal_separator' } } })).json();
    const styled = await form([['text', 'The price is 3.5 euros.'], ['style_id', style.style_id]]);
    assert.equal(styled.statusCode, 200, styled.body);
    assert.match(styled.json().translations[0].text, /3,5/);
    assert.equal((await form([['text', 'Hello.'], ['style_id', 'not-a-uuid']])).statusCode, 400);
    const instructed = await form([['text', 'Hello.'], ['custom_instructions', 'Be formal.'], ['custom_instructions', 'Be brief.']]);
    assert.equal(instructed.statusCode, 400);
    assert.match(instructed.json().message, /custom_instructions/);
    const v1 = await form([['text', 'The <b>red</b> car.'], ['tag_handling', 'xml'], ['tag_handling_version', 'v1']]);
    assert.equal(v1.statusCode, 200, v1.body);
    assert.equal(v1.json().translations[0].tag_handling_version, 'v1');
    assert.equal((await form([['text', 'Hi.'], ['tag_handling', 'xml'], ['tag_handling_version', 'v9']])).statusCode, 400);
  });

  it('custom instructions need a language-model route: 400 on Apertium, never ignored', async () => {
    const res = await translate({ text: ['Hello.'], custom_instructions: ['Be formal.'] });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, /custom_instructions/);
  });
});
