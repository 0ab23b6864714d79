// Quota (456), usage counting in code points per target, and /v2/usage for both plans.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAccount, authHeaders, createTestApp, type TestContext } from '../helpers/harness.js';

let ctx: TestContext;

before(async () => {
  ctx = await createTestApp();
});
after(async () => ctx.close());

async function translate(account: Parameters<typeof authHeaders>[0], text: string[]) {
  return ctx.app.inject({
    method: 'POST',
    url: '/v2/translate',
    headers: authHeaders(account),
    payload: { text, target_lang: 'ES', source_lang: 'EN' },
  });
}

describe('usage', () => {
  it('counts code points and reports them in /v2/usage (pro fields)', async () => {
    const account = await createAccount(ctx, { plan: 'pro' });
    const before = await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) });
    assert.equal(before.statusCode, 200);
    assert.equal(before.json().character_count, 0);
    assert.equal((await translate(account, ['Hello 😀', 'Good day.'])).statusCode, 200);
    const res = await ctx.app.inject({ method: 'POST', url: '/v2/usage', headers: authHeaders(account) });
    const usage = res.json();
    assert.equal(usage.character_count, 7 + 9);
    assert.equal(usage.api_key_character_count, 16);
    assert.ok(usage.character_limit >= 1e12);
    const translateProduct = usage.products.find((p: { product_type: string }) => p.product_type === 'translate');
    assert.equal(translateProduct.account_unit_count, 16);
    assert.equal(translateProduct.billing_unit, 'characters');
    assert.ok(Date.parse(usage.start_time) <= Date.now() && Date.parse(usage.end_time) > Date.now());
  });

  it('free accounts see only character_count and character_limit', async () => {
    const account = await createAccount(ctx, { plan: 'free' });
    const usage = (await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) })).json();
    assert.deepEqual(Object.keys(usage).sort(), ['character_count', 'character_limit']);
    assert.equal(usage.character_limit, 500000);
  });

  it('failed requests are not billed', async () => {
    const account = await createAccount(ctx);
    await ctx.app.inject({ method: 'POST', url: '/v2/translate', headers: authHeaders(account), payload: { text: ['Hi'], target_lang: 'XX' } });
    const usage = (await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) })).json();
    assert.equal(usage.character_count, 0);
  });
});

describe('quota', () => {
  it('456 with the reference message once the account quota would be exceeded; nothing billed', async () => {
    const account = await createAccount(ctx, { characterLimit: 10 });
    assert.equal((await translate(account, ['Hello.'])).statusCode, 200); // 6
    const over = await translate(account, ['Hello.']); // 6 more > 10
    assert.equal(over.statusCode, 456);
    assert.equal(over.json().message, 'Quota for this billing period has been exceeded.');
    const usage = (await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) })).json();
    assert.equal(usage.character_count, 6);
    assert.equal((await translate(account, ['Dog.'])).statusCode, 200); // 4 fits exactly
    assert.equal((await translate(account, ['a'])).statusCode, 456);
  });

  it('a key limit of 0 blocks that key only', async () => {
    const account = await createAccount(ctx);
    await ctx.services.store.repositories.accounts.updateKey(account.keyId, { character_limit: 0 });
    ctx.services.accounts.forgetKey(account.keyId);
    assert.equal((await translate(account, ['Hi.'])).statusCode, 456);
    const other = await ctx.services.accounts.createKey(account.accountId);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: { authorization: `Service-Auth-Key ${other.secret}`, host: account.host },
      payload: { text: ['Hi.'], target_lang: 'ES', source_lang: 'EN' },
    });
    assert.equal(res.statusCode, 200);
  });

  it('concurrent requests never exceed the quota', async () => {
    const account = await createAccount(ctx, { characterLimit: 30 });
    const results = await Promise.all(Array.from({ length: 10 }, () => translate(account, ['Hello.'])));
    const ok = results.filter((r) => r.statusCode === 200).length;
    assert.equal(ok, 5);
    assert.ok(results.every((r) => r.statusCode === 200 || r.statusCode === 456));
    const usage = (await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) })).json();
    assert.equal(usage.character_count, 30);
  });
});
