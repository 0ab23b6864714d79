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

  it('resources not provided by any engine yet list no languages', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v3/languages?resource=voice&include=beta&include=external', headers: authHeaders(pro) });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), []);
  });

  it('lists the resources', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v3/languages/resources', headers: authHeaders(pro) });
    assert.equal(res.statusCode, 200);
    assert.ok(res.json().some((r: { name: string }) => r.name === 'translate_text'));
  });
});
