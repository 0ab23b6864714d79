// Developer-key request bodies (JSON or form) → the developer keys service's typed inputs, with one clear 400 message
// per field.
import { invalid } from '../../lib/errors.js';
import { SCOPES, isScope, type Scope } from '../../admin/scopes.js';
import type { KeyLimits } from '../../admin/developer-keys-service.js';

export const MAX_LABEL_LENGTH = 255;
/** Two GUIDs joined by a colon, as the reference shapes key ids. */
const KEY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type Body = Record<string, unknown>;

export function bodyOf(raw: unknown): Body {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) && !Buffer.isBuffer(raw) ? (raw as Body) : {};
}

export const missing = (name: string) => invalid(`Parameter '${name}' not specified`);

/** The key id, lower-cased; malformed ids are a 400 (unknown well-formed ids become a 404 later). */
export function parseKeyId(body: Body): string {
  const raw = body.key_id;
  if (raw === undefined || raw === null || raw === '') throw missing('key_id');
  if (typeof raw !== 'string' || !KEY_ID.test(raw.trim())) {
    throw invalid("Value for 'key_id' not supported. A key id is two GUIDs joined by a colon.");
  }
  return raw.trim().toLowerCase();
}

/** A label: trimmed, 1–255 characters, no control characters. */
export function parseLabel(raw: unknown): string {
  const label = typeof raw === 'string' ? raw.trim() : undefined;
  // eslint-disable-next-line no-control-regex
  if (label === undefined || label === '' || [...label].length > MAX_LABEL_LENGTH || /[\u0000-\u001f\u007f]/.test(label)) {
    throw invalid(
      `Value for 'label' not supported. A label is a non-empty string of at most ${MAX_LABEL_LENGTH} characters without control characters.`,
    );
  }
  return label;
}

/**
 * A usage limit: a non-negative integer, or null for "no limit" (form bodies send digits, or an empty value / "null").
 * Returns undefined when the field is absent (= leave unchanged).
 */
export function parseLimit(body: Body, name: 'characters' | 'speech_to_text_milliseconds'): number | null | undefined {
  if (!(name in body)) return undefined;
  const raw = body[name];
  if (raw === null || raw === '' || raw === 'null') return null;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) {
    throw invalid(`Value for '${name}' not supported. Use a non-negative integer, 0 to block the key, or null for no limit.`);
  }
  return n;
}

/**
 * Scopes: an array of endpoint-group names (a form body repeats `scopes`, or joins them with commas), or null for an
 * unrestricted key. Returns undefined when the field is absent.
 */
export function parseScopes(body: Body): Scope[] | null | undefined {
  if (!('scopes' in body)) return undefined;
  const raw = body.scopes;
  if (raw === null || raw === 'null') return null;
  const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? (raw.trim() === '' ? [] : raw.split(',')) : undefined;
  if (items === undefined || items.some((s) => typeof s !== 'string')) {
    throw invalid(`Value for 'scopes' not supported. Use an array of scope names (${SCOPES.join(', ')}) or null.`);
  }
  const names = (items as string[]).map((s) => s.trim().toLowerCase());
  const unknown = names.find((s) => !isScope(s));
  if (unknown !== undefined) {
    throw invalid(`Value for 'scopes' not supported. Unknown scope '${unknown}'. Allowed: ${SCOPES.join(', ')}.`);
  }
  return [...new Set(names as Scope[])];
}

/** Create: an optional label (the default one when absent) and scopes (unrestricted when absent). */
export function parseCreateBody(raw: unknown): { label?: string; scopes: Scope[] | null } {
  const body = bodyOf(raw);
  const label = body.label === undefined || body.label === null ? undefined : parseLabel(body.label);
  return { ...(label !== undefined ? { label } : {}), scopes: parseScopes(body) ?? null };
}

export const parseKeyBody = (raw: unknown) => parseKeyId(bodyOf(raw));

export function parseLabelBody(raw: unknown): { keyId: string; label: string } {
  const body = bodyOf(raw);
  const keyId = parseKeyId(body);
  if (body.label === undefined || body.label === null) throw missing('label');
  return { keyId, label: parseLabel(body.label) };
}

/** Absent fields stay as they are; null lifts a limit; 0 blocks the key; at least one is needed. */
export function parseLimitsBody(raw: unknown): { keyId: string; limits: KeyLimits } {
  const body = bodyOf(raw);
  const keyId = parseKeyId(body);
  const characters = parseLimit(body, 'characters');
  const speech = parseLimit(body, 'speech_to_text_milliseconds');
  if (characters === undefined && speech === undefined) {
    throw invalid("Parameter 'characters' or 'speech_to_text_milliseconds' not specified");
  }
  return { keyId, limits: { ...(characters !== undefined ? { characters } : {}), ...(speech !== undefined ? { speechToTextMs: speech } : {}) } };
}

export function parseScopesBody(raw: unknown): { keyId: string; scopes: Scope[] | null } {
  const body = bodyOf(raw);
  const keyId = parseKeyId(body);
  const scopes = parseScopes(body);
  if (scopes === undefined) throw missing('scopes');
  return { keyId, scopes };
}
