// The speech-to-text interface's contract, run on every engine: PocketSphinx (Debian's model) and Whisper (whisper.cpp
// and sherpa-onnx, each with a generated model of its real format: they say nothing sensible, so only the contract is
// checked, not words).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecognizerEvent, SpeechToTextEngine } from '../../src/voice/stt/engine.js';
import { PocketSphinxEngine } from '../../src/voice/stt/pocketsphinx.js';
import { WhisperEngine } from '../../src/voice/stt/whisper.js';
import { SherpaWhisperEngine } from '../../src/voice/stt/sherpa-whisper.js';
import { sttEngine } from '../../src/voice/index.js';
import { silentLogger } from '../../src/lib/logger.js';
import { TEST_SHAPE, writeWhisperModel } from '../helpers/whisper-model.js';
import { MULTILINGUAL_VOCAB, writeSherpaWhisperModel } from '../helpers/sherpa-whisper-model.js';
import { synthesize } from './voice-helpers.js';

const MULTILINGUAL_SHAPE = { ...TEST_SHAPE, nVocab: MULTILINGUAL_VOCAB };

const silence = (ms: number) => new Int16Array((16000 * ms) / 1000);
const samples = (pcm: Buffer) => new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length));

function concat(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) (out.set(p, o), (o += p.length));
  return out;
}

/** Feeds `audio` in 100 ms chunks as the stream does; returns every event, finish() included. */
async function recognize(engine: SpeechToTextEngine, audio: Int16Array): Promise<RecognizerEvent[]> {
  const r = await engine.createRecognizer('en');
  const events: RecognizerEvent[] = [];
  try {
    for (let i = 0; i < audio.length; i += 1600) events.push(...(await r.write(audio.subarray(i, i + 1600))));
    events.push(...(await r.finish()));
  } finally {
    r.release();
  }
  return events;
}

const dir = mkdtempSync(join(tmpdir(), 'tolk-stt-'));
const engines: [string, () => SpeechToTextEngine][] = [
  ['pocketsphinx', () => new PocketSphinxEngine()],
  [
    'whisper (generated model)',
    () => {
      writeWhisperModel(join(dir, 'ggml-test.en.bin'));
      return new WhisperEngine({ modelPath: join(dir, 'ggml-test.en.bin') });
    },
  ],
  ['sherpa-onnx whisper (generated model)', () => new SherpaWhisperEngine({ files: writeSherpaWhisperModel(join(dir, 'onnx-test.en')) })],
];
after(() => rmSync(dir, { recursive: true, force: true }));

for (const [name, make] of engines) {
  describe(`speech-to-text contract: ${name}`, () => {
    let engine: SpeechToTextEngine;
    let one: Int16Array;
    let two: Int16Array;
    before(() => {
      engine = make();
      one = samples(synthesize('The weather is nice today.'));
      two = samples(synthesize('I would like to visit the old city with my friends.'));
    });
    after(() => engine.close());

    it('transcribes English and refuses a language it has no model for', async () => {
      assert.ok(engine.languages.has('en'));
      assert.ok(!engine.languages.has('xx'));
      await assert.rejects(engine.createRecognizer('xx'));
    });

    it('concludes each utterance at its pause, in order, within the audio, text trimmed', async () => {
      const audio = concat([silence(300), one, silence(1500), two, silence(1500)]);
      const events = await recognize(engine, audio);
      const finals = events.filter((e) => e.kind === 'final').map((e) => e.segment);
      assert.equal(finals.length, 2, JSON.stringify(events));
      const audioMs = (audio.length * 1000) / 16000;
      let previousEnd = 0;
      for (const s of finals) {
        assert.ok(s.text.length > 0 && s.text === s.text.trim(), JSON.stringify(s));
        assert.ok(Number.isInteger(s.startMs) && Number.isInteger(s.endMs));
        assert.ok(s.startMs >= previousEnd - 300 && s.startMs <= s.endMs && s.endMs <= audioMs, JSON.stringify(finals));
        previousEnd = s.endMs;
      }
      // the pause between the utterances lies between their segments
      const pauseStart = 300 + (one.length * 1000) / 16000;
      assert.ok(finals[0]!.endMs <= pauseStart + 500 && finals[1]!.startMs >= pauseStart, JSON.stringify(finals));
    });

    it('gives partial results while an utterance goes on', async () => {
      const events = await recognize(engine, concat([silence(200), two, two]));
      const firstFinal = events.findIndex((e) => e.kind === 'final');
      assert.ok(events.findIndex((e) => e.kind === 'partial') >= 0 && events.findIndex((e) => e.kind === 'partial') < firstFinal, JSON.stringify(events));
    });

    it('finish() concludes the utterance the audio ended in; silence alone concludes nothing', async () => {
      const events = await recognize(engine, concat([silence(200), one]));
      assert.equal(events.at(-1)?.kind, 'final', JSON.stringify(events));
      assert.deepEqual((await recognize(engine, silence(3000))).filter((e) => e.kind === 'final'), []);
    });

    it('a released recogniser ignores what is still written to it', async () => {
      const r = await engine.createRecognizer('en');
      r.release();
      assert.deepEqual(await r.write(one), []);
      assert.deepEqual(await r.finish(), []);
    });
  });
}

