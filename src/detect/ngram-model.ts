// A character n-gram naive-Bayes model of the 33 detection languages, for short and mid-length text, where eld's
// scores alone are too close to call between neighbours. Trained by scripts/train-detect-ngrams.mjs on FLORES dev
// sentences 0–499, its short-text confidence and mid-length margin cross-fitted on them (assets/detect-ngrams.tsv);
// never trained at run time.

import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ShortTextCalibration } from './short-text-confidence.js';

/**
 * The model as the training script writes it: a first line of JSON with everything but `grams`, then one line per
 * feature, `feature<TAB>language index<SPACE>count<SPACE>…` (read line by line: one JSON object with 160,000 keys
 * left ~60 MB of garbage in the heap).
 */
export interface NgramModelData {
  /** Longest character n-gram; words are features of order 0. */
  maxN: number;
  /** Additive smoothing. */
  alpha: number;
  langs: string[];
  /** Per language, feature count per order (0 = words, 1..maxN). */
  totals: number[][];
  /** Distinct features per order. */
  vocab: number[];
  /** feature → [language index, count, language index, count, …]. */
  grams: Map<string, number[]>;
  /** Weight of eld's log score (× letters) added to the model's log-likelihood. */
  eldWeight: number;
  /** When short text (under 20 letters) is a success: the learned confidence (short-text-confidence.ts); null: never. */
  shortTextCalibration: ShortTextCalibration | null;
  /** Lead that lets the model overrule eld on mid-length text (20 letters and up; calibrated on 50-character prefixes). */
  minMarginMid?: number | null;
}

export const NGRAM_MODEL_FILE = fileURLToPath(new URL('../../../assets/detect-ngrams.tsv', import.meta.url));

/** Text of at most this many letters has its own success threshold (ShortTextCalibration.minLogitFew). */
export const FEW_LETTERS = 10;

/** Characters of a text the model looks at (only short text is asked about). */
const MAX_INPUT = 200;

const NOT_LETTERS = /[\p{P}\p{S}\p{N}\s]+/gu;

function normalise(text: string): string {
  return text.slice(0, MAX_INPUT).toLowerCase().replace(NOT_LETTERS, ' ').trim();
}

/** Calls `visit` with each feature of a text: its words, and its character 1..maxN-grams with a space at each word edge. */
export function forEachNgramFeature(text: string, maxN: number, visit: (feature: string, order: number) => void): void {
  const words = normalise(text);
  if (words === '') return;
  for (const w of words.split(' ')) visit(`W:${w}`, 0);
  const cps = Array.from(` ${words} `);
  for (let i = 0; i < cps.length; i++) {
    let g = '';
    for (let n = 1; n <= maxN && i + n <= cps.length; n++) {
      g += cps[i + n - 1]!;
      if (g !== ' ') visit(g, n);
    }
  }
}

/** The features of a text (see forEachNgramFeature). */
export function ngramFeatures(text: string, maxN: number): string[] {
  const out: string[] = [];
  forEachNgramFeature(text, maxN, (f) => out.push(f));
  return out;
}

export function featureOrder(feature: string): number {
  return feature.startsWith('W:') ? 0 : Array.from(feature).length;
}

export function serialiseNgramModel(data: NgramModelData): string {
  const { grams, ...head } = data;
  const lines = [JSON.stringify(head)];
  for (const [f, pairs] of grams) lines.push(`${f}\t${pairs.join(' ')}`);
  return `${lines.join('\n')}\n`;
}

export function parseNgramModel(text: string): NgramModelData {
  const firstEnd = text.indexOf('\n');
  const head = JSON.parse(text.slice(0, firstEnd)) as Omit<NgramModelData, 'grams'>;
  const grams = new Map<string, number[]>();
  let start = firstEnd + 1;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const tab = text.indexOf('\t', start);
    if (tab > start && tab < end) grams.set(text.slice(start, tab), text.slice(tab + 1, end).split(' ').map(Number));
    start = end + 1;
  }
  return { ...head, grams };
}

/**
 * Looked up per feature of every short text, so character n-grams are keyed by numbers, not strings: each character
 * the model knows has an index from 1, and an n-gram is its indices as digits in base `base` (unique across lengths).
 */
