#!/usr/bin/env node
// Writes a Firefox Translations (Bergamot) model directory with generated, seeded weights, in the exact formats the
// WebAssembly runtime loads: a Marian binary model (intgemm8 matrices, activation alphas, `special:model.yml`), a
// binary lexical shortlist and the given SentencePiece vocabularies (one shared, or a source and a target one as
// Mozilla's en-ja, en-ko and en-zh have). Translations are nonsense pieces of the real vocabulary; loading,
// tokenization, batching and the cost of a forward pass are real.
//
// The architectures are those of Mozilla's published models (models/<architecture>/<pair>/metadata.json in
// mozilla/firefox-translations-models): at full size a generated model file is within a few hundred bytes of the
// published `byteSize` (base-memory en-de: 31,561,787 bytes). `--reduced` keeps an architecture's layers, heads and
// embedding tying but shrinks its width to what intgemm allows, for fast tests.
const USAGE = `usage: node scripts/make-test-model.mjs --pair en-de --out DIR
         (--vocab FILE | --srcvocab FILE --trgvocab FILE)
         [--shape tiny|base-memory|base] [--reduced] [--seed N]

  --pair      direction, e.g. en-de or en-zh-Hans (file names use the language codes: model.ende…)
  --vocab     the shared SentencePiece vocabulary (vocab.*.spm)
  --srcvocab, --trgvocab
              separate source and target vocabularies (srcvocab.*.spm, trgvocab.*.spm); the model then ties
              embeddings per side as Mozilla's split-vocabulary models do
  --shape     Mozilla architecture (default tiny): tiny (width 256, 6+2 layers), base-memory (384, 6+4),
              base (512, 6+2); \`real\` is an old name of tiny
  --reduced   same layers, heads and embedding tying at width 64, FFN 128: a model of a few MB for fast tests
              (it replaces the one-layer model that \`--shape tiny\` wrote before the architectures were added)
  --seed      weights seed (default 1): the same seed writes the same files byte for byte`;
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { seededRandom } from './seeded-random.mjs';

/** Mozilla's architectures (modelConfig of the published metadata.json), and the shortlist size per source word. */
export const ARCHITECTURES = {
  tiny: { dim: 256, ffn: 1536, heads: 8, enc: 6, dec: 2, shortlist: 50 },
  'base-memory': { dim: 384, ffn: 1536, heads: 8, enc: 6, dec: 4, shortlist: 50 },
  base: { dim: 512, ffn: 2048, heads: 8, enc: 6, dec: 2, shortlist: 50 },
};
/** What `--reduced` changes: the width (dim-emb divisible by the 8 heads; intgemm wants multiples of 64). */
const REDUCED = { dim: 64, ffn: 128, shortlist: 16 };
/** Old shape names: `real` was the tiny architecture. */
const ALIASES = { real: 'tiny' };
/** @deprecated kept for older callers: the architectures by shape name. */
export const SHAPES = { ...ARCHITECTURES, real: ARCHITECTURES.tiny };

// Marian's Type enum (src/common/types.h): class bits + element size.
const TYPE_INT8 = 0x0100 + 1;
const TYPE_FLOAT32 = 0x0400 + 4;
const TYPE_INTGEMM8 = 0x0100 + 1 + 0x4000;
const SHORTLIST_MAGIC = 0xf11a48d5013417f5n;
const MASK64 = (1n << 64n) - 1n;
// End of sentence: its bias, and the weight with which it reads the position clock (see makeTestModel).
const EOS_BIAS = 3;
const EOS_WEIGHT = 1.5;
// Weights of the decoder layers that write the residual stream, against Glorot's: every layer normalization shrinks
// the clock by what the layer added, and at full gain four decoder layers of a narrow model leave too little of it.
const RESIDUAL_GAIN = 0.5;

/**
 * `special:model.yml` as Marian writes it, with the keys of the published modelConfig. Split vocabularies tie the
 * embeddings per side (`tied-embeddings`: encoder_Wemb, decoder_Wemb also the output layer), a shared one ties all
 * three (`tied-embeddings-all`: one Wemb).
 */
