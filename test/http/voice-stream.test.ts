// End to end over a real WebSocket: synthesized English speech streamed at real-time pace is transcribed by
// PocketSphinx, translated to Spanish by Apertium and spoken back; container input is decoded through ffmpeg.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { authHeaders, createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import { concludedText, connectVoice, decodeAudio, encode, synthesize, wordErrorRate, type Msg } from '../voice/voice-helpers.js';

const SPEECH = 'The weather is nice today. I would like to visit the old city with my friends.';

describe('voice stream end to end', () => {
  let ctx: TestContext;
  let account: TestAccount;
  let base: string;
  let pcm: Buffer;

  before(async () => {
    ctx = await createTestApp();
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    base = `ws://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    account = await createAccount(ctx);
    pcm = synthesize(SPEECH);
  });
  after(async () => ctx.close());

  async function session(body: Record<string, unknown>): Promise<string> {
    const res = await ctx.app.inject({ method: 'POST', url: '/v3/voice/realtime', headers: authHeaders(account), payload: body });
    assert.equal(res.statusCode, 200, res.body);
    const json = res.json() as { streaming_url: string; token: string; session_id: string };
    assert.match(json.streaming_url, /^ws:\/\/.+\/v3\/voice\/realtime\/connect$/);
    assert.match(json.session_id, /^[0-9a-f-]{36}$/);
    return `${base}/v3/voice/realtime/connect?token=${encodeURIComponent(json.token)}`;
  }

  function assertProtocolOrder(messages: Msg[], targets: string[], media: string | null): void {
    const kinds = messages.map((m) => Object.keys(m)[0]);
    assert.equal(kinds.at(-1), 'end_of_stream', kinds.join(','));
    assert.ok(!kinds.includes('error'), JSON.stringify(messages.find((m) => m.error)));
    const eost = kinds.indexOf('end_of_source_transcript');
    assert.ok(eost > 0);
    assert.ok(kinds.slice(eost).every((k) => k !== 'source_transcript_update'));
    for (const t of targets) assert.ok(messages.some((m) => m.end_of_target_transcript?.language === t));
    if (media) assert.ok(messages.some((m) => m.end_of_target_media?.language === media));
    for (const m of messages) {
      const u = m.source_transcript_update;
      if (!u) continue;
      for (const s of [...u.concluded, ...u.tentative]) {
        assert.equal(s.language, 'en');
        assert.ok(Number.isInteger(s.start_time) && Number.isInteger(s.end_time) && s.end_time >= s.start_time);
      }
    }
  }

  it('transcribes PCM streamed in real time, translates to Spanish and speaks it back as PCM', async () => {
    const url = await session({
      source_media_content_type: 'audio/pcm;encoding=s16le;rate=16000',
      source_language: 'en',
      target_languages: ['es'],
      target_media_languages: ['es'],
      target_media_content_type: 'audio/pcm;encoding=s16le;rate=16000',
      target_media_voice: 'female',
    });
    const client = await connectVoice(url);
    // 100 ms chunks at real-time pace.
    await client.stream(pcm, 3200, 100);
    await client.closed;
    assertProtocolOrder(client.messages, ['es'], 'es');
    const transcript = concludedText(client.messages, 'source');
    const wer = wordErrorRate(SPEECH, transcript);
    console.log(`# WER ${(wer * 100).toFixed(1)}% on "${transcript}"`);
    assert.ok(wer <= 0.1, `WER ${wer} for "${transcript}"`);
    assert.ok(client.messages.some((m) => m.source_transcript_update?.tentative.length > 0), 'tentative updates');
    // Segment times lie within the audio (flite leaves ~100 ms of silence at either end).
    const audioMs = pcm.length / 32;
    for (const m of client.messages.filter((x) => x.source_transcript_update?.concluded.length)) {
      for (const seg of m.source_transcript_update.concluded) assert.ok(seg.start_time >= 0 && seg.end_time <= audioMs + 300, JSON.stringify(seg));
    }
    const spanish = concludedText(client.messages, 'es');
    assert.match(spanish, /tiempo|ciudad|amigos/i, spanish);
    const chunks = client.messages.filter((m) => m.target_media_chunk).map((m) => m.target_media_chunk);
    assert.ok(chunks.length > 0);
    assert.equal(chunks[0].content_type, 'audio/pcm;encoding=s16le;rate=16000');
    assert.ok(chunks[0].text.length > 0);
    const audio = Buffer.concat(chunks.flatMap((c: { data: string[] }) => c.data.map((d) => Buffer.from(d, 'base64'))));
    const totalMs = chunks.reduce((s: number, c: { duration: number }) => s + c.duration, 0);
    assert.ok(Math.abs(audio.length / 32 - totalMs) < 5 * chunks.length, `${audio.length / 32} ms of audio vs ${totalMs} ms reported`);
    assert.ok(totalMs > 1000);
  });

  it('decodes Ogg/Opus input and answers WebM/Opus over MessagePack', async () => {
    const ogg = encode(pcm, ['-c:a', 'libopus', '-b:a', '32k', '-f', 'ogg']);
    const url = await session({
      source_media_content_type: 'audio/ogg;codecs=opus',
      message_format: 'msgpack',
      target_languages: ['es'],
      target_media_languages: ['es'],
    });
    const client = await connectVoice(url, 'msgpack');
    // About 4 kB per chunk: well under 2x real time for 32 kbit/s.
    await client.stream(ogg, 4000, 500);
    await client.closed;
    assertProtocolOrder(client.messages, ['es'], 'es');
    const wer = wordErrorRate(SPEECH, concludedText(client.messages, 'source'));
    console.log(`# WER (Ogg/Opus) ${(wer * 100).toFixed(1)}%`);
    assert.ok(wer <= 0.2, `WER ${wer}`);
    const chunks = client.messages.filter((m) => m.target_media_chunk).map((m) => m.target_media_chunk);
    assert.equal(chunks[0].content_type, 'audio/webm;codecs=opus');
    assert.equal(chunks[0].headers, 1);
    const webm = Buffer.concat(chunks.flatMap((c: { data: Uint8Array[] }) => c.data.map((d) => Buffer.from(d))));
    const decoded = decodeAudio(webm);
    assert.ok(decoded.length / 32 > 1000, `decoded ${decoded.length / 32} ms`);
  });

  it('decodes WebM/Opus input and answers Ogg/Opus in a voice matched to the speaker', async () => {
    const webm = encode(pcm, ['-c:a', 'libopus', '-b:a', '32k', '-f', 'webm']);
    const url = await session({
      source_media_content_type: 'audio/webm;codecs=opus',
      target_languages: ['es'],
      target_media_languages: ['es'],
      target_media_content_type: 'audio/ogg;codecs=opus',
      target_media_voice: 'match',
    });
    const client = await connectVoice(url);
    await client.stream(webm, 4000, 500);
    await client.closed;
    assertProtocolOrder(client.messages, ['es'], 'es');
    const wer = wordErrorRate(SPEECH, concludedText(client.messages, 'source'));
    console.log(`# WER (WebM/Opus) ${(wer * 100).toFixed(1)}%`);
    assert.ok(wer <= 0.2, `WER ${wer}`);
    const chunks = client.messages.filter((m) => m.target_media_chunk).map((m) => m.target_media_chunk);
    assert.equal(chunks[0].content_type, 'audio/ogg;codecs=opus');
    assert.equal(chunks[0].headers, 2, 'OpusHead and OpusTags pages');
    const ogg = Buffer.concat(chunks.flatMap((c: { data: string[] }) => c.data.map((d) => Buffer.from(d, 'base64'))));
    const decodedMs = decodeAudio(ogg).length / 32;
    const reportedMs = chunks.reduce((s: number, c: { duration: number }) => s + c.duration, 0);
    assert.ok(decodedMs > 1000 && Math.abs(decodedMs - reportedMs) < 100, `decoded ${decodedMs} ms, reported ${reportedMs} ms`);
  });
});
