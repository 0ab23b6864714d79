// Translates tagged units and puts their inline tags back around the right words, by one of two strategies:
// 'placeholders' carries the tags through the engine as ⟦n⟧…⟦/n⟧ tokens (Apertium passes them through untouched but
// they block its local reordering); 'realign' translates the plain text and re-locates each tagged span by translating
// it alone and matching it in the output (empty tags still travel as placeholders). docs/benchmarks.md compares them.
import { markTree, treeMarks, type MarkNode, type TaggedText } from './tagged-text.js';

/** Translates plain-text segments (one output per input); the caller handles sentence splitting and formatting. */
export type SegmentTranslator = (segments: string[]) => Promise<string[]>;
export type InlineStrategy = 'placeholders' | 'realign';

const MARKER = /⟦(\/?)(\d+)(\/?)⟧/gu;
const WORD = /[\p{L}\p{N}]+/gu;
/** Words either side of a span's expected place that the fuzzy match looks at. */
const FUZZY_REACH = 120;
/** Characters either side a tag's proportional place may move to reach a word boundary (bounds the search per tag). */
const SNAP_REACH = 256;
/** Characters either side of a span's expected place searched for it (an exact match farther away is not it). */
const EXACT_REACH = 4000;
/** Occurrences of a span either side of its expected place that are checked for whole words (bounds the search). */
const OCCURRENCES_CHECKED = 64;
/** Realign's span translations of one unit may add up to this many times the unit's length (see translateTagged). */
const SPAN_TEXT_FACTOR = 4;

/** Text with marks rendered as placeholders; `only` limits which kinds are rendered (the rest are dropped). */
function withPlaceholders(unit: TaggedText, only: 'all' | 'empty'): string {
  let out = '';
  let at = 0;
  for (const m of unit.marks) {
    out += unit.text.slice(at, m.pos);
    at = m.pos;
    if (m.kind === 'empty') out += `⟦${m.id}/⟧`;
    else if (only === 'all') out += m.kind === 'open' ? `⟦${m.id}⟧` : `⟦/${m.id}⟧`;
  }
  return out + unit.text.slice(at);
}

interface ParsedOutput {
  text: string;
  opens: Map<number, number>;
  closes: Map<number, number>;
  empties: Map<number, number>;
}

/** Strips placeholders from engine output, recording where each known one ended up (first occurrence wins). */
function parsePlaceholders(output: string, known: Set<number>): ParsedOutput {
  const res: ParsedOutput = { text: '', opens: new Map(), closes: new Map(), empties: new Map() };
  // Pieces are collected and joined once, and whether the text so far ends in a blank is tracked: reading the end of
  // a string being built (endsWith) flattens it each time, quadratic in the placeholders of a unit.
  const parts: string[] = [];
  let length = 0;
  let endsBlank = false;
  const append = (piece: string) => {
    if (piece === '') return;
    parts.push(piece);
    length += piece.length;
    endsBlank = piece.endsWith(' ');
  };
  let at = 0;
  // An empty tag between two blanks keeps both ("Open <x/> now"), or the tag would end up glued to the next word.
  let afterEmpty = false;
  // Removing a placeholder can leave a double blank ("a ⟦1/⟧ b" → "a  b"): the second one is dropped.
  const join = (next: string) => append(!afterEmpty && endsBlank && next.startsWith(' ') ? next.slice(1) : next);
  for (const m of output.matchAll(MARKER)) {
    join(output.slice(at, m.index));
    at = m.index + m[0].length;
    afterEmpty = false;
    const id = Number(m[2]);
    if (!known.has(id)) continue;
    const map = m[3] ? res.empties : m[1] ? res.closes : res.opens;
    if (!map.has(id)) map.set(id, length);
    afterEmpty = map === res.empties && endsBlank && output[at] === ' ';
  }
  join(output.slice(at));
  res.text = parts.join('');
  return res;
}

/** Maps a source position proportionally into the output, snapped to the nearest word boundary (within SNAP_REACH). */
function proportional(pos: number, srcLen: number, out: string): number {
  if (srcLen === 0) return out.length;
  const target = Math.round((pos / srcLen) * out.length);
  if (target <= 0) return 0;
  if (target >= out.length) return out.length;
  // Nearest word boundary, searched outwards from the target.
  const blank = (k: number) => /\s/u.test(out[k]!);
  const boundary = (k: number) => k <= 0 || k >= out.length || blank(k - 1) !== blank(k);
  for (let d = 0; d <= Math.min(out.length, SNAP_REACH); d++) {
    if (target - d >= 0 && boundary(target - d)) return target - d;
    if (target + d <= out.length && boundary(target + d)) return target + d;
  }
  return target;
}

/** Clamps re-positioned nodes so that children stay inside their parent and siblings do not overlap (well-formed output). */
function fixNesting(nodes: MarkNode[], lo: number, hi: number): MarkNode[] {
  const sorted = [...nodes].sort((a, b) => a.start - b.start || a.end - b.end);
  let cursor = lo;
  for (const n of sorted) {
    n.start = Math.min(Math.max(n.start, cursor), hi);
    n.end = n.kind === 'empty' ? n.start : Math.min(Math.max(n.end, n.start), hi);
    n.children = fixNesting(n.children, n.start, n.end);
    cursor = n.end;
  }
  return sorted;
}