function modelYaml(shape, srcSize, trgSize, split) {
  const config = {
    'bert-train-type-embeddings': true,
    'bert-type-vocab-size': 2,
    'dec-cell': 'ssru',
    'dec-cell-base-depth': 2,
    'dec-cell-high-depth': 1,
    'dec-depth': shape.dec,
    'dim-emb': shape.dim,
    'dim-rnn': 1024,
    'dim-vocabs': [srcSize, trgSize],
    'enc-cell': 'gru',
    'enc-cell-depth': 1,
    'enc-depth': shape.enc,
    'enc-type': 'bidirectional',
    'factors-combine': 'sum',
    'factors-dim-emb': 0,
    'input-types': [],
    'layer-normalization': false,
    'lemma-dependency': '',
    'lemma-dim-emb': 0,
    'output-omit-bias': false,
    'right-left': false,
    skip: false,
    'tied-embeddings': split,
    'tied-embeddings-all': !split,
    'tied-embeddings-src': false,
    'transformer-aan-activation': 'swish',
    'transformer-aan-depth': 2,
    'transformer-aan-nogate': false,
    'transformer-decoder-autoreg': 'rnn',
    'transformer-decoder-dim-ffn': 0,
    'transformer-decoder-ffn-depth': 0,
    'transformer-dim-aan': 2048,
    'transformer-dim-ffn': shape.ffn,
    'transformer-ffn-activation': 'relu',
    'transformer-ffn-depth': 2,
    'transformer-guided-alignment-layer': 'last',
    'transformer-heads': shape.heads,
    'transformer-no-affine': false,
    'transformer-no-bias': false,
    'transformer-no-projection': false,
    'transformer-pool': false,
    'transformer-postprocess': 'dan',
    'transformer-postprocess-emb': 'd',
    'transformer-postprocess-top': '',
    'transformer-preprocess': '',
    'transformer-rnn-projection': false,
    'transformer-tied-layers': [],
    'transformer-train-position-embeddings': false,
    type: 'transformer',
    ulr: false,
    'ulr-dim-emb': 0,
    'ulr-trainable-transformation': false,
    version: 'tolk-generated-test-model',
  };
  const value = (v) => {
    if (Array.isArray(v)) return v.length === 0 ? '\n  []' : v.map((x) => `\n  - ${x}`).join('');
    return typeof v === 'string' ? ` ${v === '' ? '""' : v}` : ` ${v}`;
  };
  return `${Object.entries(config).map(([k, v]) => `${k}:${value(v)}`).join('\n')}\n`;
}

/** Every tensor of the architecture, named as Marian's transformer builds them. */
function tensorList(shape, srcSize, trgSize, split) {
  const { dim, ffn } = shape;
  const t = [];
  const matrix = (name, rows, cols) => t.push({ name, shape: [rows, cols], kind: 'matrix' });
  const vector = (name, n, value) => t.push({ name, shape: [1, n], kind: 'vector', value });
  const norm = (prefix) => {
    vector(`${prefix}_ln_scale`, dim, 1);
    vector(`${prefix}_ln_bias`, dim, 0);
  };
  const attention = (prefix) => {
    for (const p of ['q', 'k', 'v', 'o']) {
      matrix(`${prefix}_W${p}`, dim, dim);
      vector(`${prefix}_b${p}`, dim, 0);
    }
    norm(`${prefix}_Wo`);
  };
  const feedForward = (prefix) => {
    matrix(`${prefix}_W1`, dim, ffn);
    vector(`${prefix}_b1`, ffn, 0);
    matrix(`${prefix}_W2`, ffn, dim);
    vector(`${prefix}_b2`, dim, 0);
    norm(`${prefix}_ffn`);
  };
  if (split) {
    t.push({ name: 'encoder_Wemb', shape: [srcSize, dim], kind: 'embedding', side: 'source' });
    t.push({ name: 'decoder_Wemb', shape: [trgSize, dim], kind: 'embedding', side: 'target' });
  } else t.push({ name: 'Wemb', shape: [srcSize, dim], kind: 'embedding', side: 'target' });
  for (let l = 1; l <= shape.enc; l++) {
    attention(`encoder_l${l}_self`);
    feedForward(`encoder_l${l}_ffn`);
  }
  for (let l = 1; l <= shape.dec; l++) {
    matrix(`decoder_l${l}_rnn_W`, dim, dim);
    matrix(`decoder_l${l}_rnn_Wf`, dim, dim);
    vector(`decoder_l${l}_rnn_bf`, dim, 0);
    norm(`decoder_l${l}_rnn_ffn`);
    attention(`decoder_l${l}_context`);
    feedForward(`decoder_l${l}_ffn`);
  }
  t.push({ name: 'decoder_ff_logit_out_b', shape: [1, trgSize], kind: 'logit-bias' });
  return t;
}

const pad256 = (n) => Math.ceil(n / 256) * 256;

