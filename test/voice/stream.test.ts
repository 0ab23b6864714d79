// VoiceStream without a socket: idle timeout and protocol order with stand-in engines (fast, no PocketSphinx).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { VoiceStream, type StreamSink, type VoiceStreamDeps } from '../../src/voice/stream.js';
import { parseVoiceSessionRequest } from '../../src/http/requests/session-request.js';
import type { ServerMessage } from '../../src/voice/protocol.js';
import type { SpeechToTextEngine, RecognizerEvent } from '../../src/voice/stt/engine.js';
import { silentLogger } from '../../src/lib/logger.js';
import { withDeadline } from '../helpers/wait.js';

/**
 * Concludes one segment per second of audio, "word<n>", with a partial "word<n>" while the second is under way; the
 * end of audio concludes a started second.
 */
const fakeStt: SpeechToTextEngine = {
  name: 'fake',
  languages: new Set(['en']),
  detectsLanguage: false,
  async createRecognizer() {
    let samples = 0;
    let n = 0;
    const segment = () => ({ text: `word${n}`, startMs: n * 1000, endMs: n * 1000 + 900 });
    return {
      async write(s: Int16Array): Promise<RecognizerEvent[]> {
        samples += s.length;
        const out: RecognizerEvent[] = [];
        while (samples >= 16000 * (n + 1)) {
          out.push({ kind: 'final', segment: segment() });
          n++;
        }
        if (samples > 16000 * n) out.push({ kind: 'partial', segment: segment() });
        return out;
      },
      async finish(): Promise<RecognizerEvent[]> {
        return samples > 16000 * n ? [{ kind: 'final', segment: segment() }] : [];
      },
      release() {},
    };
  },
  async close() {},
};

function setup(idleTimeoutMs = 30_000, request: Record<string, unknown> = {}, deps: Partial<VoiceStreamDeps> = {}) {
  const config = parseVoiceSessionRequest(
    { source_media_content_type: 'audio/pcm;encoding=s16le;rate=16000', target_languages: ['de', 'en'], ...request },
    { transcribable: new Set(['en']), canTranslate: () => true, canSpeak: () => true },
  );
  const messages: ServerMessage[] = [];
  let closed = false;
  let done = false;
  let markClosed!: () => void;
  const closedNow = new Promise<void>((resolve) => (markClosed = resolve));
  const waiters: { test: (m: ServerMessage) => boolean; resolve: () => void }[] = [];
  // the wall clock the pacing check sees: the test moves it as a client sending in real time would
  let clock = 0;
  const stream = new VoiceStream(config, {
    stt: fakeStt,
    // a 440 Hz tone of 0.6 s for every text
    tts: { supports: () => true, synthesize: async () => ({ samples: Int16Array.from({ length: 9600 }, (_, i) => 8000 * Math.sin(i / 5.8)), sampleRate: 16000 }) },
    translate: async (_s, t, texts) => texts.map((x) => `${t}:${x}`),
    charge: async () => {},
    onDone: () => (done = true),
    logger: silentLogger,
    now: () => clock,
    idleTimeoutMs,
    ...deps,
  });
  const sink: StreamSink = {
    send: (m) => {
      messages.push(m);
      for (const w of waiters.filter((w) => w.test(m))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    },
    close: () => {
      closed = true;
      markClosed();
    },
  };
  stream.attach(sink);
  /** Resolves at the first message (sent from now on, or already sent) that passes `test`. */
  const until = (test: (m: ServerMessage) => boolean) =>
    withDeadline('a message', messages.some(test) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ test, resolve })));
  const advance = (ms: number) => (clock += ms);
  return { stream, messages, isClosed: () => closed, isDone: () => done, untilClosed: () => withDeadline('the stream to close', closedNow), until, advance };
}

type Update = { concluded: { text: string }[]; tentative: { text: string }[] };
const updates = (messages: ServerMessage[], language?: string): Update[] =>
  messages.flatMap((m) =>
    'source_transcript_update' in m && !language ? [m.source_transcript_update] : 'target_transcript_update' in m && m.target_transcript_update.language === language ? [m.target_transcript_update] : [],
  );
const joined = (us: Update[]) => us.flatMap((u) => u.concluded.map((c) => c.text)).join('');
const end = Buffer.from('{"end_of_source_media":{}}');

const chunk = (bytes: number) => Buffer.from(JSON.stringify({ source_media_chunk: { data: Buffer.alloc(bytes).toString('base64') } }));

