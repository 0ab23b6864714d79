// Translation-memory lookup as CAT tools do it: exact matches by hash, fuzzy matches scored by word-level edit
// distance, with an inverted token index choosing the few candidates worth scoring (never a scan of the memory).

export interface MemorySegment {
  source: string;
  target: string;
}

export interface MemoryMatch {
  segment: MemorySegment;
  /** 0–100; 100 only for an identical source. */
  score: number;
}

const TOKEN = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;

export function tokenize(text: string): string[] {
  return text.toLowerCase().match(TOKEN) ?? [];
}

/** Levenshtein distance over tokens (two rows). */
export function tokenEditDistance(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = new Array<number>(b.length + 1);
  let cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/** CAT-style score: 100 for identical text, else 100 × (1 − token edit distance / longer length), capped at 99. */
export function fuzzyScore(query: string, queryTokens: readonly string[], candidate: string, candidateTokens: readonly string[]): number {
  if (query === candidate) return 100;
  const longer = Math.max(queryTokens.length, candidateTokens.length);
  if (longer === 0) return 0;
  const score = Math.floor(100 * (1 - tokenEditDistance(queryTokens, candidateTokens) / longer));
  return Math.min(99, Math.max(0, score));
}

const CANDIDATES = 24;

export class FuzzyIndex {
  private readonly exact = new Map<string, number>();
  private readonly tokens: string[][] = [];
  /** Distinct tokens per segment (for the overlap bound). */
  private readonly distinctTokens: string[][] = [];
  private readonly postings = new Map<string, number[]>();
  private readonly counts: Uint8Array;

  constructor(readonly segments: readonly MemorySegment[]) {
    segments.forEach((s, id) => {
      if (!this.exact.has(s.source)) this.exact.set(s.source, id);
      const toks = tokenize(s.source);
      this.tokens.push(toks);
      const distinct = [...new Set(toks)];
      this.distinctTokens.push(distinct);
      for (const t of distinct) {
        let list = this.postings.get(t);
        if (!list) this.postings.set(t, (list = []));
        list.push(id);
      }
    });
    this.counts = new Uint8Array(segments.length);
  }

  get size(): number {
    return this.segments.length;
  }

  /** The best match scoring at least `threshold`, or undefined. */
  lookup(query: string, threshold: number): MemoryMatch | undefined {
    const hit = this.exact.get(query);
    if (hit !== undefined) return { segment: this.segments[hit]!, score: 100 };
    if (threshold >= 100) return undefined;
    const qt = tokenize(query);
    if (qt.length === 0) return undefined;
    // Prefix filter: a segment scoring ≥ T% misses at most m = ⌊(100−T)·|q|/T⌋ query tokens (the edit distance d
    // satisfies d ≤ (1−T)(|q|+d)), so it contains one of the m+1 rarest query tokens. Only their postings are read:
    // exact (no match is lost), and the rare lists are short even when the memory is large.
    const distinct = [...new Set(qt)].filter((t) => this.postings.has(t));
    distinct.sort((a, b) => this.postings.get(a)!.length - this.postings.get(b)!.length);
    const maxMissing = threshold <= 0 ? qt.length : Math.floor(((100 - threshold) * qt.length) / threshold);
    const touched: number[] = [];
    const counts = this.counts;
    // Length filter: |len(c) − |q|| ≤ d ≤ m.
    const minLen = qt.length - maxMissing;
    const maxLen = qt.length + maxMissing;
    for (const t of distinct.slice(0, maxMissing + 1)) {
      for (const id of this.postings.get(t)!) {
        if (counts[id] !== 0) continue;
        counts[id] = 1;
        const len = this.tokens[id]!.length;
        if (len >= minLen && len <= maxLen) touched.push(id);
      }
    }
    for (const t of distinct.slice(0, maxMissing + 1)) for (const id of this.postings.get(t)!) counts[id] = 0;
    // Upper bound of the score from the shared distinct tokens; only the best few candidates are scored exactly.
    const querySet = new Set(qt);
    const bounds = touched.map((id) => {
      const toks = this.distinctTokens[id]!;
      let shared = 0;
      for (let i = 0; i < toks.length; i++) if (querySet.has(toks[i]!)) shared++;
      return { id, bound: (100 * shared) / Math.max(qt.length, this.tokens[id]!.length) };
    });
    const ranked = bounds.filter((b) => b.bound >= threshold).sort((a, b) => b.bound - a.bound).slice(0, CANDIDATES).map((b) => b.id);
    let best: MemoryMatch | undefined;
    for (const id of ranked) {
      const seg = this.segments[id]!;
      const score = fuzzyScore(query, qt, seg.source, this.tokens[id]!);
      if (score >= threshold && (!best || score > best.score)) best = { segment: seg, score };
    }
    return best;
  }
}

/** The benchmark's baseline: score every segment. */
export function naiveLookup(segments: readonly MemorySegment[], query: string, threshold: number): MemoryMatch | undefined {
  const qt = tokenize(query);
  let best: MemoryMatch | undefined;
  for (const seg of segments) {
    const score = fuzzyScore(query, qt, seg.source, tokenize(seg.source));
    if (score >= threshold && (!best || score > best.score)) best = { segment: seg, score };
  }
  return best;
}