function walkNodes(nodes: MarkNode[], fn: (n: MarkNode) => void): void {
  for (const n of nodes) {
    fn(n);
    walkNodes(n.children, fn);
  }
}

/**
 * Finds tagged spans in one translated unit: `locate(needle, expected)` is the best occurrence of `needle`, exact
 * (case-insensitive, whole words) nearest to `expected`, else the best word-overlap window near it. The lower-cased
 * text and its words are computed once per unit and every search starts at `expected`, so a unit with many tags
 * (even many identical ones) costs time linear in its length, not in its length times its tags.
 */
export function locator(hay: string): (needle: string, expected: number) => { start: number; end: number } | undefined {
  const h = hay.toLowerCase();
  let all: { w: string; start: number; end: number }[] | undefined;
  const wordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
  return (needle, expected) => {
    const n = needle.trim().toLowerCase();
    if (!n) return undefined;
    // Whole words only: "mundial" must not match inside "mundiales".
    const whole = (i: number) => !((wordChar(n[0]) && wordChar(h[i - 1])) || (wordChar(n[n.length - 1]) && wordChar(h[i + n.length])));
    // Searched in a window around the expected place (a slice is a view: the search never scans the whole unit).
    const lo = Math.max(0, Math.min(expected, h.length) - EXACT_REACH);
    const win = h.slice(lo, Math.min(h.length, Math.max(0, expected) + EXACT_REACH + n.length));
    const from = Math.max(0, Math.min(expected, h.length) - lo);
    const ok = (i: number) => whole(lo + i);
    let after = win.indexOf(n, from);
    for (let k = 0; after >= 0 && !ok(after); k++) after = k < OCCURRENCES_CHECKED ? win.indexOf(n, after + 1) : -1;
    let before = from > 0 ? win.lastIndexOf(n, from - 1) : -1;
    for (let k = 0; before >= 0 && !ok(before); k++) before = k < OCCURRENCES_CHECKED && before > 0 ? win.lastIndexOf(n, before - 1) : -1;
    // the nearest; on a tie the earlier one
    const rel = expected - lo;
    const at = before < 0 ? after : after < 0 ? before : rel - before <= after - rel ? before : after;
    if (at >= 0) return { start: lo + at, end: lo + at + n.length };
    // Fuzzy search only near the expected place (FUZZY_REACH words either side).
    all ??= [...hay.matchAll(WORD)].map((m) => ({ w: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length }));
    return fuzzy(all, n, expected);
  };
}

/** The word window near `expected` that best overlaps the needle's words (F1 at least 0.34). */
function fuzzy(all: { w: string; start: number; end: number }[], n: string, expected: number): { start: number; end: number } | undefined {
  // first word starting at or after `expected`, by binary search
  let lo = 0;
  let hi = all.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (all[mid]!.start >= expected) hi = mid;
    else lo = mid + 1;
  }
  const words = all.slice(Math.max(0, lo - FUZZY_REACH), lo + FUZZY_REACH);
  const want = [...n.matchAll(WORD)].map((m) => m[0]);
  if (words.length === 0 || want.length === 0) return undefined;
  let best: { start: number; end: number } | undefined;
  let bestScore = 0;
  for (let len = Math.max(1, want.length - 2); len <= want.length + 2; len++) {
    for (let i = 0; i + len <= words.length; i++) {
      const window = words.slice(i, i + len);
      const pool = [...want];
      let hits = 0;
      for (const w of window) {
        const k = pool.findIndex((p) => sameWord(p, w.w));
        if (k >= 0) {
          hits++;
          pool.splice(k, 1);
        }
      }
      if (hits === 0) continue;
      const f1 = (2 * hits) / (window.length + want.length);
      const cand = { start: window[0]!.start, end: window[window.length - 1]!.end };
      if (f1 > bestScore + 1e-9 || (Math.abs(f1 - bestScore) < 1e-9 && best && Math.abs(cand.start - expected) < Math.abs(best.start - expected))) {
        bestScore = f1;
        best = cand;
      }
    }
  }
  return bestScore >= 0.34 ? best : undefined;
}

/** Word equality up to inflection (rojo/roja, mundial/mundiales): a shared prefix of 70% of the shorter word, at least 4 letters or all but one. */
export function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const shorter = Math.min(a.length, b.length);
  return i >= Math.min(4, shorter - 1) && i >= 0.7 * shorter;
}

/** True when the text inside [start, end) holds words (spans of only blanks/punctuation are placed proportionally). */
function hasWords(s: string): boolean {
  return /[\p{L}\p{N}]/u.test(s);
}

/**
 * Translates tagged units; output i has the translation of units[i] with every mark placed, nested as in the source.
 * Units without marks are translated as plain text.
 */