describe('voice stream (stand-in engines)', () => {
  it('ends with an error after the idle timeout', async () => {
    const s = setup(50);
    await s.untilClosed();
    assert.equal((s.messages.at(-1) as { error: { error_code: number } }).error.error_code, 408);
    assert.ok(s.isClosed() && s.isDone());
  });

  it('translates every concluded segment per target and ends with end_of_stream', async () => {
    const s = setup();
    s.stream.onFrame(chunk(32000), false); // 1 s
    s.stream.onFrame(end, false);
    await s.untilClosed();
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

  it('spaces segments so that joining them with "" reads right, and none in Chinese', async () => {
    const s = setup(30_000, { target_languages: ['de', 'zh'] });
    for (let i = 0; i < 5; i++) {
      s.stream.onFrame(chunk(16000), false); // 2.5 s in half seconds
      s.advance(500);
    }
    s.stream.onFrame(end, false);
    await s.untilClosed();
    assert.equal(joined(updates(s.messages)), 'word0 word1 word2');
    assert.equal(joined(updates(s.messages, 'de')), 'de:word0 de:word1 de:word2');
    assert.equal(joined(updates(s.messages, 'zh')), 'zh:word0zh:word1zh:word2');
    // a tentative segment continues the concluded text: the first has no space, later ones have
    const tentative = updates(s.messages).flatMap((u) => u.tentative.map((t) => t.text));
    assert.deepEqual([...new Set(tentative)], ['word0', ' word1', ' word2']);
  });

  it('sends tentative target segments while an utterance is under way, none after its conclusion', async () => {
    const s = setup(30_000, { target_languages: ['de'] });
    s.stream.onFrame(chunk(16000), false);
    await s.until((m) => 'target_transcript_update' in m && m.target_transcript_update.tentative.length > 0);
    s.stream.onFrame(end, false);
    await s.untilClosed();
    const de = updates(s.messages, 'de');
    assert.deepEqual(de[0], { language: 'de', concluded: [], tentative: [{ text: 'de:word0', start_time: 0, end_time: 900 }] });
    const concludedAt = de.findIndex((u) => u.concluded.length > 0);
    assert.ok(concludedAt > 0 && de.slice(concludedAt + 1).every((u) => u.tentative.length === 0), JSON.stringify(de));
  });

  it('on the idle timeout, concludes and translates the unfinished utterance before the 408', async () => {
    const s = setup(100);
    s.stream.onFrame(chunk(16000), false); // half a second: nothing concluded yet
    await s.untilClosed();
    assert.equal(joined(updates(s.messages)), 'word0');
    assert.equal(joined(updates(s.messages, 'de')), 'de:word0');
    assert.equal((s.messages.at(-1) as { error: { error_code: number } }).error.error_code, 408);
  });

  it('sends no media chunk after end_of_target_transcript (an encoder still flushing at the end)', async () => {
    const s = setup(30_000, { target_languages: ['de'], target_media_languages: ['de'], target_media_content_type: 'audio/webm;codecs=opus' });
    s.stream.onFrame(chunk(32000), false);
    s.stream.onFrame(end, false);
    await s.untilClosed();
    const kinds = s.messages.map((m) => Object.keys(m)[0]);
    assert.equal(kinds.at(-1), 'end_of_stream', kinds.join());
    assert.ok(kinds.includes('target_media_chunk'));
    assert.ok(kinds.lastIndexOf('target_media_chunk') < kinds.indexOf('end_of_target_transcript'), kinds.join());
  });

  for (const [declared, audio, says] of [
    ['audio/mpeg', Buffer.alloc(6400, 3), /not 'audio\/mpeg' as declared/],
    ['audio/flac', Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(4000)]), /WebM\/Matroska, not the declared 'audio\/flac'/],
    ['audio/auto', Buffer.alloc(6400, 3), /not in a container Tolk recognises/],
  ] as const) {
    it(`audio that is not ${declared} is refused at its first chunk, in plain words`, async () => {
      const s = setup(30_000, { source_media_content_type: declared });
      s.stream.onFrame(Buffer.from(JSON.stringify({ source_media_chunk: { data: audio.toString('base64') } })), false);
      await s.untilClosed();
      const err = (s.messages.at(-1) as { error: { reason_code: number; error_message: string } }).error;
      assert.equal(err.reason_code, 4000403);
      assert.match(err.error_message, says);
      assert.doesNotMatch(err.error_message, /ffmpeg|filter|demux/i);
    });
  }

  it('auto mode: labels, spaces and translates each segment in the language the recogniser detected', async () => {
    const sources: string[] = [];
    let offered: ReadonlySet<string> | undefined;
    // hears English in even seconds and Japanese in odd ones, when asked to detect
    const detecting: SpeechToTextEngine = {
      ...fakeStt,
      detectsLanguage: true,
      async createRecognizer(language, options) {
        offered = options?.detectAmong;
        const inner = await fakeStt.createRecognizer(language);
        const label = (events: RecognizerEvent[]) =>
          events.map((e) => ({ ...e, segment: { ...e.segment, language: e.segment.startMs / 1000 % 2 ? 'ja' : 'en' } }));
        return { write: async (x) => label(await inner.write(x)), finish: async () => label(await inner.finish()), release: () => inner.release() };
      },
    };
    const s = setup(30_000, { target_languages: ['de'] }, {
      stt: detecting,
      detectAmong: new Set(['en', 'ja']),
      translate: async (source, t, texts) => (sources.push(source), texts.map((x) => `${t}:${x}`)),
    });
    for (let i = 0; i < 4; i++) {
      s.stream.onFrame(chunk(16000), false); // 2 s in half seconds
      s.advance(500);
    }
    s.stream.onFrame(end, false);
    await s.untilClosed();
    assert.deepEqual([...(offered ?? [])], ['en', 'ja']);
    const concluded = s.messages.flatMap((m) => ('source_transcript_update' in m ? m.source_transcript_update.concluded : []));
    assert.deepEqual(concluded.map((c) => [c.language, c.text]), [['en', 'word0'], ['ja', 'word1']]);
    assert.deepEqual([...new Set(sources)], ['en', 'ja']);
  });
});
