// Authentication, plan endpoints, trace ids, limits and error bodies across routes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type AddressInfo } from 'node:net';
import { createAccount, authHeaders, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';

let ctx: TestContext;
let pro: TestAccount;
let free: TestAccount;

before(async () => {
  ctx = await createTestApp({ env: { TOLK_RATE_LIMIT_PER_MINUTE: '1000' } });
  pro = await createAccount(ctx, { plan: 'pro' });
  free = await createAccount(ctx, { plan: 'free' });
});
after(async () => ctx.close());

const body = { text: ['Hello.'], target_lang: 'ES', source_lang: 'EN' };

describe('authentication', () => {
  it('403 without an Authorization header', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/v2/translate', headers: { host: pro.host }, payload: body });
    assert.equal(res.statusCode, 403);
    assert.match(res.json().message, /Authorization/);
    assert.ok(res.headers['x-trace-id']);
  });

  it('403 for an unknown key and for a malformed header', async () => {
    for (const authorization of ['Service-Auth-Key not-a-key', 'Bearer abc', 'Service-Auth-Key']) {
      const res = await ctx.app.inject({ method: 'POST', url: '/v2/translate', headers: { host: pro.host, authorization }, payload: body });
      assert.equal(res.statusCode, 403, authorization);
    }
  });

  it('403 with a message pointing to the header for legacy auth_key in query or body', async () => {
    const q = await ctx.app.inject({ method: 'POST', url: `/v2/translate?auth_key=${pro.key}`, headers: { host: pro.host }, payload: body });
    assert.equal(q.statusCode, 403);
    assert.match(q.json().message, /auth_key.*header/);
    const f = await ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: { host: pro.host, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `auth_key=${encodeURIComponent(pro.key)}&text=Hi&target_lang=ES`,
    });
    assert.equal(f.statusCode, 403);
    assert.match(f.json().message, /Authorization: Service-Auth-Key/);
  });

  it('free keys end in :fx and paid keys do not', () => {
    assert.match(free.key, /:fx$/);
    assert.doesNotMatch(pro.key, /:fx$/);
  });

  it('403 naming the right base URL when a key uses the other plan’s endpoint', async () => {
    const freeOnPaid = await ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: { authorization: `Service-Auth-Key ${free.key}`, host: pro.host },
      payload: body,
    });
    assert.equal(freeOnPaid.statusCode, 403);
    assert.ok(freeOnPaid.json().message.includes(ctx.config.freeBaseUrl));
    const paidOnFree = await ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: { authorization: `Service-Auth-Key ${pro.key}`, host: free.host },
      payload: body,
    });
    assert.equal(paidOnFree.statusCode, 403);
    assert.ok(paidOnFree.json().message.includes(ctx.config.baseUrl));
    const freeOnFree = await ctx.app.inject({ method: 'POST', url: '/v2/translate', headers: authHeaders(free), payload: body });
    assert.equal(freeOnFree.statusCode, 200);
  });

  it('a deactivated key can no longer authenticate', async () => {
    const extra = await ctx.services.accounts.createKey(pro.accountId, { label: 'temp' });
    const headers = { authorization: `Service-Auth-Key ${extra.secret}`, host: pro.host };
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers })).statusCode, 200);
    await ctx.services.store.repositories.accounts.updateKey(extra.key.id, { deactivated_at: Date.now() });
    ctx.services.accounts.forgetKey(extra.key.id);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers })).statusCode, 403);
  });

  it('stores only a hash of the key', async () => {
    const row = await ctx.services.store.repositories.accounts.getKey(pro.keyId);
    assert.ok(row);
    assert.notEqual(row.key_hash, pro.key);
    assert.match(row.key_hash, /^[0-9a-f]{64}$/);
    assert.ok(!JSON.stringify(row).includes(pro.key));
  });
});

