// Shared body handling of the glossary routes: form keys `dictionaries[0].source_lang` become nested objects.
import type { DictionaryInput } from '../../customization/glossaries/glossary-service.js';

/** Glossary bodies hold up to five 10 MiB dictionaries, JSON escaping included. */
export const GLOSSARY_BODY_LIMIT = 64 * 1024 * 1024;

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
