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
const YIELD_CHARS = 16 * 1024;

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
    if (found.length > 0) taken = taken.length === 0 ? found : yield* mergeSorted(taken, found);
  }
  return taken;
}

/** Items handled between two turns of the event loop by the loops over every match (a million tags, say). */
const YIELD_ITEMS = 4 * 1024;

function* mergeSorted(a: PlaceholderSpan[], b: PlaceholderSpan[]): Stepped<PlaceholderSpan[]> {
  const out: PlaceholderSpan[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    out.push(j >= b.length || (i < a.length && a[i]!.start < b[j]!.start) ? a[i++]! : b[j++]!);
    if (out.length % YIELD_ITEMS === 0) yield;
  }
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

/**
 * A growing list of integers. A million tags kept in plain arrays (and their names as strings) cost the event loop
 * hundreds of milliseconds in garbage collection between turns; typed arrays hold no references to trace.
 */
class IntList {
  private items = new Int32Array(1024);
  length = 0;
  push(value: number): number {
    if (this.length === this.items.length) {
      const grown = new Int32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.length++] = value;
    return this.length;
  }
  pop(): number {
    return this.items[--this.length]!;
  }
  at(k: number): number {
    return this.items[k]!;
  }
  set(k: number, value: number): void {
    this.items[k] = value;
  }
}

/**
 * Tag spans, in order: an opening tag and the next closing tag of its name at the same depth form a pair; a
 * self-closing tag is an atom; a numbered tag left unpaired is an atom too (it is still code), a named one is left to
 * the text.
 */
function* tagSpans(text: string): Stepped<PlaceholderSpan[]> {
  if (!text.includes('<')) return [];
  // Every tag in order: its place, its kind (a pair's two tags get theirs when the closing one is found), its pair.
  const starts = new IntList();
  const ends = new IntList();
  const kinds = new IntList();
  const pairOf = new IntList();
  // Opening tags not closed yet: their indexes, and where their names are in the text.
  const openAts = new IntList();
  const openNameAts = new IntList();
  const openNameLengths = new IntList();
  const nameAt = (k: number) => text.slice(openNameAts.at(k), openNameAts.at(k) + openNameLengths.at(k));
  const lastOpen = (name: string) => {
    for (let k = openAts.length - 1; k >= Math.max(0, openAts.length - PAIR_REACH); k--) {
      if (openNameLengths.at(k) === name.length && text.startsWith(name, openNameAts.at(k))) return k;
    }
    return -1;
  };
  const unpaired = (at: number, name: string) => kinds.set(at, /^\p{N}+$/u.test(name) ? ATOM : DROPPED);
  const popOpen = () => {
    openNameAts.pop();
    openNameLengths.pop();
    return openAts.pop();
  };
  yield* eachMatch(TAG, text, (m) => {
    const name = m[2]!;
    const at = starts.push(m.index) - 1;
    ends.push(m.index + m[0].length);
    kinds.push(DROPPED);
    pairOf.push(-1);
    if (m[1] === '' && m[3] === '/') kinds.set(at, ATOM);
    else if (m[1] === '') {
      openAts.push(at);
      openNameAts.push(m.index + 1);
      openNameLengths.push(name.length);
    } else {
      const k = lastOpen(name);
      if (k < 0) return unpaired(at, name);
      // Tags opened inside this pair and never closed cannot nest in it: they are no pair.
      while (openAts.length > k + 1) {
        const name = nameAt(openAts.length - 1);
        unpaired(popOpen(), name);
      }
      const opener = popOpen();
      kinds.set(opener, OPEN);
      kinds.set(at, CLOSE);
      pairOf.set(opener, opener);
      pairOf.set(at, opener);
    }
  });
  for (let k = 0; k < openAts.length; k++) {
    unpaired(openAts.at(k), nameAt(k));
    if ((k + 1) % YIELD_ITEMS === 0) yield;
  }
  const spans: PlaceholderSpan[] = [];
  for (let at = 0; at < starts.length; at++) {
    const kind = kinds.at(at);
    const start = starts.at(at);
    if (kind === ATOM) spans.push({ start, end: ends.at(at), kind: 'empty' });
    else if (kind !== DROPPED) spans.push({ start, end: ends.at(at), kind: kind === OPEN ? 'open' : 'close', pair: pairOf.at(at) });
    if ((at + 1) % YIELD_ITEMS === 0) yield;
  }
  return spans;
}

const DROPPED = 0;
const ATOM = 1;
const OPEN = 2;
const CLOSE = 3;
