// Whisper's encoder and decoder as the ONNX graphs sherpa-onnx runs (the computation and the inputs/outputs of its
// scripts/whisper/export-onnx.py): the encoder takes a mel spectrogram of any length up to 30 s and returns every
// decoder layer's cross-attention keys and values; the decoder takes tokens, the self-attention caches (updated at
// `offset`) and those cross keys/values, and returns logits and the updated caches. Weights are generated.
import type { WhisperShape } from './whisper-model.js';
import { FLOAT, float, Graph, int, INT64, ints } from './onnx-graph.js';

/** LayerNormalization (opset 17) over the last axis, with its own (identity) scale and bias like a fresh model. */
function layerNorm(g: Graph, x: string, prefix: string, n: number): string {
  const scale = g.weight(`${prefix}.weight`, [n], 1);
  const bias = g.weight(`${prefix}.bias`, [n], 0);
  return g.op('LayerNormalization', [x, scale, bias], { axis: int(-1), epsilon: float(1e-5) });
}

/** x @ W (+ b): the weight is stored [in, out] so no transpose is needed at run time. */
function linear(g: Graph, x: string, prefix: string, nIn: number, nOut: number, bias = true): string {
  const y = g.op('MatMul', [x, g.weight(`${prefix}.weight`, [nIn, nOut])]);
  return bias ? g.op('Add', [y, g.weight(`${prefix}.bias`, [nOut])]) : y;
}

/** Exact GELU, as PyTorch's F.gelu exports it: 0.5·x·(1 + erf(x/√2)). */
function gelu(g: Graph, x: string): string {
  const erf = g.op('Erf', [g.op('Div', [x, g.f32([Math.SQRT2])])]);
  return g.op('Mul', [g.op('Mul', [x, g.op('Add', [erf, g.f32([1])])]), g.f32([0.5])]);
}

/** [N, T, H·D] → heads, transposed by `perm` ([0,2,1,3]: [N, H, T, D]; [0,2,3,1]: [N, H, D, T]). */
function heads(g: Graph, x: string, nHead: number, headDim: number, perm: number[]): string {
  return g.op('Transpose', [g.op('Reshape', [x, g.i64([0, 0, nHead, headDim])])], { perm: ints(perm) });
}

/** Scaled dot-product attention of every head, optionally masked; returns [N, Tq, H·D]. */
function attend(g: Graph, q: string, k: string, v: string, nState: number, nHead: number, mask?: string): string {
  const d = nState / nHead;
  // Whisper scales q and k by d^-¼ each
  const s = g.f32([d ** -0.25]);
  const qh = heads(g, g.op('Mul', [q, s]), nHead, d, [0, 2, 1, 3]);
  const kh = heads(g, g.op('Mul', [k, s]), nHead, d, [0, 2, 3, 1]);
  const vh = heads(g, v, nHead, d, [0, 2, 1, 3]);
  let qk = g.op('MatMul', [qh, kh]);
  if (mask) qk = g.op('Add', [qk, mask]);
  const wv = g.op('MatMul', [g.op('Softmax', [qk], { axis: int(-1) }), vh]);
  return g.op('Reshape', [g.op('Transpose', [wv], { perm: ints([0, 2, 1, 3]) }), g.i64([0, 0, nState])]);
}

function mlp(g: Graph, x: string, prefix: string, n: number): string {
  const h = gelu(g, linear(g, layerNorm(g, x, `${prefix}.mlp_ln`, n), `${prefix}.mlp.0`, n, 4 * n));
  return g.op('Add', [x, linear(g, h, `${prefix}.mlp.2`, 4 * n, n)]);
}

/** Dimension `axis` of x's shape, as a 1-element int64 tensor. */
const dimOf = (g: Graph, x: string, axis: number) => g.op('Slice', [g.op('Shape', [x]), g.i64([axis]), g.i64([axis + 1]), g.i64([0])]);

