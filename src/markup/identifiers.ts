// Identifiers (URLs, e-mail addresses, file names and paths, code spans, product codes, hashes) and the placeholders
// of app strings (placeholders.ts) never reach the engine: each is cut out of its unit and travels as an empty inline
// tag (a pair of tags around words as a pair), the markup layer's own way of carrying something through the engine
// untouched, then is written back where the engine put that tag. ICU messages go to the engine branch by branch.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { translateTagged, type InlineStrategy, type SegmentTranslator } from './inline-translate.js';
import type { TaggedText, TagMark } from './tagged-text.js';
import { icuPieces, type IcuPiece } from './icu-message.js';
import { mayHavePlaceholders, placeholderSpans, type PlaceholderSpan } from './placeholders.js';
import { translateInPieces } from './unit-pieces.js';

const EXTENSIONS =
  'txt|md|pdf|docx?|xlsx?|pptx?|odt|csv|tsv|json|xml|ya?ml|toml|ini|cfg|conf|log|html?|css|js|mjs|ts|tsx|jsx|py|java|kt|c|h|cc|cpp|hpp|cs|go|rs|rb|php|sh|bat|ps1|exe|dll|so|jar|zip|tar|gz|tgz|7z|rar|png|jpe?g|gif|svg|webp|bmp|tiff?|mp3|mp4|wav|mov|avi|srt|vtt|xlf|xliff|sql|db|sqlite|lock|bin|iso|dmg|apk|ipa';

const CODE_SPAN = /`[^`\n]{1,200}`/gu;

/** Trailing punctuation belongs to the sentence, not to a URL or path. */
const TRAILING = /[.,;:!?)\]}'"]+$/u;

/** A compound whose parts are digits, capitals or letter-digit mixes: 12df-321a, SPARSE-2024-INV (not 30-year-old). */
function isCompoundCode(token: string): boolean {
  const codePart = (p: string) => /^[\p{Lu}\p{N}]+$/u.test(p) || (/\p{N}/u.test(p) && /\p{L}/u.test(p));
  return /\p{N}/u.test(token) && token.split(/[-_]/u).every(codePart);
}

/** Letters and digits mixed, 4+ characters or capitals then digits (4f2a9c, 12df, SKU123, MP3), not 10am, 2nd, 5km. */
function isMixedCode(token: string): boolean {
  if (/^\p{N}+(st|nd|rd|th|s|am|pm|[kmgt]?b|[kcm]?m|kg|g|h|min|px|pt|em|x|d|k)$/iu.test(token)) return false;
  return /\p{L}/u.test(token) && (token.length >= 4 || /^\p{Lu}+\p{N}+$/u.test(token));
}

/**
 * Identifier patterns, run on blank-free tokens; earlier ones win where spans overlap. `needs` is a cheap test that
 * every token the pattern can take passes (a character the match or its check requires): most words fail all of
 * them, and skipping the patterns there spared ~20 µs per short sentence (docs/benchmarks.md, "Per-request overhead").
 */
const PATTERNS: { re: RegExp; needs: (token: string) => boolean; trim?: boolean; check?: (token: string) => boolean }[] = [
  { re: /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s<>"'`]+/giu, needs: (t) => /:\/\/|www\./iu.test(t), trim: true }, // URL
  { re: /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+/gu, needs: (t) => t.includes('@'), trim: true }, // e-mail address
  { re: /(?<![\w/.~])(?:~|\.{1,2})?\/[\w.-]+(?:\/[\w.-]+)*/gu, needs: (t) => t.includes('/'), trim: true }, // absolute or ./relative path (not and/or, km/h)
  { re: new RegExp(String.raw`\b[\w-]+(?:[/\\][\w.-]+)*\.(?:${EXTENSIONS})\b`, 'gu'), needs: (t) => /\.[a-z0-9]/u.test(t) }, // file name
  { re: /\b[\p{L}\p{N}]+(?:[-_][\p{L}\p{N}]+)+\b/gu, needs: (t) => t.includes('-') || t.includes('_'), check: isCompoundCode },
  { re: /\b[0-9a-f]{7,}\b/giu, needs: (t) => /\d/u.test(t), check: (t) => /\d/u.test(t) && /[a-f]/iu.test(t) }, // hash
  { re: /\b\p{L}*\p{N}[\p{L}\p{N}]*\b/gu, needs: (t) => /\p{N}/u.test(t), check: isMixedCode },
  { re: /⟦\/?\d+\/?⟧/gu, needs: (t) => t.includes('⟦') }, // a placeholder a document format already put in its text
];

