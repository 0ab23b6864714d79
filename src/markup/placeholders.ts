// Placeholders of app strings are code the program fills in, never words: {name}, {0}, {{count}}, %s, %1$s,
// %(name)s, ${user}, $t(key), Laravel's :name. Numbered and named tags around words (i18next's <0>…</0>, react-intl's
// <b>…</b>) are pairs: the words inside are translated and the tags kept around them. identifiers.ts carries both
// past the engine as marks, like the identifiers; ICU plural/select messages are cut into their branch texts first.
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** A placeholder in a text: an atom (`empty`), or one tag of a pair (`pair` numbers the pair, shared by both tags). */
export interface PlaceholderSpan {
  start: number;
  end: number;
  kind: 'empty' | 'open' | 'close';
  pair?: number;
}

/**
 * Atom patterns, earlier ones winning where matches overlap. Each starts with a literal character (the regex engine
 * skips to it) and has bounded repeats, so that every pass is linear in the text.
 */
const ATOMS: RegExp[] = [
  /\{\{\{?[^{}\n]{1,100}\}\}\}?/gu, // {{count}}, {{ count }}, {{{raw}}} (Handlebars, Mustache, i18next, Angular)
  /\$\{[^{}\n]{1,100}\}/gu, // ${user} (template literals)
  /\$t\([^()\n]{1,200}\)/gu, // $t(key) (i18next nesting)
  /\{[\p{L}\p{N}_$.]{0,64}(?:[,:!][^{}\n]{0,100})?\}/gu, // {name}, {0}, {}, {n, number}, {0:>10} (ICU, .NET, Python)
  /%\([^()\s]{1,64}\)[-+ #0]*\d*(?:\.\d+)?[a-zA-Z]/gu, // %(name)s (Python)
  // printf: %s, %1$s, %-5d, %.2f, %lu, %@ (no blank flag, no digit before and no letter after: "50% done", "50%off",
  // Azerbaijani "93%-i" are prose)
  /%(?<!\p{N}%)(?:\d+\$)?[-+#0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|z|j|t|q)?[sdifuxXeEgGcpo@](?![\p{L}\p{N}_])/gu,
  /%%/gu, // printf's literal percent
  // :name (Laravel): at a word's start, a letter after the colon and nothing glued before it ("Note: the", "10:30",
  // "Re:Subject", "std::map" are prose or something else)
  /:(?<![\p{L}\p{M}\p{N}_:/\\.]:)[\p{L}_][\p{L}\p{N}_]{0,64}(?![\p{L}\p{N}_(])/gu,
];

/** A text none of whose characters can start a placeholder has none (most sentences): one cheap test. */
const ANY_START = /[{$%:<]/u;

/** Tags: <0>, </0>, <1/>, <b>, </b>, <link href="…">; the name starts right after `<` (so "a < b" is no tag). */
const TAG = /<(\/?)([\p{L}\p{N}_][\p{L}\p{N}_.:-]{0,64})(?:\s[^<>\n]{0,200}?)?\s*(\/?)>/gu;

/**
 * Text matched between two turns of the event loop: a one-line document of megabytes holds a million placeholders
 * (hostile, but allowed), whose matching would otherwise hold the loop for seconds (identifiers.ts yields alike).
 */
const YIELD_CHARS = 64 * 1024;

/** The literal character every match of an atom pattern starts with: a text without it is not searched. */
const FIRST = new Map(ATOMS.map((re) => [re, re.source[0] === '\\' ? re.source[1]! : re.source[0]!]));

/** Work that asks for a turn of the event loop (yields) every YIELD_CHARS of text it has matched. */
type Stepped<T> = Generator<void, T, void>;

/** Calls `take` with each match of `pattern` in the text, in order. */
function* eachMatch(pattern: RegExp, text: string, take: (m: RegExpExecArray) => void): Stepped<void> {
  // A copy per call: two texts matched at once (two requests) must not share the pattern's lastIndex.
  const re = new RegExp(pattern);
  let yieldAt = YIELD_CHARS;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    take(m);
    if (re.lastIndex >= yieldAt) {
      yieldAt = re.lastIndex + YIELD_CHARS;
      yield;
    }
  }
}

/** False when the text has no character a placeholder (or an ICU message, `{`) starts with: it has none. */
export function mayHavePlaceholders(text: string): boolean {
  return ANY_START.test(text);
}

/** Placeholder spans of a text, in order and not overlapping; tags pair up when properly nested. */
export async function placeholderSpans(text: string): Promise<PlaceholderSpan[]> {
  if (!mayHavePlaceholders(text)) return [];
  // Short texts (most) are matched without a turn given; one async call per text.
  const work = spans(text);
  for (let step = work.next(); ; step = work.next()) {
    if (step.done) return step.value;
    await yieldToLoop();
  }
}

function* spans(text: string): Stepped<PlaceholderSpan[]> {
  let taken = yield* tagSpans(text);
  for (const re of ATOMS) {
    if (!text.includes(FIRST.get(re)!)) continue;
    // A global regex's matches are in order and apart: merged into the sorted spans in one sweep.
    const found: PlaceholderSpan[] = [];
    yield* eachMatch(re, text, (m) => {
      const end = m.index + m[0].length;
      if (!overlapsSorted(taken, m.index, end)) found.push({ start: m.index, end, kind: 'empty' });
    });
    if (found.length > 0) taken = mergeSorted(taken, found);
  }
  return taken;
}

function mergeSorted(a: PlaceholderSpan[], b: PlaceholderSpan[]): PlaceholderSpan[] {
  const out: PlaceholderSpan[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) out.push(j >= b.length || (i < a.length && a[i]!.start < b[j]!.start) ? a[i++]! : b[j++]!);
  return out;
}

/** True when [start, end) overlaps a span of the sorted, non-overlapping list (binary search). */
function overlapsSorted(spans: PlaceholderSpan[], start: number, end: number): boolean {
  let lo = 0;
  let hi = spans.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (spans[mid]!.end <= start) lo = mid + 1;
    else hi = mid;
  }
  return lo < spans.length && spans[lo]!.start < end;
}

/** Opening tags looked through for a closing tag's partner (bounds the work of many unclosed tags). */
const PAIR_REACH = 64;

function lastOpen(names: string[], name: string): number {
  for (let k = names.length - 1; k >= Math.max(0, names.length - PAIR_REACH); k--) if (names[k] === name) return k;
  return -1;
}

/**
 * Tag spans, in order: an opening tag and the next closing tag of its name at the same depth form a pair; a
 * self-closing tag is an atom; a numbered tag left unpaired is an atom too (it is still code), a named one is left to
 * the text.
 */
function* tagSpans(text: string): Stepped<PlaceholderSpan[]> {
  if (!text.includes('<')) return [];
  // Every tag in order, in parallel arrays of numbers (a million tag objects cost seconds of garbage collection):
  // its place, its kind (a pair's two tags get theirs when the closing one is found) and its pair.
  const starts: number[] = [];
  const ends: number[] = [];
  const kinds: number[] = [];
  const pairOf: number[] = [];
  // Opening tags not closed yet: their names and indexes.
  const openNames: string[] = [];
  const openAts: number[] = [];
  const unpaired = (at: number, name: string) => (kinds[at] = /^\p{N}+$/u.test(name) ? ATOM : DROPPED);
  yield* eachMatch(TAG, text, (m) => {
    const name = m[2]!;
    const at = starts.push(m.index) - 1;
    ends.push(m.index + m[0].length);
    kinds.push(DROPPED);
    pairOf.push(-1);
    if (m[1] === '' && m[3] === '/') kinds[at] = ATOM;
    else if (m[1] === '') {
      openNames.push(name);
      openAts.push(at);
    } else {
      const k = lastOpen(openNames, name);
      if (k < 0) return unpaired(at, name);
      // Tags opened inside this pair and never closed cannot nest in it: they are no pair.
      while (openNames.length > k + 1) unpaired(openAts.pop()!, openNames.pop()!);
      openNames.pop();
      const opener = openAts.pop()!;
      kinds[opener] = OPEN;
      kinds[at] = CLOSE;
      pairOf[opener] = pairOf[at] = opener;
    }
  });
  openNames.forEach((name, k) => unpaired(openAts[k]!, name));
  const spans: PlaceholderSpan[] = [];
  starts.forEach((start, at) => {
    const kind = kinds[at]!;
    if (kind === ATOM) spans.push({ start, end: ends[at]!, kind: 'empty' });
    else if (kind !== DROPPED) spans.push({ start, end: ends[at]!, kind: kind === OPEN ? 'open' : 'close', pair: pairOf[at]! });
  });
  return spans;
}

const DROPPED = 0;
const ATOM = 1;
const OPEN = 2;
const CLOSE = 3;
