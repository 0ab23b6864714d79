// VoiceStream without a socket: idle timeout and protocol order with stand-in engines (fast, no PocketSphinx).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { VoiceStream, type StreamSink } from '../../src/voice/stream.js';
import { parseVoiceSessionRequest } from '../../src/voice/session-request.js';
import type { ServerMessage } from '../../src/voice/protocol.js';
import type { SpeechToTextEngine, RecognizerEvent } from '../../src/voice/stt/engine.js';
import { silentLogger } from '../../src/lib/logger.js';

/** Concludes one segment per second of audio, "word<n>". */
const fakeStt: SpeechToTextEngine = {
  name: 'fake',
  languages: new Set(['en']),
  async createRecognizer() {
    let samples = 0;
    let n = 0;
    return {
      async write(s: Int16Array): Promise<RecognizerEvent[]> {
        samples += s.length;
        const out: RecognizerEvent[] = [];
        while (samples >= 16000 * (n + 1)) {
          out.push({ kind: 'final', segment: { text: `word${n}`, startMs: n * 1000, endMs: n * 1000 + 900 } });
          n++;
        }
        return out;
      },
      async finish() {
        return [];
      },
      release() {},
    };
  },
  async close() {},
};

function setup(idleTimeoutMs = 30_000) {
  const config = parseVoiceSessionRequest(
    { source_media_content_type: 'audio/pcm;encoding=s16le;rate=16000', target_languages: ['de', 'en'] },
    { transcribable: new Set(['en']), canTranslate: () => true, canSpeak: () => true },
  );
  const messages: ServerMessage[] = [];
  let closed = false;
  let done = false;
  const stream = new VoiceStream(config, {
    stt: fakeStt,
    tts: { supports: () => true, synthesize: async () => ({ samples: new Int16Array(160), sampleRate: 16000 }) },
    translate: async (_s, t, texts) => texts.map((x) => `${t}:${x}`),
    charge: async () => {},
    onDone: () => (done = true),
    logger: silentLogger,
    idleTimeoutMs,
  });
  const sink: StreamSink = { send: (m) => messages.push(m), close: () => (closed = true) };
  stream.attach(sink);
  return { stream, messages, isClosed: () => closed, isDone: () => done };
}

const chunk = (bytes: number) => Buffer.from(JSON.stringify({ source_media_chunk: { data: Buffer.alloc(bytes).toString('base64') } }));

describe('voice stream (stand-in engines)', () => {
  it('ends with an error after the idle timeout', async () => {
    const s = setup(50);
    await new Promise((r) => setTimeout(r, 120));
    assert.equal((s.messages.at(-1) as { error: { error_code: number } }).error.error_code, 408);
    assert.ok(s.isClosed() && s.isDone());
  });

  it('translates every concluded segment per target and ends with end_of_stream', async () => {
    const s = setup();
    s.stream.onFrame(chunk(32000), false); // 1 s
    s.stream.onFrame(Buffer.from('{"end_of_source_media":{}}'), false);
    for (let i = 0; i < 50 && !s.isClosed(); i++) await new Promise((r) => setTimeout(r, 10));
    const kinds = s.messages.map((m) => Object.keys(m)[0]);
    assert.deepEqual(kinds, [
      'source_transcript_update', 'target_transcript_update', 'target_transcript_update',
      'end_of_source_transcript', 'end_of_target_transcript', 'end_of_target_transcript', 'end_of_stream',
    ]);
    const de = s.messages.find((m) => 'target_transcript_update' in m && m.target_transcript_update.language === 'de');
    assert.deepEqual(de, { target_transcript_update: { language: 'de', concluded: [{ text: 'de:word0', start_time: 0, end_time: 900 }], tentative: [] } });
    const en = s.messages.find((m) => 'target_transcript_update' in m && m.target_transcript_update.language === 'en');
    assert.equal((en as { target_transcript_update: { concluded: { text: string }[] } }).target_transcript_update.concluded[0]!.text, 'word0');
  });
});
