// Socket timeouts: configurable from the environment, checked at start, and an idle keep-alive socket is let go.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config.js';
import { createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';

describe('timeout configuration', () => {
  it('has defaults and reads TOLK_*_TIMEOUT_MS', () => {
    assert.deepEqual(loadConfig({}).timeouts, { keepAliveMs: 5_000, headersMs: 20_000, requestMs: 300_000 });
    const c = loadConfig({ TOLK_KEEP_ALIVE_TIMEOUT_MS: '65000', TOLK_HEADERS_TIMEOUT_MS: '1000', TOLK_REQUEST_TIMEOUT_MS: '2000' });
    assert.deepEqual(c.timeouts, { keepAliveMs: 65_000, headersMs: 1_000, requestMs: 2_000 });
  });

  it('names the variable of a bad value', () => {
    assert.throws(() => loadConfig({ TOLK_KEEP_ALIVE_TIMEOUT_MS: 'soon' }), /TOLK_KEEP_ALIVE_TIMEOUT_MS/);
    assert.throws(() => loadConfig({ TOLK_REQUEST_TIMEOUT_MS: '0' }), /TOLK_REQUEST_TIMEOUT_MS/);
    assert.throws(() => loadConfig({ TOLK_HEADERS_TIMEOUT_MS: '5000', TOLK_REQUEST_TIMEOUT_MS: '1000' }), /TOLK_HEADERS_TIMEOUT_MS/);
  });
});

describe('a listening server', () => {
  let ctx: TestContext;
  let account: TestAccount;
  before(async () => {
    ctx = await createTestApp({ env: { TOLK_KEEP_ALIVE_TIMEOUT_MS: '300' }, engines: [] });
    account = await createAccount(ctx);
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => ctx.close());

  it('closes a keep-alive connection that stays idle after its answer', async () => {
    const { port } = ctx.app.server.address() as AddressInfo;
    assert.equal(ctx.app.server.keepAliveTimeout, 300);
    const events: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('data', (d) => events.push(d.toString('latin1').split('\r\n')[0]!));
      socket.on('close', () => resolve());
      socket.on('error', reject);
      // HTTP/1.1 without Connection: close — the server itself must end the idle socket.
      socket.write(`GET /v2/usage HTTP/1.1\r\nHost: ${account.host}\r\nAuthorization: Service-Auth-Key ${account.key}\r\n\r\n`);
    });
    assert.match(events[0] ?? '', /^HTTP\/1\.1 200/);
  });
});
