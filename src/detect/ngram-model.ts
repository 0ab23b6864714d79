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
  /** Weight of eld's log score (× letters) added to the model's log-likelihood on short text (under 20 letters). */
  eldWeight: number;
  /** The same on mid-length text (20 letters and up); absent: eldWeight. */
  eldWeightMid?: number | null;
  /** Vote score behind the best within which an unsure text's other languages are candidates; absent: 10. */
  candidateWindow?: number | null;
  /** When short text (under 20 letters) is a success: the learned confidence (short-text-confidence.ts); null: never. */
  shortTextCalibration: ShortTextCalibration | null;
  /** Lead that lets the model overrule eld on mid-length text (20 letters and up; calibrated on 50-character prefixes). */
  minMarginMid?: number | null;
  /**
   * Weight of each order's log-likelihood (0 = words, 1..maxN) in the vote, fit discriminatively: naive Bayes counts
   * overlapping n-grams as independent evidence. Baked into the features at load. Absent: all 1.
   */
  orderWeights?: number[];
  /** Per language (in `langs` order), added to the vote when eld scored the text: its learned prior. Absent: none. */
  voteBias?: number[];
}

export const NGRAM_MODEL_FILE = fileURLToPath(new URL('../../../assets/detect-ngrams.tsv', import.meta.url));

/** Text of at most this many letters has its own success threshold (ShortTextCalibration.minLogitFew). */
export const FEW_LETTERS = 10;

/**
 * Short text of fewer letters is never a success: a lone word of two or three letters ("die": German, Dutch,
 * Afrikaans) is too rare in the prefixes the confidence is fit on for its logit to be trusted there.
 */
export const MIN_SURE_LETTERS = 4;

/** Int32 fields per trie transition (NgramModel.edges). */
const EDGE_FIELDS = 4;

/** Slots of the trie's first transition table (a power of two; it doubles as the trie grows). */
const MIN_EDGE_SLOTS = 1024;

/** A transition table of `slots` free slots (key −1). */
function freeEdges(slots: number): Int32Array {
  const edges = new Int32Array(slots * EDGE_FIELDS);
  for (let at = 0; at < edges.length; at += EDGE_FIELDS) edges[at] = -1;
  return edges;
}

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

/** A model's features in some order, each with its [language index, count, …] pairs (read before the next is met). */
export type NgramFeatures = Iterable<readonly [feature: string, pairs: ArrayLike<number>]>;

/** What the NgramModel is built from: the data, with the features as any iterable that can be walked twice. */
export type NgramModelSource = Omit<NgramModelData, 'grams'> & { grams: NgramFeatures };

/**
 * The model file's head and, as an iterable that reads the text again on each walk, its features: built from it, the
 * model keeps only its typed arrays (a Map of 248,203 arrays left ~60 MB in the detector thread's heap after load).
 */
export function readNgramModel(text: string): NgramModelSource {
  const firstEnd = text.indexOf('\n');
  const head = JSON.parse(text.slice(0, firstEnd)) as Omit<NgramModelData, 'grams'>;
  return { ...head, grams: { [Symbol.iterator]: () => tsvFeatures(text, firstEnd + 1) } };
}

/** Yields each `feature<TAB>numbers` line from `start` on, the numbers in one reused array. */
function* tsvFeatures(text: string, start: number): Generator<readonly [string, ArrayLike<number>]> {
  const pairs: number[] = [];
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const tab = text.indexOf('\t', start);
    if (tab > start && tab < end) {
      pairs.length = 0;
      for (let from = tab + 1; from < end; ) {
        let to = text.indexOf(' ', from);
        if (to < 0 || to > end) to = end;
        pairs.push(Number(text.slice(from, to)));
        from = to + 1;
      }
      yield [text.slice(start, tab), pairs];
    }
    start = end + 1;
  }
}

/**
 * Looked up per feature of every short text, so character n-grams are found by walking a trie whose transitions are an
 * open-addressing table of small-integer keys (parent node × base + character index), not by hashing strings: each
 * character the model knows has an index from 1, and every prefix of a known n-gram is a node.
 */