/** mel [N, n_mels, T] → n_layer_cross_k, n_layer_cross_v [n_text_layer, N, T/2, n_text_state]. */
export function whisperEncoder(s: WhisperShape, seed: number): Graph {
  const g = new Graph('whisper-encoder', seed);
  const a = s.audioState;
  const mel = g.input('mel', FLOAT, ['n_audio', s.mels, 'T']);
  const conv1 = g.op('Conv', [mel, g.weight('encoder.conv1.weight', [a, s.mels, 3]), g.weight('encoder.conv1.bias', [a])], {
    kernel_shape: ints([3]),
    pads: ints([1, 1]),
  });
  const conv2 = g.op('Conv', [gelu(g, conv1), g.weight('encoder.conv2.weight', [a, a, 3]), g.weight('encoder.conv2.bias', [a])], {
    kernel_shape: ints([3]),
    pads: ints([1, 1]),
    strides: ints([2]),
  });
  let x = g.op('Transpose', [gelu(g, conv2)], { perm: ints([0, 2, 1]) });
  // sherpa-onnx's export takes the first T/2 positions instead of requiring the whole 30 s (1,500)
  const pos = g.weight('encoder.positional_embedding', [s.audioCtx, a]);
  x = g.op('Add', [x, g.op('Slice', [pos, g.i64([0]), dimOf(g, x, 1), g.i64([0])])]);
  for (let l = 0; l < s.audioLayer; l++) {
    const p = `encoder.blocks.${l}`;
    const h = layerNorm(g, x, `${p}.attn_ln`, a);
    const q = linear(g, h, `${p}.attn.query`, a, a);
    const k = linear(g, h, `${p}.attn.key`, a, a, false);
    const v = linear(g, h, `${p}.attn.value`, a, a);
    x = g.op('Add', [x, linear(g, attend(g, q, k, v, a, s.audioHead), `${p}.attn.out`, a, a)]);
    x = mlp(g, x, p, a);
  }
  x = layerNorm(g, x, 'encoder.ln_post', a);
  // each decoder layer's cross-attention keys and values, computed once per utterance
  const ks: string[] = [];
  const vs: string[] = [];
  for (let l = 0; l < s.textLayer; l++) {
    const p = `decoder.blocks.${l}.cross_attn`;
    ks.push(g.op('Unsqueeze', [linear(g, x, `${p}.key`, a, s.textState, false), g.i64([0])]));
    vs.push(g.op('Unsqueeze', [linear(g, x, `${p}.value`, a, s.textState), g.i64([0])]));
  }
  g.op('Concat', ks, { axis: int(0) }, 'n_layer_cross_k');
  g.op('Concat', vs, { axis: int(0) }, 'n_layer_cross_v');
  const out = [s.textLayer, 'n_audio', 'T_audio', s.textState];
  g.output('n_layer_cross_k', FLOAT, out);
  g.output('n_layer_cross_v', FLOAT, out);
  return g;
}

/**
 * tokens [N, n] at positions offset…offset+n-1, self k/v caches [n_text_layer, N, n_text_ctx, n_text_state], cross
 * k/v → logits [N, n, n_vocab] and the caches with those positions written.
 */
