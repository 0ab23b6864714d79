// Placeholders of app strings are code the program fills in, never words: {name}, {0}, {{count}}, %s, %1$s,
// %(name)s, ${user}, $t(key), Laravel's :name. Numbered and named tags around words (i18next's <0>…</0>, react-intl's
// <b>…</b>) are pairs: the words inside are translated and the tags kept around them. identifiers.ts carries both
// past the engine as marks, like the identifiers; ICU plural/select messages are cut into their branch texts first.

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
  /\{\s*[\p{L}\p{N}_$.]{0,64}\s*(?:[,:!][^{}\n]{0,100})?\}/gu, // {name}, {0}, {}, {n, number}, {0:>10} (ICU, .NET, Python)
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

/** Placeholder spans of a text, in order and not overlapping; tags pair up when properly nested. */
export function placeholderSpans(text: string): PlaceholderSpan[] {
  if (!ANY_START.test(text)) return [];
  let taken = tagSpans(text).sort((a, b) => a.start - b.start);
  for (const re of ATOMS) {
    // A global regex's matches are in order and apart: merged into the sorted spans in one sweep.
    const found: PlaceholderSpan[] = [];
    for (const m of text.matchAll(re)) {
      const end = m.index + m[0].length;
      if (!overlapsSorted(taken, m.index, end)) found.push({ start: m.index, end, kind: 'empty' });
    }
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

function lastOpen(open: { name: string }[], name: string): number {
  for (let k = open.length - 1; k >= Math.max(0, open.length - PAIR_REACH); k--) if (open[k]!.name === name) return k;
  return -1;
}

/**
 * Tag spans: an opening tag and the next closing tag of its name at the same depth form a pair; a self-closing tag is
 * an atom; a numbered tag left unpaired is an atom too (it is still code), a named one is left to the text.
 */
function tagSpans(text: string): PlaceholderSpan[] {
  if (!text.includes('<')) return [];
  const out: PlaceholderSpan[] = [];
  const open: { name: string; span: PlaceholderSpan }[] = [];
  let pairs = 0;
  const numbered = (name: string) => /^\p{N}+$/u.test(name);
  const unpaired = (name: string, span: PlaceholderSpan) => {
    if (numbered(name)) out.push({ start: span.start, end: span.end, kind: 'empty' });
  };
  for (const m of text.matchAll(TAG)) {
    const [whole, slash, name, selfClosing] = m as unknown as [string, string, string, string];
    const span: PlaceholderSpan = { start: m.index, end: m.index + whole.length, kind: 'empty' };
    if (slash === '' && selfClosing === '/') out.push(span);
    else if (slash === '') open.push({ name, span });
    else {
      const at = lastOpen(open, name);
      if (at < 0) {
        unpaired(name, span);
        continue;
      }
      // Tags opened inside this pair and never closed cannot nest in it: they are no pair.
      for (const o of open.splice(at + 1)) unpaired(o.name, o.span);
      const opener = open.pop()!;
      const pair = pairs++;
      out.push({ ...opener.span, kind: 'open', pair }, { ...span, kind: 'close', pair });
    }
  }
  for (const o of open) unpaired(o.name, o.span);
  return out;
}
