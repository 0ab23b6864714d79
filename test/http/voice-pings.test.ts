// WebSocket control frames on a voice connection: a burst of pings is answered with pongs and the session goes on
// (never a 1006 drop without an `error` message).
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { authHeaders, createAccount, createTestApp, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';
import { connectVoice } from '../voice/voice-helpers.js';

let ctx: TestContext;
let account: TestAccount;
let base: string;

before(async () => {
  ctx = await createTestApp({ engines: testEngines(['en-es']) });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  base = `ws://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  account = await createAccount(ctx);
});
after(async () => ctx.close());

it('100 pings in a burst get 100 pongs and the connection stays open', async () => {
  const res = await ctx.app.inject({ method: 'POST', url: '/v3/voice/realtime', headers: authHeaders(account), payload: { source_media_content_type: 'audio/pcm;encoding=s16le;rate=16000', target_languages: ['es'] } });
  assert.equal(res.statusCode, 200, res.body);
  const c = await connectVoice(`${base}/v3/voice/realtime/connect?token=${encodeURIComponent(res.json().token)}`);
  let pongs = 0;
  const allPongs = new Promise<void>((resolve) => c.ws.on('pong', () => ++pongs === 100 && resolve()));
  let closedCode: number | undefined;
  void c.closed.then(({ code }) => (closedCode = code));
  for (let i = 0; i < 100; i++) c.ws.ping(Buffer.from(String(i)));
  await Promise.race([allPongs, c.closed]);
  assert.equal(closedCode, undefined, `closed with ${closedCode}; messages ${JSON.stringify(c.messages)}`);
  assert.equal(pongs, 100);
  // still a working session: audio in, a clean end
  c.send({ source_media_chunk: { data: Buffer.alloc(3200).toString('base64') } });
  c.send({ end_of_source_media: {} });
  const { code } = await c.closed;
  assert.equal(code, 1000, JSON.stringify(c.messages));
  assert.ok(c.messages.at(-1)?.end_of_stream, JSON.stringify(c.messages.at(-1)));
});
