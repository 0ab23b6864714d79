// Writes a Whisper model in sherpa-onnx's format (encoder.onnx, decoder.onnx, tokens.txt, as its
// scripts/whisper/export-onnx.py exports the public sherpa-onnx-whisper-tiny.en) with seeded generated float32
// weights: TINY_EN gives the real model's shape and speed (its words mean nothing), TEST_SHAPE a small fast one.
// Vocabulary: whisper-model.ts's generated pieces, English-only (51,864 tokens, ids as tiny.en's) or, for a shape with
// MULTILINGUAL_VOCAB, multilingual (51,865: one more text token, 99 language tokens as tiny's).
// Run directly: node dist/test/helpers/sherpa-whisper-model.js OUT_DIR [tiny].
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SherpaWhisperFiles } from '../../src/voice/stt/sherpa-whisper-files.js';
import { WHISPER_LANGUAGES } from '../../src/voice/stt/whisper-base.js';
import { whisperDecoder, whisperEncoder } from './sherpa-whisper-graphs.js';
import { TEST_SHAPE, TEXT_TOKENS, TINY_EN, vocabularyPiece, type WhisperShape } from './whisper-model.js';

/** LayerNormalization is an opset-17 operator; the public export uses 17 too. */
const OPSET = 17;

/** A multilingual model's vocabulary size (tiny, base, …): 50,257 text tokens before the special ones. */
export const MULTILINGUAL_VOCAB = 51865;
const textTokens = (s: WhisperShape) => (s.nVocab === MULTILINGUAL_VOCAB ? TEXT_TOKENS + 1 : TEXT_TOKENS);
/** Whisper's 99 languages (before large-v3's Cantonese), in the order of their tokens. */
const LANGUAGE_CODES = WHISPER_LANGUAGES.filter((l) => l !== 'yue');

/** The special tokens of a Whisper vocabulary, after its text tokens (`textTokens`: 50,256 English-only, else 50,257). */
export function specialTokens(textTokens = TEXT_TOKENS) {
  const eot = textTokens;
  const sot = eot + 1;
  // 99 language tokens follow start-of-transcript, then the task and control tokens
  const translate = sot + 1 + 99;
  return {
    eot,
    sot,
    translate,
    transcribe: translate + 1,
    sotLm: translate + 2,
    sotPrev: translate + 3,
    noSpeech: translate + 4,
    noTimestamps: translate + 5,
  };
}

/** The encoder's metadata, which sherpa-onnx's loader reads (offline-whisper-model.cc). */
function metadata(s: WhisperShape): Record<string, string | number> {
  const t = specialTokens(textTokens(s));
  const multilingual = s.nVocab === MULTILINGUAL_VOCAB;
  return {
    model_type: 'whisper-tiny.en-shaped-generated',
    version: '1',
    maintainer: 'tolk-test',
    n_mels: s.mels,
    n_audio_ctx: s.audioCtx,
    n_audio_state: s.audioState,
    n_audio_head: s.audioHead,
    n_audio_layer: s.audioLayer,
    n_vocab: s.nVocab,
    n_text_ctx: s.textCtx,
    n_text_state: s.textState,
    n_text_head: s.textHead,
    n_text_layer: s.textLayer,
    // whisper's tokenizer of a multilingual model defaults to English and transcription: [sot, en, transcribe]
    sot_sequence: multilingual ? [t.sot, t.sot + 1, t.transcribe].join(',') : String(t.sot),
    all_language_tokens: multilingual ? LANGUAGE_CODES.map((_, i) => t.sot + 1 + i).join(',') : '',
    all_language_codes: multilingual ? LANGUAGE_CODES.join(',') : '',
    sot: t.sot,
    sot_index: 0,
    eot: t.eot,
    // the id of " " (a byte token)
    blank_id: 32,
    is_multilingual: multilingual ? 1 : 0,
    no_speech: t.noSpeech,
    transcribe: t.transcribe,
    translate: t.translate,
    sot_prev: t.sotPrev,
    sot_lm: t.sotLm,
    no_timestamps: t.noTimestamps,
  };
}

/** tokens.txt: one "base64(piece) id" line per text token, as the export writes tiktoken's ranks. */
export function tokensText(count = TEXT_TOKENS): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(`${vocabularyPiece(i).toString('base64')} ${i}`);
  return `${lines.join('\n')}\n`;
}

export function writeSherpaWhisperModel(dir: string, shape: WhisperShape = TEST_SHAPE, seed = 1): SherpaWhisperFiles {
  const text = textTokens(shape);
  if (shape.nVocab !== text + 1 + 1 + 99 + 6 + 1501) throw new Error('only the vocabularies of 51,864 (English-only) and 51,865 tokens are generated');
  mkdirSync(dir, { recursive: true });
  const files = { encoder: join(dir, 'encoder.onnx'), decoder: join(dir, 'decoder.onnx'), tokens: join(dir, 'tokens.txt') };
  // different seeds for the two graphs, so their weights are not the same numbers
  writeFileSync(files.encoder, whisperEncoder(shape, seed).encode(OPSET, metadata(shape)));
  writeFileSync(files.decoder, whisperDecoder(shape, seed + 1).encode(OPSET, {}));
  writeFileSync(files.tokens, tokensText(text));
  return files;
}

if (process.argv[1]?.endsWith('sherpa-whisper-model.js') && process.argv[2]) {
  writeSherpaWhisperModel(process.argv[2], process.argv[3] === 'tiny' ? TINY_EN : TEST_SHAPE);
}
