// A voice stream through the server on the Whisper engine (a generated multilingual model, so the words mean
// nothing): source_language_mode auto labels segments with a language that translates to the target, fixed keeps
// the requested one, and the target transcript follows.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authHeaders, createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import { TEST_SHAPE, writeWhisperModel } from '../helpers/whisper-model.js';
import { connectVoice, type Msg } from '../voice/voice-helpers.js';

const models = mkdtempSync(join(tmpdir(), 'tolk-voice-whisper-'));
/** Languages that translate to Spanish with the test pairs (en-es, ca-es, fr-es), and Spanish itself. */
const TO_SPANISH = ['ca', 'en', 'es', 'fr'];

/** 1.5 s of a modulated tone (speech to the energy detector) and 1 s of silence, twice. */
function audio(): Buffer {
  const one = new Int16Array(16000 * 2.5);
  for (let i = 0; i < 16000 * 1.5; i++) one[i] = Math.round(12000 * Math.sin(i / 5) * Math.sin(i / 700));
  const pcm = Buffer.alloc(one.byteLength * 2);
  Buffer.from(one.buffer).copy(pcm, 0);
  Buffer.from(one.buffer).copy(pcm, one.byteLength);
  return pcm;
}

describe('voice on the Whisper engine', () => {
  let ctx: TestContext;
  let account: TestAccount;
  let base: string;

  before(async () => {
    mkdirSync(join(models, 'whisper'));
    writeWhisperModel(join(models, 'whisper', 'ggml-test.bin'), { ...TEST_SHAPE, nVocab: 51865 });
    ctx = await createTestApp({ env: { TOLK_MODELS_DIR: models, TOLK_STT_ENGINE: 'whisper' } });
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    base = `ws://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    account = await createAccount(ctx);
  });
  after(async () => {
    await ctx.close();
    rmSync(models, { recursive: true, force: true });
  });

  async function run(body: Record<string, unknown>): Promise<Msg[]> {
    const res = await ctx.app.inject({ method: 'POST', url: '/v3/voice/realtime', headers: authHeaders(account), payload: body });
    assert.equal(res.statusCode, 200, res.body);
    const client = await connectVoice(`${base}/v3/voice/realtime/connect?token=${encodeURIComponent(res.json().token)}`);
    await client.stream(audio(), 16000, 300); // 0.5 s every 300 ms, within the 2x real-time pace
    await client.closed;
    assert.ok(!client.messages.some((m) => m.error), JSON.stringify(client.messages.find((m) => m.error)));
    return client.messages;
  }
  const concluded = (messages: Msg[]) =>
    messages.flatMap((m) => ((m.source_transcript_update?.concluded ?? []) as { language: string; text: string }[]));

  it('auto: every segment carries a language that translates to the target; the target transcript follows', async () => {
    const messages = await run({ source_media_content_type: 'audio/pcm;encoding=s16le;rate=16000', source_language_mode: 'auto', target_languages: ['es'] });
    const segments = concluded(messages);
    assert.ok(segments.length > 0);
    for (const s of segments) assert.ok(TO_SPANISH.includes(s.language), s.language);
    assert.ok(messages.some((m) => m.target_transcript_update?.language === 'es' && m.target_transcript_update.concluded.length > 0));
  });

  it('fixed: segments carry the requested language', async () => {
    const messages = await run({ source_media_content_type: 'audio/pcm;encoding=s16le;rate=16000', source_language: 'fr', source_language_mode: 'fixed', target_languages: ['es'] });
    const segments = concluded(messages);
    assert.ok(segments.length > 0);
    assert.deepEqual([...new Set(segments.map((s) => s.language))], ['fr']);
  });
});
