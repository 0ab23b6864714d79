// /v2/languages and /v3/languages report what the installed engines really do.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAccount, authHeaders, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';

let ctx: TestContext;
let pro: TestAccount;

before(async () => {
  ctx = await createTestApp();
  pro = await createAccount(ctx);
});
after(async () => ctx.close());

describe('/v2/languages', () => {
  it('lists sources without supports_formality and targets with it', async () => {
    const sources = (await ctx.app.inject({ method: 'GET', url: '/v2/languages?type=source', headers: authHeaders(pro) })).json();
    const codes = sources.map((l: { language: string }) => l.language);
    assert.ok(codes.includes('EN') && codes.includes('ES'));
    assert.ok(!codes.includes('JA'), 'no engine translates from Japanese');
    assert.equal(sources.find((l: { language: string }) => l.language === 'EN').name, 'English');
    assert.ok(sources.every((l: object) => !('supports_formality' in l)));
    const targets = (await ctx.app.inject({ method: 'GET', url: '/v2/languages?type=target', headers: authHeaders(pro) })).json();
    const targetCodes = targets.map((l: { language: string }) => l.language);
    assert.ok(targetCodes.includes('ES'));
    assert.ok(targetCodes.includes('PT-BR'), 'es→pt-br mode');
    assert.ok(targetCodes.includes('PT-PT') || targetCodes.includes('PT'));
    assert.ok(targets.every((l: { supports_formality: unknown }) => typeof l.supports_formality === 'boolean'));
  });

  it('defaults to source and rejects other types', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v2/languages', headers: authHeaders(pro) });
    assert.equal(res.statusCode, 200);
    const bad = await ctx.app.inject({ method: 'GET', url: '/v2/languages?type=both', headers: authHeaders(pro) });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().message, "Value for 'type' not supported.");
    // the query schema validates; its failure is worded as the handler words it, naming the parameter
    const repeated = await ctx.app.inject({ method: 'GET', url: '/v2/languages?type=source&type=target', headers: authHeaders(pro) });
    assert.equal(repeated.statusCode, 400);
    assert.deepEqual(repeated.json(), { message: "Value for 'type' not supported.", code: 'invalid_request' });
    const form = await ctx.app.inject({
      method: 'POST',
      url: '/v2/languages',
      headers: { ...authHeaders(pro), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'type=target&type=target',
    });
    assert.equal(form.statusCode, 400);
    assert.equal(form.json().message, "Value for 'type' not supported.");
  });

  it('needs a key', async () => {
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v2/languages' })).statusCode, 403);
  });
});

describe('/v3/languages', () => {
  it('translate_text lists usable_as_source/target with features', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v3/languages?resource=translate_text', headers: authHeaders(pro) });
    assert.equal(res.statusCode, 200);
    const list = res.json();
    const en = list.find((l: { lang: string }) => l.lang === 'en');
    assert.ok(en.usable_as_source && en.usable_as_target);
    assert.equal(en.status, 'stable');
    assert.ok(en.features.auto_detection);
    const ptBr = list.find((l: { lang: string }) => l.lang === 'pt-BR');
    assert.ok(ptBr && ptBr.usable_as_target && !ptBr.usable_as_source);
    for (const l of list) assert.equal(typeof l.features, 'object');
  });

  it('requires a valid resource', async () => {
    const missing = await ctx.app.inject({ method: 'GET', url: '/v3/languages', headers: authHeaders(pro) });
    assert.equal(missing.statusCode, 400);
    const bad = await ctx.app.inject({ method: 'GET', url: '/v3/languages?resource=nope', headers: authHeaders(pro) });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().message, "Value for 'resource' not supported.");
  });

  type Entry = { lang: string; usable_as_source: boolean; usable_as_target: boolean; features: Record<string, { status: string }> };
  const list = async (query: string): Promise<Entry[]> => {
    const res = await ctx.app.inject({ method: 'GET', url: `/v3/languages?${query}`, headers: authHeaders(pro) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Entry[];
  };
  const byLang = (entries: Entry[], lang: string) => entries.find((l) => l.lang === lang);

  it('translate_text and translate_document name the customization features each language has', async () => {
    const text = await list('resource=translate_text');
    const en = byLang(text, 'en')!;
    for (const f of ['glossary', 'tag_handling', 'translation_memory']) assert.ok(en.features[f], `en lacks ${f}`);
    assert.ok(byLang(text, 'es')!.features.style_rules, 'es targets take style rules');
    // Catalan is translated but has no glossaries, style rules or memories in the reference's lists
    const ca = byLang(text, 'ca')!;
    assert.ok(ca.usable_as_source && ca.usable_as_target);
    assert.equal(ca.features.glossary, undefined);
    assert.equal(ca.features.style_rules, undefined);
    const docs = await list('resource=translate_document');
    assert.deepEqual(docs.map((l) => l.lang), text.map((l) => l.lang), 'documents use the same engines');
    assert.ok(byLang(docs, 'en')!.features.glossary);
    assert.ok(docs.every((l) => !l.features.tag_handling), 'documents take no tag_handling parameter');
  });

  it('glossary, style_rules and translation_memory list the languages those resources accept', async () => {
    const glossary = await list('resource=glossary');
    assert.ok(byLang(glossary, 'ja')?.usable_as_source && byLang(glossary, 'ja')?.usable_as_target, 'glossaries exist for languages no engine translates');
    assert.equal(byLang(glossary, 'ca'), undefined);
    const style = await list('resource=style_rules');
    assert.deepEqual(style.map((l) => l.lang).sort(), ['de', 'en', 'es', 'fr', 'it', 'ja', 'ko', 'zh']);
    assert.ok(style.every((l) => l.usable_as_target && !l.usable_as_source));
    const tm = await list('resource=translation_memory');
    assert.ok(byLang(tm, 'en')?.usable_as_source);
    assert.equal(byLang(tm, 'ca')?.usable_as_source, false, 'Catalan memories cannot be imported');
  });

  it('voice lists the transcribed languages and the targets they translate to', async () => {
    const caps = ctx.services.voice.capabilities();
    const voice = await list('resource=voice');
    const sources = voice.filter((l) => l.usable_as_source).map((l) => l.lang);
    assert.deepEqual(sources, [...caps.transcribable].sort());
    for (const l of voice.filter((v) => v.usable_as_source)) assert.ok(l.features.transcription);
    if (caps.transcribable.has('en')) {
      const es = byLang(voice, 'es')!;
      assert.ok(es.usable_as_target && !es.usable_as_source);
      assert.equal(Boolean(es.features.translated_speech), caps.canSpeak('es'));
      assert.equal(byLang(voice, 'en')!.features.spoken_terms, undefined, 'beta features need include=beta');
      assert.equal(byLang(await list('resource=voice&include=beta'), 'en')!.features.spoken_terms?.status, 'beta');
    }
  });

  it('lists the resources', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v3/languages/resources', headers: authHeaders(pro) });
    assert.equal(res.statusCode, 200);
    assert.ok(res.json().some((r: { name: string }) => r.name === 'translate_text'));
  });
});
