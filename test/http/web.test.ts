// The web page's files at / and /web/*: served from memory with ETag revalidation, gzip and a strict CSP, on both
// plans' endpoints; /web/api/session tells the page the key's plan, admin right and scopes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { authHeaders, createAccount, createTestApp, type TestContext } from '../helpers/harness.js';

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp();
});
after(async () => ctx.close());

describe('web page files', () => {
  it('serves the page at / with its CSP, and revalidates with the ETag', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/' });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.match(res.body, /<script type="module" src="\/web\/app\.js">/);
    assert.match(res.headers['content-security-policy'] as string, /default-src 'self'/);
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.ok(res.headers['x-trace-id']);
    const again = await ctx.app.inject({ method: 'GET', url: '/', headers: { 'if-none-match': res.headers.etag as string } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  it('serves the script gzipped to clients that accept it, on the free endpoint too', async () => {
    const free = new URL(ctx.config.freeBaseUrl).host;
    const res = await ctx.app.inject({ method: 'GET', url: '/web/app.js', headers: { 'accept-encoding': 'gzip, br', host: free } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.match(res.headers['content-type'] as string, /^text\/javascript/);
    assert.match(gunzipSync(res.rawPayload).toString(), /\/web\/api\/session/);
    const plain = await ctx.app.inject({ method: 'GET', url: '/web/app.css' });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.match(plain.body, /prefers-color-scheme:\s*dark/);
  });

  it('answers 404 with a message for files it does not have', async () => {
    for (const url of ['/web/nothing.js', '/web/..%2Fpackage.json', '/web/index.html']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.match(res.json().message, /Not found/);
    }
  });
});

describe('GET /web/api/session', () => {
  it('needs a key', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/web/api/session' });
    assert.equal(res.statusCode, 403);
  });

  it("reports the admin key's rights and the document formats", async () => {
    const account = await createAccount(ctx, { plan: 'free' });
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/web/api/session',
      headers: { ...authHeaders(account), authorization: `Service-Auth-Key ${account.adminKey}` },
    });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual({ plan: body.plan, admin: body.admin, scopes: body.scopes }, { plan: 'free', admin: true, scopes: null });
    const docx = body.document_formats.find((f: { extensions: string[] }) => f.extensions.includes('docx'));
    assert.equal(docx.max_bytes, 100 * 1024 * 1024);
  });

  it("reports a scoped developer key's scopes and no admin right", async () => {
    const account = await createAccount(ctx);
    const admin = { ...authHeaders(account), authorization: `Service-Auth-Key ${account.adminKey}` };
    const scoped = await ctx.app.inject({
      method: 'PUT',
      url: '/v2/admin/developer-keys/scopes',
      headers: admin,
      payload: { key_id: account.keyId, scopes: ['translate', 'languages'] },
    });
    assert.equal(scoped.statusCode, 200);
    const res = await ctx.app.inject({ method: 'GET', url: '/web/api/session', headers: authHeaders(account) });
    assert.deepEqual(
      { plan: res.json().plan, admin: res.json().admin, scopes: res.json().scopes },
      { plan: 'pro', admin: false, scopes: ['translate', 'languages'] },
    );
  });
});
