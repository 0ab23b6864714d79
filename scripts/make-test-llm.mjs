#!/usr/bin/env node
// Writes a small language model for tests: the llama architecture in GGUF v3 with generated (seeded, deterministic)
// weights, a SentencePiece-style tokenizer (byte fallback, scored word pieces) and a ChatML chat template, so
// llama.cpp loads it, formats chats and generates from it. Its answers are nonsense: tests use it to prove that a
// request really went through the model, not to judge quality.
//   node scripts/make-test-llm.mjs --out FILE.gguf [--seed N] [--layers N] [--embd N]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { seededRandom } from './seeded-random.mjs';

const USAGE = `usage: node scripts/make-test-llm.mjs --out FILE.gguf [--seed N] [--layers N] [--embd N]
  --out FILE.gguf   where to write the model
  --seed N          seed of the generated weights (default 35)
  --layers N        transformer blocks (default 2)
  --embd N          embedding width (default 64)
`;
let values;
try {
  ({ values } = parseArgs({
    options: {
      out: { type: 'string' },
      seed: { type: 'string', default: '35' },
      layers: { type: 'string', default: '2' },
      embd: { type: 'string', default: '64' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (err) {
  process.stderr.write(`make-test-llm: ${err.message}\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (!values.out) {
  process.stderr.write(`make-test-llm: --out is required\n${USAGE}`);
  process.exit(2);
}

// ---- tokenizer: control tokens, 256 byte tokens, characters, then pieces of common words (every prefix of
// "▁word", so the SentencePiece merge reaches whole words) scored by length
const WORDS = `the be to of and a in that have it for not on with he as you do at this but his by from they we say her
she or an will my one all would there their what so up out if about who get which go me when make can like time no just
him know take people into year your good some could them see other than then now look only come its over think also back
after use two how our work first well way even new want because any these give day most us is are was were text texts
answer json object key keys value values translate translation formal informal register polite please hello world thank
thanks yes morning evening house car water book friend name city country language english german french spanish italian
dutch polish portuguese japanese russian correct spelling grammar improve rephrase keep markup tag placeholder same number
der die das und ist nicht ein eine ich du sie wir ihr haben sein mit auf für von zu den dem des bitte danke hallo guten
le la les et est un une je tu il elle nous vous pas de du des pour avec bonjour merci oui non el los las es y en por con
il lo gli che di da per non sono grazie buongiorno het een van en ik je wij jij niet dank goedemorgen jest nie się to
um uma os obrigado olá да нет привет спасибо`.split(/\s+/).filter(Boolean);

const SPACE = '\u2581';
const tokens = [];
const scores = [];
const types = []; // 1 normal, 2 unknown, 3 control, 6 byte
const add = (text, score, type) => {
  tokens.push(text);
  scores.push(score);
  types.push(type);
};
add('<unk>', 0, 2);
add('<s>', 0, 3);
add('</s>', 0, 3);
add('<|im_start|>', 0, 3);
add('<|im_end|>', 0, 3);
for (let b = 0; b < 256; b++) add(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, 0, 6);
const pieces = new Map();
const piece = (text) => pieces.set(text, Math.max(pieces.get(text) ?? -Infinity, -100 + [...text].length));
for (let c = 0x20; c < 0x7f; c++) {
  const ch = c === 0x20 ? SPACE : String.fromCharCode(c);
  piece(ch);
  if (c !== 0x20) piece(SPACE + ch);
}
for (const ch of 'äöüßéèêàçñóíúãõąęłńśźżабвгдеиклмнопрстуяхцчшщыьэю') piece(ch);
for (const word of WORDS) {
  const chars = [...(SPACE + word)];
  for (let n = 2; n <= chars.length; n++) piece(chars.slice(0, n).join(''));
}
for (const [text, score] of [...pieces].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) add(text, score, 1);

// ---- model shape: llama with tied output embeddings
const nVocab = tokens.length;
const nEmbd = Number(values.embd);
const nLayer = Number(values.layers);
const nHead = 4;
const nHeadKv = 2;
const nFf = nEmbd * 2;
const headDim = nEmbd / nHead;

const random = seededRandom(Number(values.seed));
const tensors = [];
const tensor = (name, dims, fill) => {
  const count = dims.reduce((a, b) => a * b, 1);
  const data = new Float32Array(count);
  for (let i = 0; i < count; i++) data[i] = fill();
  tensors.push({ name, dims, data });
};
const uniform = (scale) => () => (random() * 2 - 1) * scale;
const one = () => 1;
tensor('token_embd.weight', [nEmbd, nVocab], uniform(0.5));
tensor('output_norm.weight', [nEmbd], one);
for (let l = 0; l < nLayer; l++) {
  const w = 1 / Math.sqrt(nEmbd);
  tensor(`blk.${l}.attn_norm.weight`, [nEmbd], one);
  tensor(`blk.${l}.attn_q.weight`, [nEmbd, nEmbd], uniform(w));
  tensor(`blk.${l}.attn_k.weight`, [nEmbd, headDim * nHeadKv], uniform(w));
  tensor(`blk.${l}.attn_v.weight`, [nEmbd, headDim * nHeadKv], uniform(w));
  tensor(`blk.${l}.attn_output.weight`, [nEmbd, nEmbd], uniform(w));
  tensor(`blk.${l}.ffn_norm.weight`, [nEmbd], one);
  tensor(`blk.${l}.ffn_gate.weight`, [nEmbd, nFf], uniform(w));
  tensor(`blk.${l}.ffn_up.weight`, [nEmbd, nFf], uniform(w));
  tensor(`blk.${l}.ffn_down.weight`, [nFf, nEmbd], uniform(1 / Math.sqrt(nFf)));
}

const CHAT_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

// ---- GGUF v3 writer (little-endian): header, key/value metadata, tensor infos, aligned tensor data
const T = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9 };
const ALIGNMENT = 32;
const chunks = [];
let size = 0;
const push = (buf) => {
  chunks.push(buf);
  size += buf.length;
};
const u32 = (v) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  push(b);
};
const i32 = (v) => {
  const b = Buffer.alloc(4);
  b.writeInt32LE(v);
  push(b);
};
const u64 = (v) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(v));
  push(b);
};
const f32 = (v) => {
  const b = Buffer.alloc(4);
  b.writeFloatLE(v);
  push(b);
};
const str = (s) => {
  const b = Buffer.from(s, 'utf8');
  u64(b.length);
  push(b);
};
const scalarWriters = { [T.UINT32]: u32, [T.INT32]: i32, [T.FLOAT32]: f32, [T.BOOL]: (v) => push(Buffer.from([v ? 1 : 0])), [T.STRING]: str };

const metadata = [
  ['general.architecture', T.STRING, 'llama'],
  ['general.name', T.STRING, `tolk-test-llm-seed${values.seed}`],
  ['general.license', T.STRING, 'MIT'],
  ['general.alignment', T.UINT32, ALIGNMENT],
  ['general.file_type', T.UINT32, 0],
  ['llama.context_length', T.UINT32, 4096],
  ['llama.embedding_length', T.UINT32, nEmbd],
  ['llama.block_count', T.UINT32, nLayer],
  ['llama.feed_forward_length', T.UINT32, nFf],
  ['llama.attention.head_count', T.UINT32, nHead],
  ['llama.attention.head_count_kv', T.UINT32, nHeadKv],
  ['llama.attention.layer_norm_rms_epsilon', T.FLOAT32, 1e-5],
  ['llama.rope.dimension_count', T.UINT32, headDim],
  ['llama.rope.freq_base', T.FLOAT32, 10000],
  ['llama.vocab_size', T.UINT32, nVocab],
  ['tokenizer.ggml.model', T.STRING, 'llama'],
  ['tokenizer.ggml.tokens', [T.ARRAY, T.STRING], tokens],
  ['tokenizer.ggml.scores', [T.ARRAY, T.FLOAT32], scores],
  ['tokenizer.ggml.token_type', [T.ARRAY, T.INT32], types],
  ['tokenizer.ggml.bos_token_id', T.UINT32, 1],
  ['tokenizer.ggml.eos_token_id', T.UINT32, 4],
  ['tokenizer.ggml.unknown_token_id', T.UINT32, 0],
  ['tokenizer.ggml.add_bos_token', T.BOOL, false],
  ['tokenizer.ggml.add_eos_token', T.BOOL, false],
  ['tokenizer.chat_template', T.STRING, CHAT_TEMPLATE],
];

push(Buffer.from('GGUF', 'ascii'));
u32(3);
u64(tensors.length);
u64(metadata.length);
for (const [key, type, value] of metadata) {
  str(key);
  if (Array.isArray(type)) {
    u32(T.ARRAY);
    u32(type[1]);
    u64(value.length);
    for (const item of value) scalarWriters[type[1]](item);
  } else {
    u32(type);
    scalarWriters[type](value);
  }
}
const align = (n) => Math.ceil(n / ALIGNMENT) * ALIGNMENT;
let offset = 0;
for (const t of tensors) {
  str(t.name);
  u32(t.dims.length);
  for (const d of t.dims) u64(d);
  u32(0); // GGML_TYPE_F32
  u64(offset);
  t.offset = offset;
  offset = align(offset + t.data.byteLength);
}
push(Buffer.alloc(align(size) - size));
const dataStart = size;
for (const t of tensors) {
  push(Buffer.alloc(dataStart + t.offset - size));
  push(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
}
writeFileSync(values.out, Buffer.concat(chunks));
console.log(`${values.out}: llama, ${nLayer} layers, ${nEmbd} wide, ${nVocab} tokens, ${(size / 1e6).toFixed(2)} MB`);
