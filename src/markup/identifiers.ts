// Identifiers (URLs, e-mail addresses, file names and paths, code spans, product codes, hashes) never reach the
// engine: each is cut out of its unit and travels as an empty inline tag, the markup layer's own way of carrying
// something through the engine untouched, then is written back where the engine put that tag.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { translateTagged, type InlineStrategy, type SegmentTranslator } from './inline-translate.js';
import type { TaggedText, TagMark } from './tagged-text.js';

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
  /** Mark id → the identifier it stands for. */
  identifiers: Map<number, string>;
}

/** The unit without its identifiers, each replaced by an empty mark; undefined when it has none besides placeholders. */
async function cutIdentifiers(u: TaggedText): Promise<Cut | undefined> {
  // A span with a tag inside is not one identifier (the tag stays where it is); spans and marks are both in order.
  let k = 0;
  const spans = (await identifierSpans(u.text)).filter((s) => {
    while (k < u.marks.length && u.marks[k]!.pos <= s.start) k++;
    return !(k < u.marks.length && u.marks[k]!.pos < s.end);
  });
  if (!spans.some((s) => !/^⟦/u.test(u.text.slice(s.start, s.end)))) return undefined;
  let id = u.marks.reduce((n, m) => Math.max(n, m.id), -1);
  const identifiers = new Map<number, string>();
  // Marks are in document order: one sweep over the spans gives the length cut before each (linear, not marks × spans).
  let next = 0;
  let removed = 0;
  // Sorted by source place: an identifier's mark (key start + ½) sits after the tags at its start, before those at its end.
  const keyed = u.marks.map((mark) => {
    for (; next < spans.length && spans[next]!.end <= mark.pos; next++) removed += spans[next]!.end - spans[next]!.start;
    return { key: mark.pos, mark: { ...mark, pos: mark.pos - removed } };
  });
  let text = '';
  let at = 0;
  for (const s of spans) {
    text += u.text.slice(at, s.start);
    identifiers.set(++id, u.text.slice(s.start, s.end));
    keyed.push({ key: s.start + 0.5, mark: { id, kind: 'empty', pos: text.length } });
    at = s.end;
  }
  text += u.text.slice(at);
  const marks = keyed.sort((a, b) => a.key - b.key).map((k) => k.mark);
  return { unit: { text, marks }, identifiers };
}

/** Writes each identifier back at its mark's place, and drops those marks. */
function pasteIdentifiers(u: TaggedText, identifiers: Map<number, string>): TaggedText {
  let text = '';
  let at = 0;
  const marks: TagMark[] = [];
  for (const m of u.marks) {
    const pos = Math.max(at, Math.min(m.pos, u.text.length));
    text += u.text.slice(at, pos);
    at = pos;
    const identifier = identifiers.get(m.id);
    if (identifier === undefined) marks.push({ ...m, pos: text.length });
    else text += identifier;
  }
  return { text: text + u.text.slice(at), marks };
}

/** translateTagged, with the identifiers of every unit kept from the engine and given back as written. */
export async function translateKeepingIdentifiers(units: TaggedText[], translate: SegmentTranslator, strategy: InlineStrategy): Promise<TaggedText[]> {
  // Unit by unit, the loop getting a turn every WINDOW_CHARS of text, so that a request of many units holds it no longer.
  const cuts: (Cut | undefined)[] = [];
  let sinceYield = 0;
  for (const u of units) {
    cuts.push(await cutIdentifiers(u));
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
  return out.map((o, i) => (cuts[i] ? pasteIdentifiers(o, cuts[i]!.identifiers) : o));
}