describe('speech-to-text engine choice (TOLK_STT_ENGINE, TOLK_MODELS_DIR)', () => {
  it('auto: Whisper when a model is installed, else PocketSphinx; whisper without a model is a start-up error', async () => {
    const models = mkdtempSync(join(tmpdir(), 'tolk-models-'));
    const made: SpeechToTextEngine[] = [];
    const engine = (config: Parameters<typeof sttEngine>[0]) => {
      const e = sttEngine(config, silentLogger);
      made.push(e);
      return e;
    };
    try {
      assert.equal(engine({ engine: 'auto', modelsDir: models }).name, 'pocketsphinx');
      assert.throws(() => engine({ engine: 'whisper', modelsDir: models }), /no Whisper model \(ggml-\*\.bin or onnx-NAME\/\) in/);
      mkdirSync(join(models, 'whisper'));
      writeWhisperModel(join(models, 'whisper', 'ggml-test.en.bin'));
      const chosen = engine({ engine: 'auto', modelsDir: models });
      assert.equal(chosen.name, 'whisper');
      assert.deepEqual([...chosen.languages], ['en'], 'an English-only model (51,864 tokens)');
      assert.equal(engine({ engine: 'pocketsphinx', modelsDir: models }).name, 'pocketsphinx');
      // a sherpa-onnx model beside the ggml one is preferred
      writeSherpaWhisperModel(join(models, 'whisper', 'onnx-test.en'));
      assert.equal(engine({ engine: 'whisper', modelsDir: models }).name, 'sherpa-whisper');
    } finally {
      await Promise.all(made.map((e) => e.close()));
      rmSync(models, { recursive: true, force: true });
    }
  });
});

describe('sherpa-onnx Whisper languages', () => {
  it('an English-only vocabulary (50,256 text tokens) transcribes en; a multilingual one every Whisper language, detecting', () => {
    const english = new SherpaWhisperEngine({ files: writeSherpaWhisperModel(join(dir, 'languages-en')) });
    assert.deepEqual([...english.languages], ['en']);
    assert.equal(english.detectsLanguage, false);
    const multi = new SherpaWhisperEngine({ files: writeSherpaWhisperModel(join(dir, 'languages-multi'), MULTILINGUAL_SHAPE) });
    assert.ok(multi.detectsLanguage);
    for (const l of ['en', 'de', 'fr', 'zh', 'nb', 'haw']) assert.ok(multi.languages.has(l), l);
    assert.ok(!multi.languages.has('no'), "Whisper's Norwegian is Tolk's nb");
    // large-v3's Cantonese: sherpa-onnx would end the process for it on any other model
    assert.ok(!multi.languages.has('yue'));
    assert.equal(multi.languages.size, 99);
  });

  it('a multilingual model transcribes each call in its language, or detects one, on one loaded recogniser', async () => {
    const engine = new SherpaWhisperEngine({ files: writeSherpaWhisperModel(join(dir, 'switch-multi'), MULTILINGUAL_SHAPE) });
    try {
      await engine.load();
      const audio = new Int16Array(16000).map((_, i) => Math.round(8000 * Math.sin(i / 9)));
      // one after another, then several waiting at once: each is transcribed in the language it asks for
      for (const language of ['de', 'fr', 'de', 'nb']) {
        assert.equal((await engine.transcribeDetailed(audio, language, '', 'final')).language, language);
      }
      const queued = await Promise.all(['ja', 'auto', 'es'].map((l) => engine.transcribeDetailed(audio, l, '', 'final')));
      assert.equal(queued[0]!.language, 'ja');
      assert.ok(engine.languages.has(queued[1]!.language), `detected ${queued[1]!.language}`);
      assert.equal(queued[2]!.language, 'es');
    } finally {
      await engine.close();
    }
  });
});
