// Shared body handling of the glossary routes: form keys `dictionaries[0].source_lang` become nested objects, and
// bodies become the glossary service's typed inputs, with the reference's error messages.
import { Type } from '@sinclair/typebox';
import { glossaryLang, glossaryName, type DictionaryDraft, type GlossaryChanges } from '../../customization/glossaries/glossary-service.js';
import type { EntriesFormat } from '../../customization/glossaries/entries.js';
import { invalid, unsupportedValue } from '../../lib/errors.js';
import { handlerChecked } from '../schemas/common.js';

/** Glossary bodies hold up to five 10 MiB dictionaries, JSON escaping included. */
export const GLOSSARY_BODY_LIMIT = 64 * 1024 * 1024;

// Bodies are checked by the parsers below (the reference's messages); these schemas document them.
const dictionary = {
  source_lang: Type.String({ description: 'Source language of the entries.' }),
  target_lang: Type.String({ description: 'Target language of the entries.' }),
  entries: Type.String({ description: 'The entries, one per line, in entries_format.' }),
  entries_format: Type.Union([Type.Literal('tsv'), Type.Literal('csv')], { description: 'Format of entries.' }),
};
const Dictionary = Type.Object(dictionary);
const dictionaries = Type.Array(Dictionary, {
  description: 'Dictionaries (at most 5); a form body spells them `dictionaries[0].source_lang=...`.',
});

export const GlossaryV2Body = handlerChecked({ name: Type.String({ description: 'Name of the glossary.' }), ...dictionary });
export const GlossaryV3Body = handlerChecked({ name: Type.String({ description: 'Name of the glossary.' }), dictionaries });
export const GlossaryPatchBody = handlerChecked({
  name: Type.Optional(Type.String({ description: 'New name.' })),
  dictionaries: Type.Optional(dictionaries),
}, 'Dictionaries given are merged into the glossary: entries of the same source text are replaced.');
export const DictionaryBody = handlerChecked(dictionary, 'Replaces the dictionary of this language pair.');

const one = (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : v);

/** Reads `dictionaries` from a JSON array or from indexed form keys (unchecked). */
function dictionariesOf(body: Record<string, unknown>): unknown {
  if (body.dictionaries !== undefined) return body.dictionaries;
  const byIndex = new Map<number, Record<string, unknown>>();
  for (const [key, value] of Object.entries(body)) {
    const m = /^dictionaries\[(\d+)\]\.(\w+)$/.exec(key);
    if (!m) continue;
    const i = Number(m[1]);
    const d = byIndex.get(i) ?? {};
    d[m[2]!] = one(value);
    byIndex.set(i, d);
  }
  if (byIndex.size === 0) return undefined;
  return [...byIndex].sort(([a], [b]) => a - b).map(([, d]) => d);
}

function entriesFormat(value: unknown): EntriesFormat {
  if (value === undefined || value === '') return 'tsv';
  if (value === 'tsv' || value === 'csv') return value;
  throw unsupportedValue('entries_format');
}

/** One dictionary of a body: its pair (two different glossary languages), its format and non-empty entries. */
export function parseDictionary(input: unknown): DictionaryDraft {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalid("Parameter 'dictionaries' must hold dictionary objects.");
  const d = input as Record<string, unknown>;
  const sourceLang = glossaryLang(d.source_lang, 'source_lang');
  const targetLang = glossaryLang(d.target_lang, 'target_lang');
  if (sourceLang === targetLang) throw invalid('Source and target language of a glossary dictionary must differ.');
  const format = entriesFormat(d.entries_format);
  if (typeof d.entries !== 'string' || d.entries.trim() === '') throw invalid("Parameter 'entries' not specified");
  return { sourceLang, targetLang, entries: d.entries, format };
}

/** `max`: how many one request may carry (a PATCH edits one), told before any is read. */
function parseDictionaries(value: unknown, max = Infinity): DictionaryDraft[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw unsupportedValue('dictionaries');
  if (value.length > max) throw invalid('Only one dictionary can be edited per request.');
  return value.map(parseDictionary);
}

/** A v2 body: a name and the fields of its one dictionary at the top level. */
export function parseV2Body(body: Record<string, unknown>) {
  const name = glossaryName(field(body, 'name'));
  const fields = ['source_lang', 'target_lang', 'entries', 'entries_format'].map((k) => [k, field(body, k)]);
  return { name, dictionaries: [parseDictionary(Object.fromEntries(fields))] };
}

/** A v3 body: a name and any number of dictionaries (the clients may add them afterwards). */
export function parseV3Body(body: Record<string, unknown>) {
  const name = glossaryName(field(body, 'name'));
  return { name, dictionaries: parseDictionaries(dictionariesOf(body) ?? []) ?? [] };
}

/** A PATCH body: a new name and/or dictionaries to merge (whether anything is given is the service's to judge). */
export function parsePatchBody(body: Record<string, unknown>): GlossaryChanges {
  const raw = field(body, 'name');
  const name = raw === undefined ? undefined : glossaryName(raw);
  const dictionaries = parseDictionaries(dictionariesOf(body), 1);
  return { ...(name !== undefined ? { name } : {}), ...(dictionaries ? { dictionaries } : {}) };
}

/** The pair of a dictionary named in a query. */
export function parsePair(query: { source_lang?: unknown; target_lang?: unknown }) {
  return { sourceLang: glossaryLang(query.source_lang, 'source_lang'), targetLang: glossaryLang(query.target_lang, 'target_lang') };
}

export function field(body: Record<string, unknown>, name: string): unknown {
  return one(body[name]);
}

export function bodyObject(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
