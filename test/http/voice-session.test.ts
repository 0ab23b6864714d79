// POST/GET /v3/voice/realtime: validation of every field, engine capability checks, quota (456), reconnect and
// one-time tokens over a real WebSocket.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { authHeaders, createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import { connectVoice } from '../voice/voice-helpers.js';

const PCM = 'audio/pcm;encoding=s16le;rate=16000';

describe('voice sessions', () => {
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

  const post = (payload: unknown, who = account, headers: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'POST', url: '/v3/voice/realtime', headers: { ...authHeaders(who), ...headers }, payload: payload as object });

  it('issues a streaming URL, a token and a session id', async () => {
    const res = await post({ source_media_content_type: 'audio/pcm; encoding=s16le; rate=16000', source_language: 'en', target_languages: ['es', 'ES'] });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.streaming_url, 'ws://127.0.0.1:8080/v3/voice/realtime/connect');
    assert.ok(body.token.length >= 32);
    assert.ok(res.headers['x-trace-id']);
  });

  it('accepts every source format of the reference', async () => {
    for (const type of ['audio/auto', 'audio/flac', 'audio/mpeg', 'audio/ogg', 'audio/webm', 'audio/x-matroska', 'audio/ogg;codecs=flac',
      'audio/ogg;codecs=opus', 'audio/pcm;encoding=alaw;rate=8000', 'audio/pcm;encoding=ulaw;rate=8000', 'audio/pcm;encoding=s16le;rate=44100',
      'audio/webm;codecs=opus', 'audio/x-matroska;codecs=aac']) {
      const res = await post({ source_media_content_type: type });
      assert.equal(res.statusCode, 200, `${type}: ${res.body}`);
    }
  });

  it('rejects invalid fields with clear 400s', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /source_media_content_type/],
      [{ source_media_content_type: 'audio/wav' }, /source_media_content_type/],
      [{ source_media_content_type: 'audio/pcm' }, /source_media_content_type/],
      [{ source_media_content_type: 'audio/pcm;encoding=s16le;rate=22050' }, /source_media_content_type/],
      [{ source_media_content_type: PCM, message_format: 'xml' }, /message_format/],
      [{ source_media_content_type: PCM, source_language_mode: 'strict' }, /source_language_mode/],
      [{ source_media_content_type: PCM, source_language: 'xx' }, /source_language/],
      [{ source_media_content_type: PCM, source_language: 'de' }, /cannot be transcribed.*available: en/],
      [{ source_media_content_type: PCM, source_language_mode: 'fixed' }, /source_language/],
      [{ source_media_content_type: PCM, target_languages: 'es' }, /target_languages/],
      [{ source_media_content_type: PCM, target_languages: ['es', 'fr', 'it', 'pt', 'ca', 'ro'] }, /at most 5/],
      [{ source_media_content_type: PCM, target_languages: ['ja'] }, /not supported for source language/],
      [{ source_media_content_type: PCM, target_media_languages: ['es', 'fr'] }, /at most 1/],
      [{ source_media_content_type: PCM, target_media_languages: ['es'], target_media_content_type: 'audio/mp3' }, /target_media_content_type/],
      [{ source_media_content_type: PCM, target_media_languages: ['es'], target_media_voice: 'robot' }, /target_media_voice/],
      [{ source_media_content_type: PCM, formality: 'polite' }, /formality/],
      [{ source_media_content_type: PCM, glossary_id: 'def3a26b' }, /glossary_id/],
      [{ source_media_content_type: PCM, spoken_terms_id: 'terms' }, /spoken_terms_id/],
      [{ source_media_content_type: PCM, bogus: 1 }, /bogus/],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)} → ${res.statusCode} ${res.body}`);
      assert.match(res.json().message, message, JSON.stringify(body));
    }
  });

  it('needs a key (voice is never scoped)', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/v3/voice/realtime', payload: { source_media_content_type: PCM } });
    assert.equal(res.statusCode, 403);
  });

  it('answers 456 when the key has no speech-to-text time left', async () => {
    const limited = await createAccount(ctx);
    await ctx.services.store.repositories.accounts.updateKey(limited.keyId, { speech_to_text_ms_limit: 0 });
    const res = await post({ source_media_content_type: PCM }, limited);
    assert.equal(res.statusCode, 456, res.body);
  });

  it('refuses a reused token and lets the latest token reconnect', async () => {
    const res = await post({ source_media_content_type: PCM });
    const { token } = res.json();
    const first = await connectVoice(`${base}/v3/voice/realtime/connect?token=${token}`);
    // Reconnect with the latest token: a new token, the live connection is dropped.
    const again = await ctx.app.inject({ method: 'GET', url: `/v3/voice/realtime?token=${encodeURIComponent(token)}`, headers: authHeaders(account) });
    assert.equal(again.statusCode, 200, again.body);
    const next = again.json().token;
    assert.notEqual(next, token);
    // the replaced connection is told why it closes (no error: the session goes on)
    const { code, reason } = await first.closed;
    assert.equal(code, 1000);
    assert.match(reason, /reconnected/i);
    assert.ok(!first.messages.some((m) => m.error));
    const second = await connectVoice(`${base}/v3/voice/realtime/connect?token=${next}`);
    // The old token again: the session is terminated.
    const replay = await connectVoice(`${base}/v3/voice/realtime/connect?token=${token}`);
    await replay.closed;
    assert.equal(replay.messages[0]?.error?.error_code, 401);
    await second.closed;
    assert.ok(second.messages.some((m) => m.error), JSON.stringify(second.messages));
    const unknown = await connectVoice(`${base}/v3/voice/realtime/connect?token=nope`);
    const closed = await unknown.closed;
    assert.equal(closed.code, 1008);
    assert.equal(unknown.messages[0]?.error?.reason_code, 4010002);
  });

  it('rejects reconnect with an unknown token', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v3/voice/realtime?token=unknown', headers: authHeaders(account) });
    assert.equal(res.statusCode, 400);
  });
});

describe('voice sessions behind a reverse proxy', () => {
  it('hands out a wss:// streaming URL on the public host when the proxy is trusted, and ignores the headers otherwise', async () => {
    for (const [trust, expected] of [
      ['true', 'wss://tolk.example.com/v3/voice/realtime/connect'],
      ['false', 'ws://127.0.0.1:8080/v3/voice/realtime/connect'],
    ] as const) {
      const ctx = await createTestApp({ engines: [], env: { TOLK_TRUST_PROXY: trust } });
      try {
        const account = await createAccount(ctx);
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/v3/voice/realtime',
          headers: { ...authHeaders(account), 'x-forwarded-proto': 'https', 'x-forwarded-host': 'tolk.example.com' },
          payload: { source_media_content_type: PCM },
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().streaming_url, expected);
      } finally {
        await ctx.close();
      }
    }
  });
});
