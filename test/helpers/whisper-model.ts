// Writes a whisper.cpp model file (the GGML format of the public ggml-*.bin models) with generated weights, so the
// Whisper engine is tested and benchmarked without downloading a model: `tiny` has the real shape of ggml-tiny.en.bin
// (same speed, meaningless text), `test` is a few MB. Run directly: node dist/test/helpers/whisper-model.js OUT [tiny].
import { closeSync, openSync, writeSync } from 'node:fs';
import { prng } from './prng.js';

export interface WhisperShape {
  nVocab: number;
  audioCtx: number;
  audioState: number;
  audioHead: number;
  audioLayer: number;
  textCtx: number;
  textState: number;
  textHead: number;
  textLayer: number;
  mels: number;
}

/** ggml-tiny.en.bin's hyper-parameters. */
export const TINY_EN: WhisperShape = {
  nVocab: 51864, audioCtx: 1500, audioState: 384, audioHead: 6, audioLayer: 4,
  textCtx: 448, textState: 384, textHead: 6, textLayer: 4, mels: 80,
};

/** The smallest model whisper.cpp runs: English vocabulary (its special tokens sit at fixed ids), narrow layers. */
export const TEST_SHAPE: WhisperShape = { ...TINY_EN, audioState: 32, audioHead: 2, audioLayer: 1, textState: 32, textHead: 2, textLayer: 1 };

const GGML_MAGIC = 0x67676d6c;
const F32 = 0;
const F16 = 1;

/** float → IEEE half, for the small values written here (no infinities or subnormals needed). */
function toHalf(x: number): number {
  const f = new Float32Array([x]);
  const bits = new Uint32Array(f.buffer)[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exp = ((bits >>> 23) & 0xff) - 127 + 15;
  if (exp <= 0) return sign;
  return sign | (Math.min(exp, 30) << 10) | ((bits >>> 13) & 0x3ff);
}

/** Text tokens of the English vocabulary (the special tokens follow them, from end-of-text at this id). */
export const TEXT_TOKENS = 50256;

/** The generated vocabulary: the 256 bytes, then two-letter pieces (every third ending in a space). */
export function vocabularyPiece(i: number): Buffer {
  return i < 256 ? Buffer.from([i]) : Buffer.from(String.fromCharCode(97 + ((i >> 5) % 26), 97 + (i % 26)) + (i % 3 === 0 ? ' ' : ''));
}

export function writeWhisperModel(path: string, shape: WhisperShape = TEST_SHAPE, seed = 1): void {
  const rand = prng(seed);
  const fd = openSync(path, 'w');
  const ints = (...v: number[]) => {
    const b = Buffer.alloc(v.length * 4);
    v.forEach((x, i) => b.writeInt32LE(x, i * 4));
    writeSync(fd, b);
  };
  try {
    ints(GGML_MAGIC, shape.nVocab, shape.audioCtx, shape.audioState, shape.audioHead, shape.audioLayer, shape.textCtx, shape.textState, shape.textHead, shape.textLayer, shape.mels, F16);
    // mel filter bank: triangular-ish rows over the 201 FFT bins
    const nFft = 201;
    const filters = Buffer.alloc(shape.mels * nFft * 4);
    for (let m = 0; m < shape.mels; m++) {
      const centre = Math.round(((m + 1) * (nFft - 1)) / (shape.mels + 1));
      for (let k = Math.max(0, centre - 2); k <= Math.min(nFft - 1, centre + 2); k++) filters.writeFloatLE(1 - Math.abs(k - centre) / 3, (m * nFft + k) * 4);
    }
    ints(shape.mels, nFft);
    writeSync(fd, filters);
    // vocabulary: the 50,256 text tokens (bytes, then two-letter pieces); the loader names the special ones after them
    const tokens: Buffer[] = [];
    for (let i = 0; i < TEXT_TOKENS; i++) {
      const word = vocabularyPiece(i);
      const len = Buffer.alloc(4);
      len.writeUInt32LE(word.length);
      tokens.push(len, word);
    }
    ints(TEXT_TOKENS);
    writeSync(fd, Buffer.concat(tokens));
    const tensor = (name: string, ne: number[], type: number, scale = 0.05) => {
      ints(ne.length, Buffer.byteLength(name), type, ...ne);
      writeSync(fd, Buffer.from(name));
      const n = ne.reduce((a, b) => a * b, 1);
      const data = Buffer.alloc(n * (type === F32 ? 4 : 2));
      for (let i = 0; i < n; i++) {
        const v = ((rand(2001) - 1000) / 1000) * scale;
        if (type === F32) data.writeFloatLE(v, i * 4);
        else data.writeUInt16LE(toHalf(v), i * 2);
      }
      writeSync(fd, data);
    };
    const norm = (prefix: string, n: number) => {
      ints(1, Buffer.byteLength(`${prefix}.weight`), F32, n);
      writeSync(fd, Buffer.from(`${prefix}.weight`));
      const ones = Buffer.alloc(n * 4);
      for (let i = 0; i < n; i++) ones.writeFloatLE(1, i * 4);
      writeSync(fd, ones);
      tensor(`${prefix}.bias`, [n], F32, 0);
    };
    const attention = (prefix: string, s: number) => {
      for (const part of ['query', 'key', 'value', 'out']) {
        tensor(`${prefix}.${part}.weight`, [s, s], F16);
        if (part !== 'key') tensor(`${prefix}.${part}.bias`, [s], F32);
      }
    };
    const block = (prefix: string, s: number, cross: boolean) => {
      norm(`${prefix}.mlp_ln`, s);
      tensor(`${prefix}.mlp.0.weight`, [s, 4 * s], F16);
      tensor(`${prefix}.mlp.0.bias`, [4 * s], F32);
      tensor(`${prefix}.mlp.2.weight`, [4 * s, s], F16);
      tensor(`${prefix}.mlp.2.bias`, [s], F32);
      norm(`${prefix}.attn_ln`, s);
      attention(`${prefix}.attn`, s);
      if (cross) {
        norm(`${prefix}.cross_attn_ln`, s);
        attention(`${prefix}.cross_attn`, s);
      }
    };
    const a = shape.audioState;
    tensor('encoder.positional_embedding', [a, shape.audioCtx], F32);
    tensor('encoder.conv1.weight', [3, shape.mels, a], F16);
    tensor('encoder.conv1.bias', [1, a], F32);
    tensor('encoder.conv2.weight', [3, a, a], F16);
    tensor('encoder.conv2.bias', [1, a], F32);
    norm('encoder.ln_post', a);
    for (let i = 0; i < shape.audioLayer; i++) block(`encoder.blocks.${i}`, a, false);
    const t = shape.textState;
    tensor('decoder.positional_embedding', [t, shape.textCtx], F32);
    tensor('decoder.token_embedding.weight', [t, shape.nVocab], F16);
    norm('decoder.ln', t);
    for (let i = 0; i < shape.textLayer; i++) block(`decoder.blocks.${i}`, t, true);
  } finally {
    closeSync(fd);
  }
}

// the path's last component, not its end: sherpa-whisper-model.js ends with whisper-model.js too
if (process.argv[1]?.endsWith('/whisper-model.js') && process.argv[2]) {
  writeWhisperModel(process.argv[2], process.argv[3] === 'tiny' ? TINY_EN : TEST_SHAPE);
}
