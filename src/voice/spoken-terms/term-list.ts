// Content rules of spoken term lists (reference 3.12): newline-separated, case-sensitive terms, at most 300
// characters per list, no duplicates, no empty terms, no control characters, no surrounding whitespace.
import { invalid, unsupportedValue } from '../../lib/errors.js';
import { SOURCE_LANGS } from '../session-request.js';

export const MAX_LIST_CHARACTERS = 300;
export const MAX_NAME_BYTES = 1024;

/** A term list language: a voice source language, variants (en-US) reduced to their base. */
export function termListLang(value: unknown, name = 'lang'): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(`Parameter '${name}' not specified`);
  const base = value.trim().toLowerCase().split(/[-_]/)[0]!;
  if (!SOURCE_LANGS.has(base)) throw unsupportedValue(name);
  return base;
}

export function checkCollectionName(value: unknown): string {
  if (value === undefined || value === null) throw invalid("Parameter 'name' not specified");
  if (typeof value !== 'string') throw invalid("Parameter 'name' must be a string.");
  if (value.trim() === '') throw invalid("Value for 'name' not supported: the name must not be empty.");
  if (Buffer.byteLength(value, 'utf8') > MAX_NAME_BYTES) throw invalid(`The name exceeds ${MAX_NAME_BYTES} UTF-8 bytes.`);
  return value;
}

// C0 and C1 controls, and the Unicode line and paragraph separators (a term is one line).
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/** The `entries` field of a term list: a string (its content is checked by parseTermList). */
export function termListEntries(entries: unknown): string {
  if (entries === undefined || entries === null) throw invalid("Parameter 'entries' not specified");
  if (typeof entries !== 'string') throw invalid("Parameter 'entries' must be a string of terms separated by newlines.");
  return entries;
}

/**
 * Parses `entries` (terms separated by "\n") into terms; an empty string is an empty list. Every rule violation is a
 * 400 naming the offending term, so a client can fix its list.
 */
export function parseTermList(entries: string, lang: string): string[] {
  if (entries === '') return [];
  const terms = entries.split('\n');
  const seen = new Set<string>();
  let characters = 0;
  for (const [i, term] of terms.entries()) {
    const at = `term ${i + 1} of the '${lang}' list`;
    if (term === '') throw invalid(`Invalid spoken terms: ${at} is empty.`);
    if (CONTROL.test(term)) throw invalid(`Invalid spoken terms: ${at} contains a control character.`);
    if (term.trim() !== term) throw invalid(`Invalid spoken terms: ${at} ('${term}') has leading or trailing whitespace.`);
    if (seen.has(term)) throw invalid(`Invalid spoken terms: '${term}' appears more than once in the '${lang}' list.`);
    seen.add(term);
    characters += [...term].length;
  }
  if (characters > MAX_LIST_CHARACTERS) {
    throw invalid(`Invalid spoken terms: the '${lang}' list holds ${characters} characters; at most ${MAX_LIST_CHARACTERS} are allowed per list.`);
  }
  return terms;
}