/** A text that fails this fails every pattern's `needs` (each is a substring test, and a token is part of the text). */
const ANY_NEED = /:\/\/|www\.|[@/_⟦-]|\.[a-z0-9]|\p{N}/iu;

/** Longest blank-free token looked at: longer ones are left whole to the engine (bounds the regex work, see below). */
const MAX_TOKEN = 512;
/** Blank-free tokens; built once (matchAll works on a copy, so sharing it is safe). */
const TOKEN = new RegExp(`\\S{1,${MAX_TOKEN}}(?!\\S)`, 'gu');

/**
 * Text whose tokens are matched in one go, then the event loop gets a turn (~10–20 ms of work). A 10 MB one-line
 * document took 2.5 s of main-thread CPU in one piece here, and its 2.5 million token matches alive at once cost
 * seconds of garbage collection (docs/benchmarks.md, issue 31).
 */
const WINDOW_CHARS = 64 * 1024;
const BLANK = /\s/gu;

type Span = { start: number; end: number };

/**
 * Identifier spans of a text, in order and not overlapping. Code spans are found in the text; the other patterns run
 * on its blank-free tokens of at most MAX_TOKEN characters, so that no pattern backtracks over a long run: the work
 * stays linear in the text. Tokens are matched window by window (windows end at a blank, so no token crosses one, and
 * spans of different tokens never overlap: the result is the same as over the whole text), yielding in between.
 */
