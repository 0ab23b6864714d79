// whisper.cpp's C API through koffi: the declared struct layout reads the library's real defaults, and the encoder
// context and token cap follow the utterance's length.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { whisperNative } from '../../src/voice/stt/whisper-native.js';
import { audioContextFor, maxTokensFor, WhisperEngine } from '../../src/voice/stt/whisper.js';
import { waitFor } from '../helpers/wait.js';
import { TEST_SHAPE, writeWhisperModel } from '../helpers/whisper-model.js';

const dir = mkdtempSync(join(tmpdir(), 'tolk-whisper-native-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('whisper.cpp through koffi', () => {
  it('reads whisper_full_default_params through the declared layout (fields after audio_ctx included)', () => {
    const params = whisperNative().defaults();
    assert.equal(params.language, 'en');
    assert.equal(params.audio_ctx, 0);
    assert.equal(params.n_max_text_ctx, 16384);
    assert.equal(params.greedy.best_of, 5);
    assert.equal(params.beam_search.beam_size, -1);
    assert.ok(Math.abs((params.no_speech_thold as number) - 0.6) < 1e-6);
    assert.equal((params.vad_params as { speech_pad_ms: number }).speech_pad_ms, 30);
  });

  it('sizes the encoder to the audio (50 positions a second + 0.5 s), at most the 30 s window', () => {
    assert.equal(audioContextFor(16000 * 2), 125);
    assert.equal(audioContextFor(16000 * 10), 525);
    assert.equal(audioContextFor(16000 * 40), 1500);
    assert.equal(maxTokensFor(16000 * 2), 24);
  });

  it('transcribes through the C API, sized and over the full window, short audio padded to whisper.cpp\'s 1 s', async () => {
    writeWhisperModel(join(dir, 'ggml-test.en.bin'));
    const noise = new Int16Array(16000 * 2).map((_, i) => Math.round(6000 * Math.sin(i / 7)));
    for (const fullWindow of [false, true]) {
      const engine = new WhisperEngine({ modelPath: join(dir, 'ggml-test.en.bin'), fullWindow });
      try {
        assert.equal(typeof (await engine.transcribe(noise, 'en')), 'string');
        assert.equal(typeof (await engine.transcribe(noise.subarray(0, 4000), 'en')), 'string');
      } finally {
        await engine.close();
      }
    }
  });

  it('concludes an utterance without another transcription when one began in the pause and no speech followed', async () => {
    writeWhisperModel(join(dir, 'ggml-test.en.bin'));
    const engine = new WhisperEngine({ modelPath: join(dir, 'ggml-test.en.bin'), pauseMs: 600 });
    const fedAtCall: number[] = [];
    let fed = 0;
    const transcribe = engine.transcribeDetailed.bind(engine);
    engine.transcribeDetailed = (audio, language, prompt) => (fedAtCall.push(fed), transcribe(audio, language, prompt));
    try {
      const speech = new Int16Array(16000 * 2.3).map((_, i) => Math.round(12000 * Math.sin(i / 5) * Math.sin(i / 900)));
      const audio = new Int16Array(speech.length + 16000 * 1.5);
      audio.set(speech);
      const r = await engine.createRecognizer('en');
      const finals = [];
      for (let i = 0; i < audio.length; i += 1600) {
        fed = i + 1600;
        finals.push(...(await r.write(audio.subarray(i, i + 1600))).filter((e) => e.kind === 'final'));
        // an engine faster than real time: the background transcription is done before the next 100 ms arrive
        await waitFor('the engine idle', () => engine.idle());
      }
      r.release();
      assert.equal(finals.length, 1);
      assert.ok(fedAtCall.some((at) => at > speech.length), 'a transcription started in the pause');
      // the pause concluded 600 ms after the speech; nothing was transcribed from then on
      assert.deepEqual(fedAtCall.filter((at) => at >= speech.length + 16000 * 0.6), []);
    } finally {
      await engine.close();
    }
  });

  it('partial transcriptions run in the background, one at a time per session; the stream is not held up', async () => {
    writeWhisperModel(join(dir, 'ggml-test.en.bin'));
    const engine = new WhisperEngine({ modelPath: join(dir, 'ggml-test.en.bin'), partialEveryMs: 300 });
    let fed = 0;
    let running = 0;
    let most = 0;
    /** audio fed while each call ran */
    const fedDuring: number[] = [];
    const transcribe = engine.transcribeDetailed.bind(engine);
    engine.transcribeDetailed = (audio, language, prompt, kind) => {
      const at = fed;
      most = Math.max(most, ++running);
      return transcribe(audio, language, prompt, kind).finally(() => (running--, fedDuring.push(fed - at)));
    };
    try {
      // 6 s of speech without a pause: only partial transcriptions until finish()
      const speech = new Int16Array(16000 * 6).map((_, i) => Math.round(12000 * Math.sin(i / 5) * Math.sin(i / 900)));
      const r = await engine.createRecognizer('en');
      const events = [];
      for (let i = 0; i < speech.length; i += 1600) {
        fed = i + 1600;
        events.push(...(await r.write(speech.subarray(i, i + 1600))));
        // real-time pace stands here for the event loop turning between chunks
        await new Promise((resolve) => setImmediate(resolve));
      }
      events.push(...(await r.finish()));
      r.release();
      assert.equal(most, 1, 'never two transcriptions of one session at once');
      assert.ok(fedDuring.some((n) => n > 0), 'audio went on being fed while a partial transcription ran');
      assert.equal(events.at(-1)?.kind, 'final');
      assert.ok(events.slice(0, -1).every((e) => e.kind === 'partial'));
    } finally {
      await engine.close();
    }
  });

  it('concluding transcriptions go before waiting partial ones; idle() tells when nothing runs or waits', async () => {
    writeWhisperModel(join(dir, 'ggml-test.en.bin'));
    const engine = new WhisperEngine({ modelPath: join(dir, 'ggml-test.en.bin') });
    try {
      await engine.load();
      const audio = new Int16Array(16000).map((_, i) => Math.round(8000 * Math.sin(i / 7)));
      const order: string[] = [];
      assert.ok(engine.idle());
      const calls = [
        engine.transcribeDetailed(audio, 'en', '', 'final').then(() => order.push('first (running)')),
        engine.transcribeDetailed(audio, 'en', '', 'partial').then(() => order.push('partial')),
        engine.transcribeDetailed(audio, 'en', '', 'final').then(() => order.push('final')),
      ];
      assert.ok(!engine.idle());
      await Promise.all(calls);
      assert.deepEqual(order, ['first (running)', 'final', 'partial']);
      assert.ok(engine.idle());
    } finally {
      await engine.close();
    }
  });

  it('a multilingual model detects the language among the allowed ones, else falls back to the session\'s', async () => {
    writeWhisperModel(join(dir, 'ggml-test.bin'), { ...TEST_SHAPE, nVocab: 51865 });
    const engine = new WhisperEngine({ modelPath: join(dir, 'ggml-test.bin') });
    try {
      assert.ok(engine.detectsLanguage && engine.languages.has('de') && engine.languages.has('ja'));
      // Norwegian Bokmål under Tolk's code, passed to whisper.cpp as its own
      assert.ok(engine.languages.has('nb') && !engine.languages.has('no'));
      assert.equal(typeof (await engine.transcribe(new Int16Array(16000), 'nb')), 'string');
      const speech = new Int16Array(16000 * 1.5).map((_, i) => Math.round(12000 * Math.sin(i / 5) * Math.sin(i / 700)));
      const audio = new Int16Array(speech.length + 16000);
      audio.set(speech);
      const heard = (await engine.transcribeDetailed(speech, 'auto')).language;
      assert.ok(engine.languages.has(heard), heard);
      const hint = heard === 'fr' ? 'de' : 'fr';
      const other = heard === 'it' ? 'pt' : 'it';
      const languagesOf = async (detectAmong: ReadonlySet<string>) => {
        const r = await engine.createRecognizer(hint, { detectAmong });
        const events = [];
        for (let i = 0; i < audio.length; i += 1600) events.push(...(await r.write(audio.subarray(i, i + 1600))));
        events.push(...(await r.finish()));
        r.release();
        assert.ok(events.some((e) => e.kind === 'final'));
        return [...new Set(events.map((e) => e.segment.language))];
      };
      assert.deepEqual(await languagesOf(new Set([heard, hint])), [heard]);
      assert.deepEqual(await languagesOf(new Set([hint, other])), [hint]);
    } finally {
      await engine.close();
    }
  });
});