export class NgramModel {
  readonly langs: readonly string[];
  readonly eldWeight: number;
  readonly shortTextCalibration: ShortTextCalibration | undefined;
  readonly minMarginMid: number;
  private readonly maxN: number;
  /** Feature → its slice of `langOf`/`deltas`, as offset × 64 + length (a feature has at most 33 languages). */
  private readonly words = new Map<string, number>();
  private readonly grams = new Map<number, number>();
  /** Per (feature, language that had it): the language's index and log((count + α) / α), what the feature adds for
   *  that language over one that never had it. Flat arrays: one object per feature cost ~100 MB. */
  private readonly langOf: Uint8Array;
  private readonly deltas: Float32Array;
  private readonly charIndex = new Map<number, number>();
  private readonly base: number;
  /** Per order, per language: log(α / (total + α·V)), the log-probability of a feature the language never had. */
  private readonly unseen: Float64Array[];

  constructor(data: NgramModelData) {
    this.langs = data.langs;
    this.eldWeight = data.eldWeight;
    const calibration = data.shortTextCalibration;
    // JSON writes an unreachable threshold (Infinity) as null
    this.shortTextCalibration = calibration
      ? { ...calibration, minLogit: calibration.minLogit ?? Infinity, minLogitFew: calibration.minLogitFew ?? Infinity }
      : undefined;
    this.minMarginMid = data.minMarginMid ?? Infinity;
    this.maxN = data.maxN;
    const { alpha } = data;
    this.unseen = data.vocab.map((v, order) => Float64Array.from(data.langs, (_, li) => Math.log(alpha / ((data.totals[li]?.[order] ?? 0) + alpha * v))));
    for (const f of data.grams.keys()) {
      if (f.startsWith('W:')) continue;
      for (const ch of f) {
        const cp = ch.codePointAt(0)!;
        if (!this.charIndex.has(cp)) this.charIndex.set(cp, this.charIndex.size + 1);
      }
    }
    this.base = this.charIndex.size + 1;
    if (this.base ** this.maxN > Number.MAX_SAFE_INTEGER) throw new Error('n-gram model: too many characters for numeric keys');
    let total = 0;
    for (const pairs of data.grams.values()) total += pairs.length / 2;
    this.langOf = new Uint8Array(total);
    this.deltas = new Float32Array(total);
    let offset = 0;
    for (const [f, pairs] of data.grams) {
      const n = pairs.length / 2;
      for (let k = 0; k < n; k++) {
        this.langOf[offset + k] = pairs[2 * k]!;
        this.deltas[offset + k] = Math.log((pairs[2 * k + 1]! + alpha) / alpha);
      }
      const slot = offset * 64 + n;
      offset += n;
      if (f.startsWith('W:')) {
        this.words.set(f.slice(2), slot);
        continue;
      }
      let key = 0;
      for (const ch of f) key = key * this.base + this.charIndex.get(ch.codePointAt(0)!)!;
      this.grams.set(key, slot);
    }
  }

  /** Loading is CPU work on the caller's thread (~1 s): the event loop runs between reading, parsing and indexing. */
  static async load(file = NGRAM_MODEL_FILE): Promise<NgramModel> {
    const data = parseNgramModel(await readFile(file, 'utf8'));
    await new Promise((resolve) => setImmediate(resolve));
    return new NgramModel(data);
  }

  /** Log-likelihood of the text per language (in `langs` order); features the model never saw are left out. */
  logLikelihoods(text: string): Float64Array {
    const scores = new Float64Array(this.langs.length);
    const known = new Array<number>(this.maxN + 1).fill(0);
    const add = (slot: number | undefined, order: number): void => {
      if (slot === undefined) return;
      known[order]!++;
      const start = Math.floor(slot / 64);
      const end = start + (slot % 64);
      for (let k = start; k < end; k++) scores[this.langOf[k]!]! += this.deltas[k]!;
    };
    const words = normalise(text);
    if (words !== '') {
      for (const w of words.split(' ')) add(this.words.get(w), 0);
      const padded = ` ${words} `;
      const space = this.charIndex.get(0x20) ?? -1;
      const chars: number[] = [];
      for (const ch of padded) chars.push(this.charIndex.get(ch.codePointAt(0)!) ?? 0);
      for (let i = 0; i < chars.length; i++) {
        let key = 0;
        for (let n = 1; n <= this.maxN && i + n <= chars.length; n++) {
          const c = chars[i + n - 1]!;
          // a character the model never saw: no longer n-gram from here is known either
          if (c === 0) break;
          key = key * this.base + c;
          if (n === 1 && c === space) continue;
          add(this.grams.get(key), n);
        }
      }
    }
    // every known feature first counts as unseen in every language; the deltas above add what each language saw
    for (let order = 0; order < known.length; order++) {
      const n = known[order]!;
      if (n === 0) continue;
      const unseen = this.unseen[order]!;
      for (let li = 0; li < scores.length; li++) scores[li]! += n * unseen[li]!;
    }
    return scores;
  }
}