describe('errors and tracing', () => {
  it('404 for unknown routes carries X-Trace-ID and a JSON message', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v9/nothing' });
    assert.equal(res.statusCode, 404);
    assert.ok(res.headers['x-trace-id']);
    assert.ok(res.json().message);
  });

  it('each response gets its own trace id', async () => {
    const a = await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(pro) });
    const b = await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(pro) });
    assert.notEqual(a.headers['x-trace-id'], b.headers['x-trace-id']);
  });

  it('414 for an overlong URI', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `/v2/usage?x=${'a'.repeat(9000)}`, headers: authHeaders(pro) });
    assert.equal(res.statusCode, 414);
    assert.ok(res.headers['x-trace-id']);
  });

  it('400 for an invalid reporting tag, 200 for a valid one (either header name)', async () => {
    const bad = await ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: { ...authHeaders(pro), 'x-service-reporting-tag': 'has space' },
      payload: body,
    });
    assert.equal(bad.statusCode, 400);
    const long = await ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: { ...authHeaders(pro), 'x-deepl-reporting-tag': 'a'.repeat(101) },
      payload: body,
    });
    assert.equal(long.statusCode, 400);
    const ok = await ctx.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: { ...authHeaders(pro), 'x-deepl-reporting-tag': '  Team-A ' },
      payload: body,
    });
    assert.equal(ok.statusCode, 200);
    const events = await ctx.services.store.db.selectFrom('usage_events').selectAll().where('key_id', '=', pro.keyId).execute();
    assert.ok(events.some((e) => e.reporting_tag === 'team-a'));
  });

  it('never answers 500 for junk bodies', async () => {
    const payloads: [string, string][] = [
      ['application/json', 'null'],
      ['application/json', '[]'],
      ['application/json', '"text"'],
      ['application/json', '{"text": {"a": 1}, "target_lang": "ES"}'],
      ['application/json', '{"text": ["a"], "target_lang": ["ES"]}'],
      ['application/json', '{"text": ["a"], "target_lang": "ES", "formality": {}}'],
      ['application/json', '{"text": ["a"], "target_lang": "ES", "glossary_ids": [1,2]}'],
      ['application/json', '{"text": ["a"], "target_lang": "ES", "custom_instructions": "x"}'],
      ['application/json', '{"__proto__": {"x": 1}, "text": ["a"], "target_lang": "ES"}'],
      ['application/json', '\u0000\u0001'],
      ['application/x-www-form-urlencoded', '%%%'],
      ['application/x-www-form-urlencoded', 'text=%E0%A4%A&target_lang=ES'],
      ['application/x-www-form-urlencoded', 'target_lang=ES&text'],
      ['application/x-www-form-urlencoded', '&&&=&='],
      ['multipart/form-data; boundary=x', '--x--'],
    ];
    for (const [type, payload] of payloads) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/v2/translate',
        headers: { ...authHeaders(pro), 'content-type': type },
        payload,
      });
      assert.ok(res.statusCode >= 200 && res.statusCode < 500, `${type} ${payload} → ${res.statusCode} ${res.body}`);
      assert.ok(res.headers['x-trace-id']);
    }
  });
});

describe('rate limit', () => {
  it('429 with Retry-After once a key exceeds its per-minute budget', async () => {
    const limited = await createTestApp({ env: { TOLK_RATE_LIMIT_PER_MINUTE: '3' }, engines: [] });
    try {
      const account = await createAccount(limited);
      const codes: number[] = [];
      let last;
      for (let i = 0; i < 5; i++) {
        last = await limited.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) });
        codes.push(last.statusCode);
      }
      assert.deepEqual(codes, [200, 200, 200, 429, 429]);
      assert.ok(Number(last!.headers['retry-after']) >= 1);
      assert.ok(last!.json().message);
      // Another key is unaffected.
      const other = await createAccount(limited);
      assert.equal((await limited.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(other) })).statusCode, 200);
    } finally {
      await limited.close();
    }
  });
});

describe('requests the HTTP parser rejects (over a real socket)', () => {
  /** Sends raw bytes and returns the status line, headers and body of the answer. */
  async function raw(payload: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const address = ctx.app.server.address() as AddressInfo;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(address.port, '127.0.0.1');
      let data = '';
      socket.on('data', (d) => (data += d.toString('latin1')));
      socket.on('close', () => resolve(data));
      socket.on('error', (err) => (data ? resolve(data) : reject(err)));
      socket.write(payload);
    });
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    const [statusLine = '', ...lines] = head.split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }

  before(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  });

  for (const size of [20_000, 40_000]) {
    it(`414 with a trace id for a ${size}-byte URI (beyond Fastify's own check)`, async () => {
      // Connection: close, as this answer comes from a hook and would otherwise leave the socket open for keep-alive.
      const res = await raw(`GET /v2/usage?x=${'a'.repeat(size)} HTTP/1.1\r\nHost: ${pro.host}\r\nConnection: close\r\n\r\n`);
      assert.equal(res.status, 414);
      assert.match(res.headers['x-trace-id'] ?? '', /^[0-9a-f]{32}$/);
      assert.deepEqual(JSON.parse(res.body), { message: 'URI too long.', code: 'uri_too_long' });
    });
  }

  it('431 with a trace id for headers beyond 32 KiB', async () => {
    const res = await raw(`GET /v2/usage HTTP/1.1\r\nHost: ${pro.host}\r\nX-Big: ${'b'.repeat(40_000)}\r\n\r\n`);
    assert.equal(res.status, 431);
    assert.ok(res.headers['x-trace-id']);
    assert.equal(JSON.parse(res.body).code, 'header_too_large');
  });

  it('400 with a trace id for a request line that is not HTTP', async () => {
    const res = await raw('HELLO THERE\r\n\r\n');
    assert.equal(res.status, 400);
    assert.ok(res.headers['x-trace-id']);
    assert.match(JSON.parse(res.body).message, /could not be parsed/);
  });
});
