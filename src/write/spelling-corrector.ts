// Minimal-change spelling correction: only words Hunspell rejects change, to a close suggestion in the word's own
// casing; URLs, e-mail addresses, numbers, code-like and proper-noun-looking tokens are left alone.
import type { SpellCheckOptions, WordCheck } from './hunspell.js';

export interface SpellChecker {
  check(lang: string, words: string[], options?: SpellCheckOptions): Promise<WordCheck[]>;
  /** The words of the list the dictionary accepts (a cheap check without suggestions). */
  accepted(lang: string, words: string[], options?: SpellCheckOptions): Promise<Set<string>>;
}

/** Spans never touched: URLs, e-mail addresses, @handles and #tags, paths, tokens with digits or underscores. */
const SKIP_SPANS = /\b(?:https?:\/\/|ftp:\/\/|www\.)\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|[@#][\p{L}\p{N}_]+|(?:^|(?<=\s))[~.]?\/\S+|\S*[\p{N}_]\S*|\S*[\p{L}\p{M}]\.[\p{L}\p{M}]\S*/gu;

/** Words: letters with inner apostrophes (l'homme, don't); hyphenated compounds are checked part by part. */
const WORD = /[\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)*/gu;

/** Languages that capitalise every noun: a capital letter does not mark a proper noun there. */
const CAPITALISED_NOUNS = new Set(['de', 'lb']);

export interface Token {
  start: number;
  end: number;
  word: string;
}

function skipRanges(text: string): [number, number][] {
  const ranges: [number, number][] = [];
  for (const m of text.matchAll(SKIP_SPANS)) ranges.push([m.index!, m.index! + m[0].length]);
  return ranges;
}

function isSentenceStart(text: string, index: number): boolean {
  for (let i = index - 1; i >= 0; i--) {
    const c = text[i]!;
    if (/\s/u.test(c) || /["'“”„«»‘’¿¡(\[]/u.test(c)) continue;
    return /[.!?…:;\n]/u.test(c);
  }
  return true;
}

const isUpper = (c: string) => c !== c.toLowerCase() && c === c.toUpperCase();

/** The words worth checking, in order. */
export function candidateTokens(text: string, lang: string): Token[] {
  const skips = skipRanges(text);
  const base = lang.split('-')[0]!;
  const out: Token[] = [];
  for (const m of text.matchAll(WORD)) {
    const start = m.index!;
    const end = start + m[0].length;
    const word = m[0];
    if (skips.some(([s, e]) => start < e && end > s)) continue;
    if ([...word].length < 2) continue;
    const letters = [...word];
    // ALL CAPS (acronyms, shouting) and inner capitals (iPhone, McDonald) are names or codes, not misspellings.
    if (letters.length > 1 && letters.every((c) => !/\p{L}/u.test(c) || isUpper(c))) continue;
    if (letters.slice(1).some((c) => isUpper(c))) continue;
    // A capitalised word inside a sentence looks like a proper noun, except where all nouns are capitalised.
    if (isUpper(letters[0]!) && !CAPITALISED_NOUNS.has(base) && !isSentenceStart(text, start)) continue;
    out.push({ start, end, word });
  }
  return out;
}

/** Damerau-Levenshtein distance (optimal string alignment), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = [...a.toLowerCase()];
  const t = [...b.toLowerCase()];
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[s.length]![t.length]!;
}

const stripAccents = (w: string) => w.normalize('NFD').replace(/\p{M}/gu, '').replace(/ß/g, 'ss');

/** Accent-only differences (desicion/decisión, Strasse/Straße) count as half an edit: the commonest real misspelling. */
function closeness(word: string, suggestion: string): number {
  const plain = editDistance(stripAccents(word), stripAccents(suggestion));
  return plain + (editDistance(word, suggestion) > plain ? 0.5 : 0);
}

const VOWELS = new Set([...'aeiouy']);

type EditKind = 'doubling' | 'insertion' | 'undoubling' | 'deletion' | 'transposition' | 'vowel' | 'substitution' | 'other';

/** What single edit turns word into suggestion (accents and case ignored), or 'other'. */
export function editKind(word: string, suggestion: string): EditKind {
  const w = [...stripAccents(word.toLowerCase())];
  const s = [...stripAccents(suggestion.toLowerCase())];
  let i = 0;
  while (i < w.length && i < s.length && w[i] === s[i]) i++;
  const rest = (a: string[], from: number) => a.slice(from).join('');
  if (s.length === w.length + 1 && rest(w, i) === rest(s, i + 1)) return s[i] === s[i - 1] || s[i] === s[i + 1] ? 'doubling' : 'insertion';
  if (w.length === s.length + 1 && rest(w, i + 1) === rest(s, i)) return w[i] === w[i - 1] || w[i] === w[i + 1] ? 'undoubling' : 'deletion';
  if (w.length === s.length && i < w.length) {
    if (w[i] === s[i + 1] && w[i + 1] === s[i] && rest(w, i + 2) === rest(s, i + 2)) return 'transposition';
    if (rest(w, i + 1) === rest(s, i + 1)) return VOWELS.has(w[i]!) && VOWELS.has(s[i]!) ? 'vowel' : 'substitution';
  }
  return 'other';
}

/**
 * Lower is better. Closeness first; then what real misspellings look like: a missing double letter, a missing
 * letter, swapped letters and vowel confusions (grammer, independant) are likelier than other edits; a changed first
 * letter, a split into two words and a case-only change are unlikely.
 */
function score(word: string, suggestion: string): number {
  let s = closeness(word, suggestion);
  if (stripAccents(word[0]!.toLowerCase()) !== stripAccents(suggestion[0]!.toLowerCase())) s += 1;
  if (/[\s-]/u.test(suggestion) && !/[\s-]/u.test(word)) s += 1.5;
  if (suggestion.toLowerCase() === word.toLowerCase()) s += 1.5;
  const kind = editKind(word, suggestion);
  if (kind === 'doubling' || kind === 'undoubling') s -= 0.5;
  else if (kind === 'transposition' || kind === 'vowel') s -= 0.25;
  return s;
}

/** Accent variants of a word (one vowel or consonant re-accented): Hunspell often misses these for es/fr/pt. */
const ACCENTS: Record<string, string> = {
  a: 'áàâä', e: 'éèêë', i: 'íîï', o: 'óôö', u: 'úùûü', n: 'ñ', c: 'ç',
};
export function accentVariants(word: string): string[] {
  const chars = [...word];
  const plain = [...stripAccents(word)];
  if (plain.length !== chars.length) return [];
  const out = new Set<string>();
  const base = plain.map((c, i) => (chars[i] !== c ? c : chars[i]!));
  for (let i = 0; i < chars.length; i++) {
    const options = ACCENTS[plain[i]!.toLowerCase()];
    if (!options) continue;
    for (const accented of [plain[i]!, ...options]) {
      const cased = isUpper(plain[i]!) ? accented.toUpperCase() : accented;
      const candidate = base.slice();
      candidate[i] = cased;
      out.add(candidate.join(''));
    }
  }
  out.delete(word);
  return [...out].slice(0, 80);
}

/**
 * The replacement for a misspelled word, or undefined to leave it: the best-scoring close candidate (at most 2 edits,
 * 3 for long words; Hunspell order breaks ties), in the original's casing. A capitalised word inside a German sentence
 * may be an unknown name, so it only changes for a one-edit suggestion.
 */
export function chooseSuggestion(word: string, check: WordCheck, options: { cautious: boolean }): string | undefined {
  if (check.correct) return undefined;
  const length = [...word].length;
  // Short capitalised words inside a German sentence are often names (Klimt, Timo): only a one-letter change there.
  const limit = options.cautious && length < 6 ? 1 : length >= 8 ? 3 : 2;
  let best: { suggestion: string; score: number } | undefined;
  for (const raw of check.suggestions) {
    if (!raw || closeness(word, raw) > limit) continue;
    // Compound fragments ("-trasse") and acronyms are no replacement for an ordinary word.
    if (raw.startsWith('-') || raw.endsWith('-') || ([...raw].length > 1 && raw === raw.toUpperCase() && word !== word.toUpperCase())) continue;
    const s = score(word, raw);
    if (!best || s < best.score) best = { suggestion: raw, score: s };
  }
  if (!best) return undefined;
  let suggestion = best.suggestion;
  const first = [...word][0]!;
  // Keep the writer's capital at a sentence start; a suggestion that capitalises (a name) wins as it is.
  if (isUpper(first) && !isUpper([...suggestion][0] ?? '')) suggestion = suggestion[0]!.toUpperCase() + suggestion.slice(1);
  // Keep the writer's apostrophe (dictionaries suggest either kind).
  suggestion = word.includes('’') ? suggestion.replace(/'/g, '’') : suggestion.replace(/’/g, "'");
  return suggestion === word ? undefined : suggestion;
}

export interface Correction {
  start: number;
  end: number;
  from: string;
  to: string;
}

/** The corrections for one text (offsets into it), best-effort and in order. */
export async function findCorrections(text: string, lang: string, checker: SpellChecker, options: SpellCheckOptions = {}): Promise<Correction[]> {
  const tokens = candidateTokens(text, lang);
  if (tokens.length === 0) return [];
  const words = tokens.map((t) => t.word.replace(/’/g, "'"));
  const checks = await checker.check(lang, words, options);
  // Misspelled words also get their accent variants checked: those that Hunspell accepts join the suggestions.
  const variants = new Map<number, string[]>();
  checks.forEach((c, i) => {
    if (!c.correct) variants.set(i, accentVariants(words[i]!));
  });
  const flat = [...variants.values()].flat();
  if (flat.length > 0) {
    const accepted = await checker.accepted(lang, flat, options);
    for (const [i, list] of variants) {
      const valid = list.filter((v) => accepted.has(v));
      if (valid.length) checks[i] = { correct: false, suggestions: [...valid, ...checks[i]!.suggestions] };
    }
  }
  const base = lang.split('-')[0]!;
  const out: Correction[] = [];
  tokens.forEach((t, i) => {
    const cautious = CAPITALISED_NOUNS.has(base) && isUpper([...t.word][0]!) && !isSentenceStart(text, t.start);
    const to = chooseSuggestion(t.word, checks[i]!, { cautious });
    if (to !== undefined) out.push({ start: t.start, end: t.end, from: t.word, to });
  });
  return out;
}

export function applyCorrections(text: string, corrections: Correction[]): string {
  let out = '';
  let at = 0;
  for (const c of corrections) {
    out += text.slice(at, c.start) + c.to;
    at = c.end;
  }
  return out + text.slice(at);
}

export async function correctSpelling(text: string, lang: string, checker: SpellChecker, options: SpellCheckOptions = {}): Promise<string> {
  return applyCorrections(text, await findCorrections(text, lang, checker, options));
}