export function whisperDecoder(s: WhisperShape, seed: number): Graph {
  const g = new Graph('whisper-decoder', seed);
  const t = s.textState;
  const tokens = g.input('tokens', INT64, ['n_audio', 'n_tokens']);
  const cache = [s.textLayer, 'n_audio', s.textCtx, t];
  const inK = g.input('in_n_layer_self_k_cache', FLOAT, cache);
  const inV = g.input('in_n_layer_self_v_cache', FLOAT, cache);
  const crossK = g.input('n_layer_cross_k', FLOAT, [s.textLayer, 'n_audio', 'T_audio', t]);
  const crossV = g.input('n_layer_cross_v', FLOAT, [s.textLayer, 'n_audio', 'T_audio', t]);
  const offset = g.input('offset', INT64, [1]);

  const end = g.op('Add', [offset, dimOf(g, tokens, 1)]);
  const embedding = g.weight('decoder.token_embedding.weight', [s.nVocab, t]);
  const pos = g.weight('decoder.positional_embedding', [s.textCtx, t]);
  let x = g.op('Add', [g.op('Gather', [embedding, tokens]), g.op('Slice', [pos, offset, end, g.i64([0])])]);

  // causal mask [n, end]: the token at position offset+i sees positions 0…offset+i
  const scalar = (v: string) => g.op('Squeeze', [v, g.i64([0])]);
  const one = g.i64([1], []);
  const queryPos = g.op('Unsqueeze', [g.op('Range', [scalar(offset), scalar(end), one]), g.i64([1])]);
  const keyPos = g.op('Range', [g.i64([0], []), scalar(end), one]);
  const mask = g.op('Where', [g.op('Greater', [keyPos, queryPos]), g.f32([-Infinity]), g.f32([0])]);

  const outK: string[] = [];
  const outV: string[] = [];
  // the cache of one layer with this call's keys (or values) written at offset…end
  const write = (c: string, l: number, fresh: string) => {
    const layer = g.op('Gather', [c, g.i64([l], [])], { axis: int(0) });
    const before = g.op('Slice', [layer, g.i64([0]), offset, g.i64([1])]);
    const after = g.op('Slice', [layer, end, g.i64([s.textCtx]), g.i64([1])]);
    return g.op('Concat', [before, fresh, after], { axis: int(1) });
  };
  for (let l = 0; l < s.textLayer; l++) {
    const p = `decoder.blocks.${l}`;
    const h = layerNorm(g, x, `${p}.attn_ln`, t);
    const q = linear(g, h, `${p}.attn.query`, t, t);
    const kCache = write(inK, l, linear(g, h, `${p}.attn.key`, t, t, false));
    const vCache = write(inV, l, linear(g, h, `${p}.attn.value`, t, t));
    outK.push(g.op('Unsqueeze', [kCache, g.i64([0])]));
    outV.push(g.op('Unsqueeze', [vCache, g.i64([0])]));
    const k = g.op('Slice', [kCache, g.i64([0]), end, g.i64([1])]);
    const v = g.op('Slice', [vCache, g.i64([0]), end, g.i64([1])]);
    x = g.op('Add', [x, linear(g, attend(g, q, k, v, t, s.textHead, mask), `${p}.attn.out`, t, t)]);

    const hc = layerNorm(g, x, `${p}.cross_attn_ln`, t);
    const qc = linear(g, hc, `${p}.cross_attn.query`, t, t);
    const ck = g.op('Gather', [crossK, g.i64([l], [])], { axis: int(0) });
    const cv = g.op('Gather', [crossV, g.i64([l], [])], { axis: int(0) });
    x = g.op('Add', [x, linear(g, attend(g, qc, ck, cv, t, s.textHead), `${p}.cross_attn.out`, t, t)]);
    x = mlp(g, x, p, t);
  }
  x = layerNorm(g, x, 'decoder.ln', t);
  // logits against the token embedding, computed as the export does: (E · xᵀ)ᵀ, so E is not copied transposed
  const logits = g.op('MatMul', [embedding, g.op('Transpose', [x], { perm: ints([0, 2, 1]) })]);
  g.op('Transpose', [logits], { perm: ints([0, 2, 1]) }, 'logits');
  g.op('Concat', outK, { axis: int(0) }, 'out_n_layer_self_k_cache');
  g.op('Concat', outV, { axis: int(0) }, 'out_n_layer_self_v_cache');
  g.output('logits', FLOAT, ['n_audio', 'n_tokens', s.nVocab]);
  g.output('out_n_layer_self_k_cache', FLOAT, cache);
  g.output('out_n_layer_self_v_cache', FLOAT, cache);
  return g;
}
