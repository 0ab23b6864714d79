// Bad input on the voice WebSocket: every violation ends the session with one `error` message and a clean close,
// and the server keeps serving.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { authHeaders, createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import WebSocket from 'ws';
import { connectVoice, encode, type VoiceClient } from '../voice/voice-helpers.js';

const PCM = 'audio/pcm;encoding=s16le;rate=16000';

describe('voice stream errors', () => {
  let ctx: TestContext;
  let account: TestAccount;
  let base: string;

  before(async () => {
    ctx = await createTestApp();
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    base = `ws://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    account = await createAccount(ctx);
  });
  after(async () => ctx.close());

  async function open(body: Record<string, unknown>, format: 'json' | 'msgpack' = 'json'): Promise<VoiceClient> {
    const res = await ctx.app.inject({ method: 'POST', url: '/v3/voice/realtime', headers: authHeaders(account), payload: body });
    assert.equal(res.statusCode, 200, res.body);
    return connectVoice(`${base}/v3/voice/realtime/connect?token=${encodeURIComponent(res.json().token)}`, format);
  }

  async function expectError(client: VoiceClient, reason: number, errorCode: number): Promise<void> {
    const { code } = await client.closed;
    const last = client.messages.at(-1);
    assert.ok(last?.error, JSON.stringify(client.messages));
    assert.equal(last.error.reason_code, reason, JSON.stringify(last));
    assert.equal(last.error.error_code, errorCode);
    assert.equal(typeof last.error.request_type, 'string');
    assert.equal(typeof last.error.error_message, 'string');
    assert.equal(code, 1000);
  }

  it('garbage in a container format → Audio format not supported', async () => {
    const c = await open({ source_media_content_type: 'audio/ogg;codecs=opus' });
    c.send({ source_media_chunk: { data: randomBytes(8000).toString('base64') } });
    c.send({ end_of_source_media: {} });
    await expectError(c, 4000403, 400);
  });

  it('garbage PCM is still PCM: the stream ends normally', async () => {
    const c = await open({ source_media_content_type: PCM, target_languages: ['es'] });
    await c.stream(randomBytes(3200 * 5), 3200, 100);
    await c.closed;
    assert.ok(c.messages.at(-1)?.end_of_stream, JSON.stringify(c.messages.at(-1)));
  });

  it('oversized chunks', async () => {
    const c = await open({ source_media_content_type: PCM });
    c.send({ source_media_chunk: { data: Buffer.alloc(40_000).toString('base64') } }); // 1.25 s
    await expectError(c, 4000413, 400);
    const big = await open({ source_media_content_type: 'audio/ogg' });
    big.send({ source_media_chunk: { data: Buffer.alloc(120_000).toString('base64') } });
    await expectError(big, 4000413, 400);
  });

  it('a chunk far above 100 kB gets the protocol error; a frame above what the socket reads ends the session', async () => {
    const c = await open({ source_media_content_type: 'audio/ogg' });
    c.send({ source_media_chunk: { data: Buffer.alloc(300_000).toString('base64') } });
    await expectError(c, 4000413, 400);
    const res = await ctx.app.inject({ method: 'POST', url: '/v3/voice/realtime', headers: authHeaders(account), payload: { source_media_content_type: 'audio/ogg' } });
    const token = res.json().token as string;
    const huge = await connectVoice(`${base}/v3/voice/realtime/connect?token=${encodeURIComponent(token)}`);
    huge.sendRaw(Buffer.alloc(2 * 1024 * 1024).toString('latin1'));
    assert.equal((await huge.closed).code, 1009);
    const again = await ctx.app.inject({ method: 'GET', url: `/v3/voice/realtime?token=${encodeURIComponent(token)}`, headers: authHeaders(account) });
    assert.equal(again.statusCode, 400, 'the session is over: its token cannot resume it');
  });

  it('container audio decoding to more than 2x real time', async () => {
    // 20 s of Ogg/Opus in one chunk: small in bytes, far too much audio at once.
    const ogg = encode(Buffer.alloc(32_000 * 20), ['-c:a', 'libopus', '-b:a', '16k', '-f', 'ogg']);
    assert.ok(ogg.length < 100_000);
    const c = await open({ source_media_content_type: 'audio/ogg;codecs=opus' });
    c.send({ source_media_chunk: { data: ogg.toString('base64') } });
    await expectError(c, 4290001, 429);
  });

  it('a reused token on a MessagePack session is refused in a BINARY MessagePack frame', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/v3/voice/realtime', headers: authHeaders(account), payload: { source_media_content_type: PCM, message_format: 'msgpack' } });
    const url = `${base}/v3/voice/realtime/connect?token=${encodeURIComponent(res.json().token)}`;
    const first = await connectVoice(url, 'msgpack');
    const second = new WebSocket(url);
    const [, isBinary] = await new Promise<[Buffer, boolean]>((resolve) => second.once('message', (data: Buffer, binary: boolean) => resolve([data, binary])));
    assert.equal(isBinary, true);
    await first.closed;
    assert.equal(first.messages.at(-1)?.error?.reason_code, 4010001);
    second.terminate();
  });

  it('PCM chunks that split a frame', async () => {
    const c = await open({ source_media_content_type: PCM });
    c.send({ source_media_chunk: { data: Buffer.alloc(3201).toString('base64') } });
    await expectError(c, 4000404, 400);
  });

  it('chunks faster than 2x real time', async () => {
    const c = await open({ source_media_content_type: PCM });
    for (let i = 0; i < 20; i++) c.send({ source_media_chunk: { data: Buffer.alloc(3200).toString('base64') } });
    await expectError(c, 4290001, 429);
  });

  it('unknown message kinds, bad JSON, bad base64, wrong frame type, audio after the end', async () => {
    const unknown = await open({ source_media_content_type: PCM });
    unknown.send({ start_of_everything: {} });
    await expectError(unknown, 4000402, 400);
    const badJson = await open({ source_media_content_type: PCM });
    badJson.sendRaw('{"source_media_chunk": ');
    await expectError(badJson, 4000400, 400);
    const badData = await open({ source_media_content_type: PCM });
    badData.send({ source_media_chunk: { data: 42 } });
    await expectError(badData, 4000400, 400);
    assert.equal(badData.messages.at(-1)?.error?.request_type, 'source_media_chunk');
    const binary = await open({ source_media_content_type: PCM });
    binary.sendRaw(Buffer.from([1, 2, 3]));
    await expectError(binary, 4000401, 400);
    const text = await open({ source_media_content_type: PCM, message_format: 'msgpack' }, 'msgpack');
    text.ws.send('{"end_of_source_media":{}}');
    await expectError(text, 4000401, 400);
    const late = await open({ source_media_content_type: PCM });
    late.send({ end_of_source_media: {} });
    late.send({ source_media_chunk: { data: Buffer.alloc(320).toString('base64') } });
    await late.closed;
    assert.ok(late.messages.at(-1)?.error || late.messages.at(-1)?.end_of_stream);
  });

  it('still serves new sessions after all that', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/v3/voice/realtime', headers: authHeaders(account), payload: { source_media_content_type: PCM } });
    assert.equal(res.statusCode, 200);
  });
});

describe('voice stream quota', () => {
  it('ends the session with a 456 error when the key runs out of speech-to-text time, and bills what was heard', async () => {
    const ctx = await createTestApp();
    try {
      await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `ws://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
      const account = await createAccount(ctx);
      await ctx.services.store.repositories.accounts.updateKey(account.keyId, { speech_to_text_ms_limit: 1500 });
      const res = await ctx.app.inject({ method: 'POST', url: '/v3/voice/realtime', headers: { ...authHeaders(account), 'x-service-reporting-tag': 'voice-test' }, payload: { source_media_content_type: PCM } });
      assert.equal(res.statusCode, 200, res.body);
      const c = await connectVoice(`${base}/v3/voice/realtime/connect?token=${encodeURIComponent(res.json().token)}`);
      await c.stream(Buffer.alloc(32000 * 3), 6400, 100, false);
      await c.closed;
      assert.equal(c.messages.at(-1)?.error?.error_code, 456, JSON.stringify(c.messages.at(-1)));
      const usage = await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) });
      const speech = (usage.json().products as { product_type: string; api_key_unit_count: number }[]).find((p) => p.product_type === 'speechToText');
      assert.equal(speech?.api_key_unit_count, 1, usage.body); // 1000 ms billed, reported in (rounded-up) minutes
      const refused = await ctx.app.inject({ method: 'POST', url: '/v3/voice/realtime', headers: authHeaders(account), payload: { source_media_content_type: PCM } });
      assert.equal(refused.statusCode, 200, 'room left: 500 ms');
    } finally {
      await ctx.close();
    }
  });
});
