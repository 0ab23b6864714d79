// /v3/style_rules: CRUD, configured_rules validated against the catalogue, custom instructions, version bumps.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAccount, authHeaders, createTestApp, type TestContext, type TestAccount } from '../helpers/harness.js';

let ctx: TestContext;
let acc: TestAccount;
before(async () => {
  ctx = await createTestApp({ engines: [] });
  acc = await createAccount(ctx);
});
after(async () => ctx.close());

const req = (method: string, url: string, payload?: unknown) =>
  ctx.app.inject({ method: method as 'GET', url, headers: authHeaders(acc), ...(payload !== undefined ? { payload: payload as object } : {}) });

describe('style rules', () => {
  it('create, get, list, rename, replace rules, instructions, delete; version bumps', async () => {
    const res = await req('POST', '/v3/style_rules', { name: 'House', language: 'en', configured_rules: { punctuation: { apostrophe: 'use_curly_apostrophes' } }, custom_instructions: [{ label: 'Tone', prompt: 'Be brief.' }] });
    assert.equal(res.statusCode, 201, res.body);
    const s = res.json();
    assert.equal(s.version, 1);
    assert.equal(s.custom_instructions[0].label, 'Tone');
    assert.equal((await req('GET', `/v3/style_rules/${s.style_id}`)).json().name, 'House');
    const list = (await req('GET', '/v3/style_rules?page=0&page_size=25')).json();
    assert.equal(list.style_rules.length, 1);
    assert.equal(list.style_rules[0].configured_rules, undefined);
    assert.ok((await req('GET', '/v3/style_rules?detailed=true')).json().style_rules[0].configured_rules);
    assert.equal((await req('PATCH', `/v3/style_rules/${s.style_id}`, { name: 'New' })).json().version, 2);
    const replaced = (await req('PUT', `/v3/style_rules/${s.style_id}/configured_rules`, { numbers: { decimal_separator: 'use_comma_as_decimal_separator' } })).json();
    assert.equal(replaced.version, 3);
    assert.deepEqual(replaced.configured_rules, { numbers: { decimal_separator: 'use_comma_as_decimal_separator' } });
    const ci = await req('POST', `/v3/style_rules/${s.style_id}/custom_instructions`, { label: 'L', prompt: 'P', source_language: 'de' });
    assert.equal(ci.statusCode, 201);
    const id = ci.json().id;
    assert.equal((await req('GET', `/v3/style_rules/${s.style_id}/custom_instructions/${id}`)).json().prompt, 'P');
    assert.equal((await req('PUT', `/v3/style_rules/${s.style_id}/custom_instructions/${id}`, { label: 'L2', prompt: 'P2' })).json().label, 'L2');
    assert.equal((await req('DELETE', `/v3/style_rules/${s.style_id}/custom_instructions/${id}`)).statusCode, 204);
    assert.equal((await req('GET', `/v3/style_rules/${s.style_id}/custom_instructions/${id}`)).statusCode, 404);
    assert.equal((await req('GET', `/v3/style_rules/${s.style_id}`)).json().version, 6);
    assert.equal((await req('DELETE', `/v3/style_rules/${s.style_id}`)).statusCode, 204);
    assert.equal((await req('GET', `/v3/style_rules/${s.style_id}`)).statusCode, 404);
  });

  it('errors: unknown rule or option, bad language, long prompt, page_size', async () => {
    assert.equal((await req('POST', '/v3/style_rules', { name: 'x', language: 'en', configured_rules: { punctuation: { apostrophe: 'sometimes' } } })).json().message, "Value for 'configured_rules.punctuation.apostrophe' not supported.");
    assert.equal((await req('POST', '/v3/style_rules', { name: 'x', language: 'en', configured_rules: { nope: {} } })).statusCode, 400);
    assert.equal((await req('POST', '/v3/style_rules', { name: 'x', language: 'pt' })).json().message, "Value for 'language' not supported.");
    assert.equal((await req('POST', '/v3/style_rules', { name: 'x', language: 'en', custom_instructions: [{ label: 'a', prompt: 'p'.repeat(301) }] })).statusCode, 400);
    assert.equal((await req('GET', '/v3/style_rules?page_size=26')).statusCode, 400);
  });

  it('resolve(): language must match; LLM-only rules and custom instructions are refused, never ignored', async () => {
    const det = (await req('POST', '/v3/style_rules', { name: 'd', language: 'es', configured_rules: { numbers: { decimal_separator: 'use_comma_as_decimal_separator' } } })).json();
    assert.equal((await ctx.services.styleRules.resolve(acc.accountId, det.style_id, 'ES')).id, det.style_id);
    await assert.rejects(ctx.services.styleRules.resolve(acc.accountId, det.style_id, 'de'), /Style rule language does not match the translate request target language/);
    const llm = (await req('POST', '/v3/style_rules', { name: 'l', language: 'en', configured_rules: { style_and_tone: { formality: 'use_formal_tone' } } })).json();
    await assert.rejects(ctx.services.styleRules.resolve(acc.accountId, llm.style_id, 'en-US'), /language-model engine/);
  });

  it('scope: a key limited to another group gets 403, a key with style_rules gets through', async () => {
    const wrong = await ctx.services.accounts.createKey(acc.accountId, { scopes: ['translate'] });
    const right = await ctx.services.accounts.createKey(acc.accountId, { scopes: ['style_rules'] });
    const headers = { authorization: `Service-Auth-Key ${wrong.secret}`, host: acc.host };
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v3/style_rules', headers })).statusCode, 403);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v3/style_rules', headers: { ...headers, authorization: `Service-Auth-Key ${right.secret}` } })).statusCode, 200);
  });
});