/** Marian binary (src/common/binary.cpp): version, headers, names, shapes, offset to a 256-byte boundary, data. */
function marianBinary(items) {
  const names = items.map((i) => Buffer.from(`${i.name}\0`, 'utf8'));
  let headLen = 16 + items.length * 32;
  for (const n of names) headLen += n.length;
  for (const i of items) headLen += i.shape.length * 4;
  const dataStart = (Math.floor((headLen + 8) / 256) + 1) * 256;
  const total = dataStart + items.reduce((s, i) => s + i.bytes.length, 0);
  const out = Buffer.alloc(total);
  let pos = 0;
  out.writeBigUInt64LE(1n, pos);
  out.writeBigUInt64LE(BigInt(items.length), (pos += 8));
  pos += 8;
  items.forEach((item, k) => {
    out.writeBigUInt64LE(BigInt(names[k].length), pos);
    out.writeBigUInt64LE(BigInt(item.type), pos + 8);
    out.writeBigUInt64LE(BigInt(item.shape.length), pos + 16);
    out.writeBigUInt64LE(BigInt(item.bytes.length), pos + 24);
    pos += 32;
  });
  for (const n of names) pos += n.copy(out, pos);
  for (const item of items) for (const d of item.shape) pos = out.writeInt32LE(d, pos);
  out.writeBigUInt64LE(BigInt(dataStart - pos - 8), pos);
  pos = dataStart;
  for (const item of items) pos += item.bytes.copy(out, pos);
  return out;
}

/**
 * An intgemm8 tensor as marian-conv writes it: int8 values (transposed except Wemb), then the float quantMult.
 * `edit` may change the row-major int8 values (full scale ±127 stands for ±maxAbs) before they are laid out.
 */
function intgemm8(rows, cols, random, transpose, { maxAbs = Math.sqrt(6 / (rows + cols)), gain = 1, edit } = {}) {
  const bytes = Buffer.alloc(pad256(rows * cols + 4));
  const values = new Int8Array(bytes.buffer, bytes.byteOffset, rows * cols);
  const glorot = (gain * Math.sqrt(6 / (rows + cols))) / maxAbs; // Glorot-uniform range on the int8 scale
  for (let i = 0; i < rows * cols; i++) values[i] = Math.round((random() * 2 - 1) * 127 * glorot);
  edit?.(values);
  if (transpose) {
    const copy = Int8Array.from(values);
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) values[c * rows + r] = copy[r * cols + c];
  }
  bytes.writeFloatLE(127 / maxAbs, rows * cols);
  return bytes;
}

function float32(n, fill) {
  const bytes = Buffer.alloc(pad256(n * 4));
  for (let i = 0; i < n; i++) bytes.writeFloatLE(fill(i), i * 4);
  return bytes;
}

/**
 * Binary shortlist (src/data/shortlist.h, BinaryShortlistGenerator): header {magic, checksum, firstNum, bestNum,
 * wordToOffsetSize, shortListsSize}, uint64 offsets per source word, then sorted uint32 target ids.
 */
function shortlistBinary(vocabSize, pool) {
  const perWord = pool.length;
  // One pool for every source word: the shortlist of a batch is then the same whatever its sentences, so a sentence
  // translates the same alone or batched (generated weights have no margin between competing words).
  const list = Uint32Array.from(pool).sort();
  const lists = Array.from({ length: vocabSize }, () => list);
  const total = vocabSize * perWord;
  const buf = Buffer.alloc(48 + (vocabSize + 1) * 8 + total * 4);
  buf.writeBigUInt64LE(SHORTLIST_MAGIC, 0);
  buf.writeBigUInt64LE(BigInt(perWord), 16);
  buf.writeBigUInt64LE(BigInt(perWord), 24);
  buf.writeBigUInt64LE(BigInt(vocabSize + 1), 32);
  buf.writeBigUInt64LE(BigInt(total), 40);
  let offset = 0;
  const ids = 48 + (vocabSize + 1) * 8;
  lists.forEach((list, s) => {
    buf.writeBigUInt64LE(BigInt(offset), 48 + s * 8);
    for (let k = 0; k < list.length; k++) buf.writeUInt32LE(list[k], ids + (offset + k) * 4);
    offset += list.length;
  });
  buf.writeBigUInt64LE(BigInt(offset), 48 + vocabSize * 8);
  // Marian's util::hashMem over 64-bit words from firstNum to the end (boost-style hash_combine, identity hash).
  let seed = 0n;
  for (let p = 16; p + 8 <= buf.length; p += 8) {
    seed ^= (buf.readBigUInt64LE(p) + 0x9e3779b9n + ((seed << 6n) & MASK64) + (seed >> 2n)) & MASK64;
  }
  buf.writeBigUInt64LE(seed, 8);
  return buf;
}