export async function translateTagged(units: TaggedText[], translate: SegmentTranslator, strategy: InlineStrategy): Promise<TaggedText[]> {
  // Realign: each pair whose span has words (and is not the whole unit) is also translated alone. Deeply nested tags
  // would have the engine translate the same text once per level: a unit whose spans exceed SPAN_TEXT_FACTOR times
  // its own length carries its tags as placeholders instead, so the engine's work stays linear in the text.
  const strategies = units.map((): InlineStrategy => strategy);
  const spanJobs: { unit: number; id: number; text: string }[] = [];
  if (strategy === 'realign') {
    units.forEach((u, i) => {
      const jobs: typeof spanJobs = [];
      let length = 0;
      walkNodes(markTree(u.marks), (n) => {
        if (n.kind !== 'pair') return;
        const span = u.text.slice(n.start, n.end);
        if (!hasWords(span) || span.trim() === u.text.trim()) return;
        jobs.push({ unit: i, id: n.id, text: span.trim() });
        length += span.length;
      });
      if (length > SPAN_TEXT_FACTOR * u.text.length) strategies[i] = 'placeholders';
      else spanJobs.push(...jobs);
    });
  }
  const main = units.map((u, i) => (u.marks.length === 0 ? u.text : withPlaceholders(u, strategies[i] === 'placeholders' ? 'all' : 'empty')));
  const outputs = await translate([...main, ...spanJobs.map((j) => j.text)]);
  const spanOut = new Map<string, string>();
  spanJobs.forEach((j, k) => spanOut.set(`${j.unit}:${j.id}`, outputs[main.length + k] ?? ''));

  const placed = units.map((u, i) => place(u, outputs[i] ?? '', strategies[i]!, spanOut, i));
  // Realign could not find some span in the output: that unit falls back to carrying its tags as placeholders.
  const retry = placed.flatMap((p, i) => (p.unaligned ? [i] : []));
  if (retry.length > 0) {
    const again = await translate(retry.map((i) => withPlaceholders(units[i]!, 'all')));
    retry.forEach((i, k) => {
      placed[i] = place(units[i]!, again[k] ?? '', 'placeholders', spanOut, i);
    });
  }
  return placed.map((p) => p.unit);
}

function place(
  u: TaggedText,
  raw: string,
  strategy: InlineStrategy,
  spanOut: Map<string, string>,
  i: number,
): { unit: TaggedText; unaligned: boolean } {
  let unaligned = false;
  if (u.marks.length === 0) return { unit: { text: raw, marks: [] }, unaligned };
  const known = new Set(u.marks.map((m) => m.id));
  const parsed = parsePlaceholders(raw, known);
  const out = parsed.text;
  const tree = markTree(u.marks);
  const locate = locator(out);
  walkNodes(tree, (n) => {
    if (n.kind === 'empty') {
      n.start = n.end = parsed.empties.get(n.id) ?? proportional(n.start, u.text.length, out);
      return;
    }
    const span = u.text.slice(n.start, n.end);
    if (span.trim() === u.text.trim() && hasWords(span)) {
      // The pair wraps the whole unit: keep the source's outer blanks outside it.
      const lead = /^\s*/u.exec(out)![0].length;
      const trail = /\s*$/u.exec(out)![0].length;
      n.start = lead;
      n.end = Math.max(lead, out.length - trail);
      return;
    }
    let start = parsed.opens.get(n.id);
    let end = parsed.closes.get(n.id);
    if (strategy === 'realign' && hasWords(span)) {
      const found = locate(spanOut.get(`${i}:${n.id}`) ?? '', proportional(n.start, u.text.length, out));
      if (found) ({ start, end } = found);
      else unaligned = true;
    }
    // Where the engine put the pair's own empty tags (a placeholder cut out of it: <b>{name}</b>, <1>{{count}} new</1>).
    const inner = n.children.flatMap((c) => (c.kind === 'empty' && parsed.empties.has(c.id) ? [parsed.empties.get(c.id)!] : []));
    if (start === undefined && end === undefined && !hasWords(span) && inner.length > 0) {
      // around no words: it goes where they went
      start = inner.reduce((a, b) => Math.min(a, b));
      end = inner.reduce((a, b) => Math.max(a, b));
    }
    if (start === undefined && end === undefined) {
      start = proportional(n.start, u.text.length, out);
      end = hasWords(span) ? proportional(n.end, u.text.length, out) : start;
    }
    n.start = start ?? Math.min(end!, proportional(n.start, u.text.length, out));
    n.end = end ?? Math.max(n.start, proportional(n.end, u.text.length, out));
    // Its empty tags found just outside it, blanks apart, are taken in (as the source had them).
    for (const p of inner) {
      if (p < n.start && out.slice(p, n.start).trim() === '') n.start = p;
      if (p > n.end && out.slice(n.end, p).trim() === '') n.end = p;
    }
  });
  return { unit: { text: out, marks: treeMarks(fixNesting(tree, 0, out.length)) }, unaligned };
}