export class NgramModel {
  readonly langs: readonly string[];
  readonly eldWeight: number;
  readonly eldWeightMid: number | undefined;
  readonly candidateWindow: number;
  /** Per language, added to the vote (model + eld) when eld scored the text: it was fit with eld's scores. */
  readonly voteBias: Float64Array | undefined;
  readonly shortTextCalibration: ShortTextCalibration | undefined;
  readonly minMarginMid: number;
  private readonly maxN: number;
  /** Word → its slice of `features`, as offset × 64 + length (a feature has at most 33 languages). */
  private readonly words = new Map<string, number>();
  /** Per (feature, language that had it), side by side: the language's index and log((count + α) / α), what the
   *  feature adds for that language over one that never had it. Flat: one object per feature cost ~100 MB; side by
   *  side: one cache miss per entry, not two. */
  private readonly features: Float32Array;
  /** Character index of each UTF-16 code unit below 0x10000 (0: unknown); `astralIndex` for the rest. */
  private readonly bmpIndex = new Uint16Array(0x10000);
  private readonly astralIndex = new Map<number, number>();
  private readonly base: number;
  /**
   * Trie transitions, EDGE_FIELDS per slot (one cache line per lookup): key (node × base + character index, −1: free),
   * child node (node 0 is the root), and the child's feature: its offset in `features` and its number of languages
   * (0: the prefix is not a feature itself).
   */
  private edges: Int32Array;
  private edgeMask: number;
  /** Reused by every call (detection is synchronous): per order, the known features met; the text's character indices. */
  private readonly knownScratch: Int32Array;
  private charsScratch = new Int32Array(2 * MAX_INPUT + 2);
  /** Per order, per language: log(α / (total + α·V)), the log-probability of a feature the language never had. */
  private readonly unseen: Float64Array[];

  constructor(data: NgramModelSource) {
    this.langs = data.langs;
    this.eldWeight = data.eldWeight;
    this.eldWeightMid = data.eldWeightMid ?? undefined;
    this.candidateWindow = data.candidateWindow ?? 10;
    const calibration = data.shortTextCalibration;
    // JSON writes an unreachable threshold (Infinity) as null
    this.shortTextCalibration = calibration
      ? { ...calibration, minLogit: calibration.minLogit ?? Infinity, minLogitFew: calibration.minLogitFew ?? Infinity }
      : undefined;
    this.minMarginMid = data.minMarginMid ?? Infinity;
    this.maxN = data.maxN;
    this.knownScratch = new Int32Array(data.maxN + 1);
    const { alpha } = data;
    const weight = (order: number): number => data.orderWeights?.[order] ?? 1;
    this.unseen = data.vocab.map((v, order) =>
      Float64Array.from(data.langs, (_, li) => weight(order) * Math.log(alpha / ((data.totals[li]?.[order] ?? 0) + alpha * v))),
    );
    this.voteBias = data.voteBias ? Float64Array.from(data.voteBias) : undefined;
    // Two walks over the features and no string set of their prefixes (load-time garbage stays in the thread's heap):
    // the first numbers the characters and counts the entries, the second fills the arrays, the trie growing as it goes.
    let characters = 0;
    let total = 0;
    for (const [f, pairs] of data.grams) {
      total += pairs.length / 2;
      if (f.startsWith('W:')) continue;
      for (const ch of f) if (this.indexOf(ch.codePointAt(0)!) === 0) this.setIndex(ch.codePointAt(0)!, ++characters);
    }
    this.base = characters + 1;
    this.edges = freeEdges(MIN_EDGE_SLOTS);
    this.edgeMask = MIN_EDGE_SLOTS - 1;
    this.features = new Float32Array(total * 2);
    let nodes = 1;
    let offset = 0;
    for (const [f, pairs] of data.grams) {
      const n = pairs.length / 2;
      const w = weight(featureOrder(f));
      for (let k = 0; k < n; k++) {
        this.features[2 * (offset + k)] = pairs[2 * k]!;
        this.features[2 * (offset + k) + 1] = w * Math.log((pairs[2 * k + 1]! + alpha) / alpha);
      }
      const start = offset;
      offset += n;
      if (f.startsWith('W:')) {
        this.words.set(f.slice(2), start * 64 + n);
        continue;
      }
      let node = 0;
      let slot = -1;
      for (const ch of f) {
        const key = node * this.base + this.indexOf(ch.codePointAt(0)!);
        slot = this.edgeSlot(key);
        if (slot < 0) {
          if (nodes * this.base >= 2 ** 31) throw new Error('n-gram model: too many characters or n-grams for the trie');
          // at most half the slots taken: probes stay short
          if (2 * nodes > this.edges.length / EDGE_FIELDS) this.growEdges();
          slot = this.addEdge(key, nodes++);
        }
        node = this.edges[slot + 1]!;
      }
      this.edges[slot + 2] = start;
      this.edges[slot + 3] = n;
    }
  }

