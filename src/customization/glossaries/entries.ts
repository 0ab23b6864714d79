// Glossary entry formats (TSV, CSV) and the content rules of the reference: parsed once, stored as canonical TSV.
import { ServiceError } from '../../lib/errors.js';

export type EntriesFormat = 'tsv' | 'csv';

/** 10 MiB per dictionary (spec limits table). */
export const MAX_DICTIONARY_BYTES = 10 * 1024 * 1024;
/** Name, source and target: 1024 UTF-8 bytes each. */
export const MAX_TERM_BYTES = 1024;

export interface GlossaryEntry {
  source: string;
  target: string;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;
const EDGE_SPACE = /^[\s\u00a0\u2000-\u200b\u3000\ufeff]|[\s\u00a0\u2000-\u200b\u3000\ufeff]$/u;

export function invalidEntries(detail: string): ServiceError {
  return new ServiceError('invalid_request', 'Invalid glossary entries provided', { detail });
}

/** A raw row with where it started in the input, for messages that point at the offending line. */
interface RawRow {
  fields: string[];
  position: number;
}

function tsvRows(text: string): RawRow[] {
  const rows: RawRow[] = [];
  let position = 0;
  for (const line of text.split('\n')) {
    const start = position;
    position += line.length + 1;
    const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (trimmed.length === 0) continue;
    rows.push({ fields: trimmed.split('\t'), position: start });
  }
  return rows;
}

/** RFC 4180 CSV: quoted fields may hold commas, quotes ("") and are never split at line ends inside quotes. */
function csvRows(text: string): RawRow[] {
  const rows: RawRow[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const start = i;
    const fields: string[] = [];
    let field = '';
    let atRowEnd = false;
    while (!atRowEnd) {
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) throw invalidEntries(`Unterminated quoted field in the row starting at position ${start}`);
          if (text[i] === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          field += text[i++];
        }
        if (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          throw invalidEntries(`Unexpected character after a quoted field in the row starting at position ${start}`);
        }
      } else {
        while (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          if (text[i] === '"') throw invalidEntries(`Fields containing quotes must be quoted (row starting at position ${start})`);
          field += text[i++];
        }
      }
      fields.push(field);
      field = '';
      if (i >= n) atRowEnd = true;
      else if (text[i] === ',') i++;
      else {
        if (text[i] === '\r') i++;
        if (text[i] === '\n') i++;
        atRowEnd = true;
      }
    }
    if (!(fields.length === 1 && fields[0] === '')) rows.push({ fields, position: start });
  }
  return rows;
}

function checkTerm(value: string, what: 'source' | 'target', index: number, position: number): void {
  const where = `entry with the index ${index} (starting at position ${position})`;
  if (value.length === 0) throw invalidEntries(`The ${what} of the ${where} is empty`);
  if (CONTROL.test(value)) throw invalidEntries(`The ${what} of the ${where} contains a control character or newline`);
  if (EDGE_SPACE.test(value)) throw invalidEntries(`The ${what} of the ${where} has leading or trailing whitespace`);
  if (Buffer.byteLength(value, 'utf8') > MAX_TERM_BYTES) {
    throw invalidEntries(`The ${what} of the ${where} is longer than ${MAX_TERM_BYTES} UTF-8 bytes`);
  }
}

/**
 * Parses and validates entries. For CSV, optional columns 3 and 4 name the pair of the row; rows of another pair are
 * skipped (when `pair` is given).
 */
export function parseEntries(text: string, format: EntriesFormat, pair?: { source: string; target: string }): GlossaryEntry[] {
  if (Buffer.byteLength(text, 'utf8') > MAX_DICTIONARY_BYTES) {
    throw new ServiceError('payload_too_large', 'Glossary entries exceed the maximum size of 10 MiB per dictionary.');
  }
  const rows = format === 'csv' ? csvRows(text) : tsvRows(text);
  const entries: GlossaryEntry[] = [];
  const seen = new Map<string, { index: number; position: number }>();
  for (const row of rows) {
    const index = entries.length;
    const { fields, position } = row;
    if (format === 'tsv' && fields.length !== 2) {
      throw invalidEntries(`Entry with the index ${index} (starting at position ${position}) must contain exactly one tab separating source and target`);
    }
    if (format === 'csv') {
      if (fields.length !== 2 && fields.length !== 4) {
        throw invalidEntries(`Entry with the index ${index} (starting at position ${position}) must have 2 or 4 columns`);
      }
      if (fields.length === 4 && pair) {
        const [s, t] = [fields[2]!.trim().toLowerCase(), fields[3]!.trim().toLowerCase()];
        if (s.split('-')[0] !== pair.source || t.split('-')[0] !== pair.target) continue;
      }
    }
    const [source, target] = [fields[0]!, fields[1]!];
    checkTerm(source, 'source', index, position);
    checkTerm(target, 'target', index, position);
    const previous = seen.get(source);
    if (previous) {
      throw invalidEntries(
        `Key with the index ${index} (starting at position ${position}) duplicates key with the index ${previous.index} (starting at position ${previous.position})`,
      );
    }
    seen.set(source, { index, position });
    entries.push({ source, target });
  }
  return entries;
}

/** The canonical storage and output format: one `source\ttarget` per line. */
export function toTsv(entries: readonly GlossaryEntry[]): string {
  return entries.map((e) => `${e.source}\t${e.target}`).join('\n');
}

/** Reads stored canonical TSV (already validated). */
export function fromTsv(text: string): GlossaryEntry[] {
  if (text.length === 0) return [];
  return text.split('\n').map((line) => {
    const tab = line.indexOf('\t');
    return { source: line.slice(0, tab), target: line.slice(tab + 1) };
  });
}

/** Merges new entries into old ones: a source present in both takes the new target (PATCH semantics). */
export function mergeEntries(old: readonly GlossaryEntry[], added: readonly GlossaryEntry[]): GlossaryEntry[] {
  const map = new Map(old.map((e) => [e.source, e.target]));
  for (const e of added) map.set(e.source, e.target);
  return [...map].map(([source, target]) => ({ source, target }));
}