export async function identifierSpans(text: string): Promise<Span[]> {
  const taken = new Uint8Array(text.length);
  const spans: Span[] = [];
  const take = (start: number, end: number) => {
    for (let k = start; k < end; k++) if (taken[k]) return;
    taken.fill(1, start, end);
    spans.push({ start, end });
  };
  for (const m of text.matchAll(CODE_SPAN)) take(m.index, m.index + m[0].length);
  if (!ANY_NEED.test(text)) return spans;
  for (let from = 0; from < text.length; ) {
    if (from > 0) await yieldToLoop();
    BLANK.lastIndex = Math.min(from + WINDOW_CHARS, text.length);
    const to = BLANK.exec(text)?.index ?? text.length;
    takeTokenIdentifiers(text.slice(from, to), from, take);
    from = to;
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** Runs the patterns on the blank-free tokens of `window` (which starts at a blank or the text's start, at `offset`). */
function takeTokenIdentifiers(window: string, offset: number, take: (start: number, end: number) => void): void {
  if (!ANY_NEED.test(window)) return;
  const tokens = [...window.matchAll(TOKEN)].filter((t) => (offset === 0 && t.index === 0) || /\s/u.test(window[t.index - 1] ?? ''));
  for (const { re, needs, trim, check } of PATTERNS) {
    for (const t of tokens) {
      if (!needs(t[0])) continue;
      for (const m of t[0].matchAll(re)) {
        const token = trim ? m[0].replace(TRAILING, '') : m[0];
        const start = offset + t.index + m.index;
        if (token !== '' && (!check || check(token))) take(start, start + token.length);
      }
    }
  }
}

interface Cut {
  unit: TaggedText;
  /** Mark id → what its marks stand for: an identifier or placeholder, or a pair's opening and closing tags. */
  written: Map<number, Written>;
}

interface Written {
  open: string;
  close?: string;
  /** No letter or digit touched the atom before (after) it: a blank is put where the engine glued a word to it. */
  apartBefore?: boolean;
  apartAfter?: boolean;
}

/** A span cut from a unit's text: an identifier or atom placeholder (`empty`), or one tag of a placeholder pair. */
type CutSpan = Span & { kind: TagMark['kind']; pair?: number | undefined };

/**
 * Placeholders and identifiers together, in order and apart: overlapping ones become one atom (both are kept as
 * written), and a tag that does so loses its pair (its partner is kept as an atom too).
 */
function unitSpans(placeholders: PlaceholderSpan[], identifiers: Span[]): CutSpan[] {
  const all: CutSpan[] = [];
  const merged = new Set<number>();
  let i = 0;
  let j = 0;
  while (i < placeholders.length || j < identifiers.length) {
    const next: CutSpan =
      j >= identifiers.length || (i < placeholders.length && placeholders[i]!.start <= identifiers[j]!.start)
        ? placeholders[i++]!
        : { ...identifiers[j++]!, kind: 'empty' };
    const last = all.at(-1);
    if (!last || next.start >= last.end) {
      all.push(next);
      continue;
    }
    // One inside the other ("/0" in "</0>"): the outer one holds it as written (a tag so held loses its pair).
    if (next.end <= last.end) {
      if (next.pair !== undefined) merged.add(next.pair);
      continue;
    }
    for (const pair of [last.pair, next.pair]) if (pair !== undefined) merged.add(pair);
    all[all.length - 1] = { start: last.start, end: Math.max(last.end, next.end), kind: 'empty' };
  }
  return merged.size === 0 ? all : all.map((s) => (s.pair !== undefined && merged.has(s.pair) ? { start: s.start, end: s.end, kind: 'empty' } : s));
}

/** Drops the spans with a unit's tag inside, and unpairs tags whose pair would not nest with the unit's tags. */
function spansAroundMarks(spans: CutSpan[], marks: TagMark[]): CutSpan[] {
  // A pair nests when the unit's tags between its two tags are balanced: the same depth at both, never lower between.
  // Pairs still open whose depth holds are on a stack, deepest on top; one sweep over marks and spans (both in order).
  let k = 0;
  let depth = 0;
  const kept: CutSpan[] = [];
  const open: { pair: number; depth: number }[] = [];
  const broken = new Set<number>();
  for (const s of spans) {
    for (; k < marks.length && marks[k]!.pos <= s.start; k++) {
      const kind = marks[k]!.kind;
      depth += kind === 'open' ? 1 : kind === 'close' ? -1 : 0;
      while (open.length > 0 && open.at(-1)!.depth > depth) broken.add(open.pop()!.pair);
    }
    const inside = k < marks.length && marks[k]!.pos < s.end;
    if (inside && s.pair !== undefined) broken.add(s.pair);
    if (s.kind === 'open' && !inside) open.push({ pair: s.pair!, depth });
    else if (s.kind === 'close') {
      const top = open.at(-1);
      if (top?.pair !== s.pair) broken.add(s.pair!);
      else if (open.pop()!.depth !== depth) broken.add(s.pair!);
    }
    if (!inside) kept.push(s);
  }
  return kept.map((s) => (s.pair !== undefined && broken.has(s.pair) ? { start: s.start, end: s.end, kind: 'empty' } : s));
}

/**
 * The unit without its identifiers and placeholders, each replaced by an empty mark (a pair of tags by a pair of
 * marks); undefined when it has none besides a document format's own placeholders. `plural`: inside an ICU plural
 * branch, where `#` stands for the number.
 */
async function cutIdentifiers(u: TaggedText, plural = false): Promise<Cut | undefined> {
  let placeholders = await placeholderSpans(u.text);
  if (plural) placeholders = [...placeholders, ...numberSigns(u.text, placeholders)].sort((a, b) => a.start - b.start);
  const spans = spansAroundMarks(unitSpans(placeholders, await identifierSpans(u.text)), u.marks);
  if (!spans.some((s) => !/^⟦/u.test(u.text.slice(s.start, s.end)))) return undefined;
  let id = u.marks.reduce((n, m) => Math.max(n, m.id), -1);
  const written = new Map<number, Written>();
  const pairIds = new Map<number, number>();
  // Marks are in document order: one sweep over the spans gives the length cut before each (linear, not marks × spans).
  let next = 0;
  let removed = 0;
  // Sorted by source place: a cut mark (key start + ½) sits after the unit's tags at its start, before those at its end.
  const keyed = u.marks.map((mark) => {
    for (; next < spans.length && spans[next]!.end <= mark.pos; next++) removed += spans[next]!.end - spans[next]!.start;
    return { key: mark.pos, mark: { ...mark, pos: mark.pos - removed } };
  });
  let text = '';
  let at = 0;
  for (const s of spans) {
    text += u.text.slice(at, s.start);
    const source = u.text.slice(s.start, s.end);
    let markId: number;
    if (s.kind === 'close') {
      markId = pairIds.get(s.pair!)!;
      written.get(markId)!.close = source;
    } else {
      markId = ++id;
      const apart = (at: number) => !isWordChar(u.text[at]);
      written.set(markId, s.kind === 'open' ? { open: source } : { open: source, apartBefore: apart(s.start - 1), apartAfter: apart(s.end) });
      if (s.kind === 'open') pairIds.set(s.pair!, markId);
    }
    keyed.push({ key: s.start + 0.5, mark: { id: markId, kind: s.kind, pos: text.length } });
    at = s.end;
  }
  text += u.text.slice(at);
  const marks = keyed.sort((a, b) => a.key - b.key).map((k) => k.mark);
  return { unit: { text, marks }, written };
}

/** The `#` signs of an ICU plural branch's text that no placeholder holds. */
function numberSigns(text: string, placeholders: PlaceholderSpan[]): PlaceholderSpan[] {
  const signs: PlaceholderSpan[] = [];
  let p = 0;
  for (let at = text.indexOf('#'); at >= 0; at = text.indexOf('#', at + 1)) {
    while (p < placeholders.length && placeholders[p]!.end <= at) p++;
    if (!(p < placeholders.length && placeholders[p]!.start <= at)) signs.push({ start: at, end: at + 1, kind: 'empty' });
  }
  return signs;
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\p{L}\p{N}]/u.test(c);
}

/** Writes each identifier and placeholder back at its marks' places, and drops those marks. */
function pasteIdentifiers(u: TaggedText, written: Map<number, Written>): TaggedText {
  let text = '';
  let at = 0;
  const marks: TagMark[] = [];
  for (const m of u.marks) {
    const pos = Math.max(at, Math.min(m.pos, u.text.length));
    text += u.text.slice(at, pos);
    at = pos;
    const source = written.get(m.id);
    if (source === undefined) marks.push({ ...m, pos: text.length });
    else if (m.kind !== 'empty') text += m.kind === 'close' ? source.close ?? '' : source.open;
    else {
      // An engine that drops the marks (a neural model) has them placed between words, next to one.
      text += (source.apartBefore && isWordChar(text.at(-1)) ? ' ' : '') + source.open + (source.apartAfter && isWordChar(u.text[pos]) ? ' ' : '');
    }
  }
  return { text: text + u.text.slice(at), marks };
}

/**
 * translateTagged, with the identifiers and placeholders of every unit kept from the engine and given back as written.
 * A unit that is an ICU plural/select message has its branch texts (and the text around the message) translated
 * apart, its structure kept as written.
 */
export async function translateKeepingIdentifiers(units: TaggedText[], translate: SegmentTranslator, strategy: InlineStrategy): Promise<TaggedText[]> {
  // Most short texts have no tag and nothing to cut: they go to the engine as they are, without the layers below
  // (the same result, fewer promises and objects per request).
  if (units.every(isPlainWords)) return (await translate(units.map((u) => u.text))).map((text) => ({ text, marks: [] }));
  return translateInPieces(units, (u) => icuPieces(u.text), (jobs, pieces) => translateCut(jobs, pieces, translate, strategy));
}

/** A unit without tags in which no identifier, placeholder or ICU message can be found (each needs a character it lacks). */
function isPlainWords(u: TaggedText): boolean {
  return u.marks.length === 0 && !u.text.includes('`') && !ANY_NEED.test(u.text) && !mayHavePlaceholders(u.text);
}

async function translateCut(units: TaggedText[], pieces: (IcuPiece | undefined)[], translate: SegmentTranslator, strategy: InlineStrategy): Promise<TaggedText[]> {
  // Unit by unit, the loop getting a turn every WINDOW_CHARS of text, so that a request of many units holds it no longer.
  const cuts: (Cut | undefined)[] = [];
  let sinceYield = 0;
  for (const [i, u] of units.entries()) {
    cuts.push(await cutIdentifiers(u, pieces[i]?.plural));
    sinceYield += u.text.length;
    if (sinceYield >= WINDOW_CHARS) {
      sinceYield = 0;
      await yieldToLoop();
    }
  }
  const out = await translateTagged(
    units.map((u, i) => cuts[i]?.unit ?? u),
    translate,
    strategy,
  );
  return out.map((o, i) => (cuts[i] ? pasteIdentifiers(o, cuts[i]!.written) : o));
}
