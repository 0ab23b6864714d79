// A /v2/translate request whose client hangs up stops its engine work: the engine's signal is aborted, so a warm
// pipeline or a model is not kept busy for an answer nobody will read.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { EngineTranslateOptions, TranslationEngine } from '../../src/engines/engine.js';
import { createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';

/** An engine that answers only when told to, and reports whether the caller aborted meanwhile. */
class HeldEngine implements TranslationEngine {
  readonly name = 'held';
  readonly features = { context: false };
  private markCalled!: () => void;
  private markAborted!: () => void;
  readonly called = new Promise<void>((resolve) => (this.markCalled = resolve));
  readonly aborted = new Promise<void>((resolve) => (this.markAborted = resolve));
  async start() {}
  async close() {}
  pairs() {
    return [{ source: 'en', target: 'es', formality: false }];
  }
  translate(_pair: unknown, segments: string[], options: EngineTranslateOptions): Promise<string[]> {
    this.markCalled();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve(segments.map((s) => `[es] ${s}`)), 20_000);
      options.signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        this.markAborted();
        reject(new Error('aborted'));
      });
    });
  }
}

const engine = new HeldEngine();
let ctx: TestContext;
let account: TestAccount;
before(async () => {
  ctx = await createTestApp({ engines: [engine] });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  account = await createAccount(ctx);
});
after(async () => ctx.close());

it('the engine call is aborted when the client goes away', async () => {
  const port = (ctx.app.server.address() as AddressInfo).port;
  const body = JSON.stringify({ text: ['Hello.'], source_lang: 'EN', target_lang: 'ES' });
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST /v2/translate HTTP/1.1\r\nHost: ${account.host}\r\nAuthorization: Service-Auth-Key ${account.key}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  await engine.called;
  socket.destroy();
  await engine.aborted; // hangs (and the test times out) when the signal never fires
});