// Tolk's own SentencePiece reader (built by `npm run build`); without a build only `--help` works.
const formats = await import(new URL('../dist/src/engines/bergamot/formats.js', import.meta.url).href).catch((err) => {
  if (err?.code === 'ERR_MODULE_NOT_FOUND') return undefined;
  throw err;
});

const LANGUAGE = '[a-z]{2,3}(?:-[A-Z][a-z]{3}|-[A-Z]{2})?';

/**
 * Writes the model directory; returns the file names (`model`, `lex`, and `vocab` or `srcvocab` + `trgvocab`).
 * `vocab` is a shared vocabulary; `srcVocab` + `trgVocab` a split one. `shape` is an architecture of ARCHITECTURES.
 */
export function makeTestModel({ vocab, srcVocab, trgVocab, pair, shape: shapeName = 'tiny', reduced = false, out, seed = 1 }) {
  const architecture = ARCHITECTURES[ALIASES[shapeName] ?? shapeName];
  if (!architecture) throw new Error(`--shape must be one of ${Object.keys(ARCHITECTURES).join(', ')}`);
  const shape = reduced ? { ...architecture, ...REDUCED } : architecture;
  const m = new RegExp(`^(${LANGUAGE})-(${LANGUAGE})$`).exec(pair ?? '');
  if (!m) throw new Error('--pair must look like en-de or en-zh-Hans');
  if (!out) throw new Error('--out is required');
  const split = Boolean(srcVocab || trgVocab);
  if (split ? !(srcVocab && trgVocab) || vocab : !vocab) throw new Error('give --vocab, or both --srcvocab and --trgvocab');
  // Mozilla's file names carry the primary language subtags: model.enzh… for en → zh-Hans.
  const code = `${m[1].split('-')[0]}${m[2].split('-')[0]}`;
  const readSentencePieces = formats?.readSentencePieces;
  if (!readSentencePieces) throw new Error('run `npm run build` first (the vocabulary reader is dist/src/engines/bergamot/formats.js)');
  const srcBuf = readFileSync(split ? srcVocab : vocab);
  const trgBuf = split ? readFileSync(trgVocab) : srcBuf;
  const srcPieces = readSentencePieces(srcBuf);
  const pieces = split ? readSentencePieces(trgBuf) : srcPieces;
  const random = seededRandom(seed);
  const eos = pieces.findIndex((p) => p.piece === '</s>');
  // Output words: ordinary word pieces that start with a letter (the output reads as words, never as marks).
  const candidates = [];
  pieces.forEach((p, i) => {
    if (p.type === 1 && /^▁\p{L}/u.test(p.piece)) candidates.push(i);
  });
  const pool = new Set();
  while (pool.size < shape.shortlist) pool.add(candidates[Math.floor(random() * candidates.length)]);
  // Only pool words and the end of sentence can win: source words, which Marian adds to a shared-vocabulary
  // shortlist, must not, or a sentence's output would depend on the other sentences of its batch.
  const logitBias = (i) => (i === eos ? EOS_BIAS : pool.has(i) ? random() * 0.2 : -10);
  // A clock for the end of sentence: the dimensions where the decoder input carries slow sine waves of its position
  // (Marian's sinusoidal embeddings, sin(t·ω) with ω from 0.02 to 0.06, rising over the first 25–75 steps) are kept
  // free of everything else, and only the end-of-sentence embedding reads them: its logit rises step by step until
  // it wins, so a sentence ends on its own, whatever else is in its batch.
  const half = shape.dim / 2;
  const clock = [];
  for (let i = 0; i < half; i++) {
    const w = Math.exp((-i * Math.log(10000)) / (half - 1));
    if (w >= 0.02 && w <= 0.06) clock.push(i);
  }
  // Reference: as many cosine dimensions of the slowest waves (≈ 1 at every step); reading them negatively cancels
  // the mean that every layer normalization subtracts.
  const reference = Array.from({ length: clock.length }, (_, k) => shape.dim - 1 - k);
  const free = [...clock, ...reference];
  const zeroColumns = (cols) => (values) => {
    for (let at = 0; at < values.length; at += cols) for (const c of free) values[at + c] = 0;
  };
  // The target embedding (the output layer too) carries the clock reader; a source-only one just leaves it free.
  const embedding = (side) => (values) => {
    zeroColumns(shape.dim)(values);
    if (side !== 'target') return;
    values.fill(0, eos * shape.dim, (eos + 1) * shape.dim);
    for (const c of clock) values[eos * shape.dim + c] = 127;
    for (const c of reference) values[eos * shape.dim + c] = -127;
  };
  const writesResidual = /^decoder_l\d+_(rnn_W|context_Wo|ffn_W2)$/;
  const tensors = tensorList(shape, srcPieces.length, pieces.length, split);
  const items = tensors.map((t) => {
    const [rows, cols] = t.shape;
    if (t.kind === 'embedding') return { ...t, type: TYPE_INTGEMM8, bytes: intgemm8(rows, cols, random, false, { maxAbs: EOS_WEIGHT, edit: embedding(t.side) }) };
    if (t.kind === 'matrix') {
      return { ...t, type: TYPE_INTGEMM8, bytes: intgemm8(rows, cols, random, true, writesResidual.test(t.name) ? { edit: zeroColumns(cols), gain: RESIDUAL_GAIN } : {}) };
    }
    if (t.kind === 'logit-bias') return { ...t, type: TYPE_FLOAT32, bytes: float32(t.shape[1], logitBias) };
    return { ...t, type: TYPE_FLOAT32, bytes: float32(t.shape[1], () => t.value) };
  });
  // Precomputed activation alphas (Firefox's `.intgemm.alphas.bin` models, run with int8shiftAlphaAll): the
  // quantization of activations then no longer depends on the other sentences of a batch. The output layer's
  // (`<embedding>_QuantMultA`) belongs to the target embedding it is tied to.
  const alpha = float32(1, () => 127 / 8);
  for (const t of tensors.filter((t) => t.kind === 'matrix')) items.push({ name: `${t.name}_QuantMultA`, shape: [1], type: TYPE_FLOAT32, bytes: alpha });
  items.push({ name: split ? 'decoder_Wemb_QuantMultA' : 'Wemb_QuantMultA', shape: [1], type: TYPE_FLOAT32, bytes: alpha });
  const yaml = Buffer.from(`${modelYaml(shape, srcPieces.length, pieces.length, split)}\0`, 'utf8');
  items.push({ name: 'special:model.yml', shape: [yaml.length], type: TYPE_INT8, bytes: Buffer.concat([yaml], pad256(yaml.length)) });
  mkdirSync(out, { recursive: true });
  const files = { model: `model.${code}.intgemm.alphas.bin`, lex: `lex.50.50.${code}.s2t.bin` };
  if (split) Object.assign(files, { srcvocab: `srcvocab.${code}.spm`, trgvocab: `trgvocab.${code}.spm` });
  else files.vocab = basename(vocab).startsWith('vocab.') ? basename(vocab) : `vocab.${code}.spm`;
  writeFileSync(join(out, files.model), marianBinary(items));
  writeFileSync(join(out, files.lex), shortlistBinary(srcPieces.length, [...pool]));
  if (split) {
    writeFileSync(join(out, files.srcvocab), srcBuf);
    writeFileSync(join(out, files.trgvocab), trgBuf);
  } else writeFileSync(join(out, files.vocab), srcBuf);
  return files;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        help: { type: 'boolean', short: 'h' },
        vocab: { type: 'string' },
        srcvocab: { type: 'string' },
        trgvocab: { type: 'string' },
        pair: { type: 'string' },
        shape: { type: 'string', default: 'tiny' },
        reduced: { type: 'boolean', default: false },
        out: { type: 'string' },
        seed: { type: 'string', default: '1' },
      },
    }));
  } catch (err) {
    console.error(`make-test-model: ${err.message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (!values.out || !values.pair || !(values.vocab || values.srcvocab)) {
    console.error(USAGE);
    process.exit(2);
  }
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) {
    console.error(`make-test-model: --seed must be an integer\n${USAGE}`);
    process.exit(2);
  }
  try {
    const { vocab, srcvocab: srcVocab, trgvocab: trgVocab, pair, shape, reduced, out } = values;
    const files = makeTestModel({ vocab, srcVocab, trgVocab, pair, shape, reduced, out, seed });
    console.log(`wrote ${out}: ${Object.values(files).join(', ')}`);
  } catch (err) {
    console.error(`make-test-model: ${err.message}`);
    process.exit(1);
  }
}
