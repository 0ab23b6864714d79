// The generated sherpa-onnx Whisper model (test/helpers/sherpa-whisper-model.ts): sherpa-onnx loads it and decodes
// audio through both graphs, and generation is reproducible for a seed (the benchmark's model is the same every run).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sherpa from 'sherpa-onnx-node';
import { prng } from '../helpers/prng.js';
import { tokensText, writeSherpaWhisperModel } from '../helpers/sherpa-whisper-model.js';
import { TEST_SHAPE, type WhisperShape } from '../helpers/whisper-model.js';

const dir = mkdtempSync(join(tmpdir(), 'tolk-sherpa-whisper-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Narrower than TEST_SHAPE: generation alone is compared, twice per seed. */
const TINY: WhisperShape = { ...TEST_SHAPE, audioState: 8, audioHead: 1, textState: 8, textHead: 1 };

const tone = (seconds: number) => new Float32Array(16000 * seconds).map((_, i) => 0.3 * Math.sin(i * 0.05) * Math.sin(i * 0.0007));
const noise = (seconds: number) => {
  const rand = prng(3);
  return new Float32Array(16000 * seconds).map(() => (rand(2001) - 1000) / 2000);
};

describe('generated sherpa-onnx Whisper model', () => {
  it('loads in sherpa-onnx and decodes audio into tokens of its vocabulary, at most 6 a second', async () => {
    const files = writeSherpaWhisperModel(join(dir, 'test'), TEST_SHAPE, 1);
    const recognizer = await sherpa.OfflineRecognizer.createAsync({
      featConfig: { sampleRate: 16000, featureDim: TEST_SHAPE.mels },
      modelConfig: { whisper: { encoder: files.encoder, decoder: files.decoder, language: '', task: 'transcribe' }, tokens: files.tokens, numThreads: 1 },
    });
    const vocabulary = new Set(tokensText().trim().split('\n').map((line) => Buffer.from(line.split(' ')[0]!, 'base64').toString()));
    const decode = async (samples: Float32Array) => {
      const stream = recognizer.createStream();
      stream.acceptWaveform({ samples, sampleRate: 16000 });
      return recognizer.decodeAsync(stream);
    };
    const first = await decode(tone(2));
    assert.equal(typeof first.text, 'string');
    // random weights never pick end-of-text, so sherpa-onnx decodes up to its cap (6 tokens per second of audio)
    assert.ok(first.tokens.length > 0 && first.tokens.length <= 12, `${first.tokens.length} tokens`);
    for (const token of first.tokens) assert.ok(vocabulary.has(token), `token ${JSON.stringify(token)} is in tokens.txt`);
    assert.equal(first.text, first.tokens.join(''));
    // the same audio decodes the same; other audio (through the encoder's cross keys/values) decodes otherwise
    assert.deepEqual((await decode(tone(2))).tokens, first.tokens);
    assert.notDeepEqual((await decode(noise(2))).tokens, first.tokens);
  });

  it('generates the same files for a seed, other weights for another seed', () => {
    const read = (name: string, seed: number) => {
      const files = writeSherpaWhisperModel(join(dir, name), TINY, seed);
      return [readFileSync(files.encoder), readFileSync(files.decoder), readFileSync(files.tokens)] as const;
    };
    const [a, b, c] = [read('a', 7), read('b', 7), read('c', 8)];
    for (let i = 0; i < 3; i++) assert.ok(a[i]!.equals(b[i]!), `file ${i} differs for the same seed`);
    assert.ok(!a[0].equals(c[0]) && !a[1].equals(c[1]), 'another seed changes both graphs');
    assert.ok(a[2].equals(c[2]), 'the vocabulary does not depend on the seed');
  });
});
