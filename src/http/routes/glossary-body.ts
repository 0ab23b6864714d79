// Shared body handling of the glossary routes: form keys `dictionaries[0].source_lang` become nested objects.
import { Type } from '@sinclair/typebox';
import type { DictionaryInput } from '../../customization/glossaries/glossary-service.js';
import { handlerChecked } from '../schemas/common.js';

/** Glossary bodies hold up to five 10 MiB dictionaries, JSON escaping included. */
export const GLOSSARY_BODY_LIMIT = 64 * 1024 * 1024;

// Bodies are checked by the glossary service (the reference's messages); these schemas document them.
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

/** Reads `dictionaries` from a JSON array or from indexed form keys. */
export function dictionariesOf(body: Record<string, unknown>): DictionaryInput[] | undefined {
  if (Array.isArray(body.dictionaries)) return body.dictionaries as DictionaryInput[];
  if (body.dictionaries !== undefined) return body.dictionaries as DictionaryInput[];
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
  return [...byIndex].sort(([a], [b]) => a - b).map(([, d]) => d as DictionaryInput);
}

export function field(body: Record<string, unknown>, name: string): unknown {
  return one(body[name]);
}

export function bodyObject(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