  /** Loading is CPU work on the caller's thread (~1 s): the event loop runs between reading, parsing and indexing. */
  static async load(file = NGRAM_MODEL_FILE): Promise<NgramModel> {
    const data = readNgramModel(await readFile(file, 'utf8'));
    await new Promise((resolve) => setImmediate(resolve));
    return new NgramModel(data);
  }

  /**
   * Log-likelihood of the text per language (in `langs` order), each order weighted by `orderWeights`; features the
   * model never saw are left out.
   */
  logLikelihoods(text: string): Float64Array {
    const scores = new Float64Array(this.langs.length);
    const known = this.knownScratch.fill(0);
    const words = normalise(text);
    if (words !== '') {
      for (const w of words.split(' ')) {
        const slot = this.words.get(w);
        if (slot === undefined) continue;
        known[0]!++;
        this.addFeature(scores, Math.floor(slot / 64), slot % 64);
      }
      const padded = ` ${words} `;
      if (this.charsScratch.length < padded.length) this.charsScratch = new Int32Array(padded.length);
      const chars = this.charsScratch;
      let count = 0;
      for (let i = 0; i < padded.length; i++) {
        const unit = padded.charCodeAt(i);
        const next = padded.charCodeAt(i + 1);
        if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          chars[count++] = this.astralIndex.get(padded.codePointAt(i)!) ?? 0;
          i++;
        } else chars[count++] = this.bmpIndex[unit]!;
      }
      const space = this.bmpIndex[0x20]!;
      const { edges } = this;
      for (let i = 0; i < count; i++) {
        let node = 0;
        for (let n = 1; n <= this.maxN && i + n <= count; n++) {
          const c = chars[i + n - 1]!;
          // a character the model never saw, or an n-gram no known one starts with: nothing longer from here is known
          if (c === 0) break;
          const slot = this.edgeSlot(node * this.base + c);
          if (slot < 0) break;
          node = edges[slot + 1]!;
          if (n === 1 && c === space) continue;
          const length = edges[slot + 3]!;
          if (length === 0) continue;
          known[n]!++;
          this.addFeature(scores, edges[slot + 2]!, length);
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

  private addFeature(scores: Float64Array, start: number, length: number): void {
    const { features } = this;
    for (let k = 2 * start; k < 2 * (start + length); k += 2) scores[features[k]!]! += features[k + 1]!;
  }

  /** The offset in `edges` of the transition with this key, or else of the free slot where it would go. */
  private probe(key: number): number {
    const { edges, edgeMask } = this;
    for (let h = (Math.imul(key, 0x9e3779b1) >>> 0) & edgeMask; ; h = (h + 1) & edgeMask) {
      const k = edges[h * EDGE_FIELDS]!;
      if (k === key || k === -1) return h * EDGE_FIELDS;
    }
  }

  /** The offset in `edges` of the transition with this key, −1 if there is none. */
  private edgeSlot(key: number): number {
    const slot = this.probe(key);
    return this.edges[slot] === key ? slot : -1;
  }

  /** Doubles the transition table, each transition moved to its slot in the larger one. */
  private growEdges(): void {
    const old = this.edges;
    this.edges = freeEdges((2 * old.length) / EDGE_FIELDS);
    this.edgeMask = (2 * old.length) / EDGE_FIELDS - 1;
    for (let at = 0; at < old.length; at += EDGE_FIELDS) {
      if (old[at] === -1) continue;
      const slot = this.probe(old[at]!);
      this.edges.set(old.subarray(at, at + EDGE_FIELDS), slot);
    }
  }

  private addEdge(key: number, child: number): number {
    const slot = this.probe(key);
    this.edges[slot] = key;
    this.edges[slot + 1] = child;
    return slot;
  }

  private indexOf(cp: number): number {
    return cp < 0x10000 ? this.bmpIndex[cp]! : (this.astralIndex.get(cp) ?? 0);
  }

  private setIndex(cp: number, index: number): void {
    if (cp < 0x10000) this.bmpIndex[cp] = index;
    else this.astralIndex.set(cp, index);
  }
}
