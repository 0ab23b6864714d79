// Parses LibreTranslate's request bodies (JSON or form) and maps its language codes to Tolk's and back, with its
// error messages ("Invalid request: missing q parameter"). docs/libretranslate.md lists the mapping.
import { invalid } from '../../lib/errors.js';
import { baseLang, normalizeLangCode } from '../../translate/languages.js';
import { MAX_TEXTS } from './translate-request.js';

type Body = Record<string, unknown>;

/** LibreTranslate's codes (old and current spellings, lower-cased) that are not Tolk codes as they stand. */
const FROM_LIBRE: Record<string, string> = {
  zh: 'zh-hans', // LibreTranslate's "zh" is simplified Chinese
  'zh-hans': 'zh-hans',
  zt: 'zh-hant', // its former code for traditional Chinese
  'zh-hant': 'zh-hant',
  pb: 'pt-br', // its former code for Brazilian Portuguese
  'pt-br': 'pt-br',
};

/** Tolk codes whose LibreTranslate spelling differs from the base language code. */
const TO_LIBRE: Record<string, string> = { zh: 'zh-Hans', 'zh-hans': 'zh-Hans', 'zh-hant': 'zh-Hant', 'pt-br': 'pt-BR' };

/** The LibreTranslate code of a Tolk code: regional variants collapse to the language ("en-gb" → "en") but for
 * the scripts of Chinese and Brazilian Portuguese, which LibreTranslate names apart. */
export function toLibreCode(tolkCode: string): string {
  const code = tolkCode.toLowerCase();
  return TO_LIBRE[code] ?? baseLang(code);
}

/** A LibreTranslate code as a Tolk target code, or undefined when Tolk does not know it. */
export function targetFromLibre(raw: string): string | undefined {
  const code = raw.trim().toLowerCase().replace(/_/g, '-');
  return FROM_LIBRE[code] ?? normalizeLangCode(code);
}

/** Sources are languages, not variants ("zt" and "zh-Hans" both mean Chinese, "pt-BR" Portuguese). */
export function sourceFromLibre(raw: string): string | undefined {
  const code = targetFromLibre(raw);
  return code === undefined ? undefined : baseLang(code);
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

export const missing = (name: string) => invalid(`Invalid request: missing ${name} parameter`);
const notSupported = (lang: string) => invalid(`${lang} is not supported`);

export function libreBody(body: unknown): Body {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body)) throw invalid('Invalid JSON format');
  return body as Body;
}

/**
 * The parameters of a request as LibreTranslate reads them: a JSON body alone, or else the query string and the form
 * (URL-encoded or multipart) together, the query string first (Flask's `request.values`).
 */
export function libreValues(body: unknown, query: unknown, json: boolean): Body {
  const fields = libreBody(body);
  if (json || query === null || typeof query !== 'object') return fields;
  const merged: Body = { ...fields };
  for (const [name, value] of Object.entries(query as Body)) if (present(value)) merged[name] = value;
  return merged;
}

function stringParam(body: Body, name: string): string | undefined {
  const v = body[name];
  if (!present(v)) return undefined;
  if (typeof v !== 'string') throw invalid(`Invalid request: ${name} parameter must be a string`);
  return v;
}

/** `source` (a language or `auto`) and `target`, both required. Undefined source: detect it. */
export function parseLanguages(body: Body): { sourceLang: string | undefined; targetLang: string } {
  const source = stringParam(body, 'source');
  if (source === undefined) throw missing('source');
  const target = stringParam(body, 'target');
  if (target === undefined) throw missing('target');
  let sourceLang: string | undefined;
  if (source.trim().toLowerCase() !== 'auto') {
    sourceLang = sourceFromLibre(source);
    if (sourceLang === undefined) throw notSupported(source);
  }
  const targetLang = targetFromLibre(target);
  if (targetLang === undefined) throw notSupported(target);
  return { sourceLang, targetLang };
}

export interface LibreTranslateRequest {
  texts: string[];
  /** `q` was an array: the answer's fields are arrays too. */
  batch: boolean;
  sourceLang: string | undefined;
  targetLang: string;
  format: 'text' | 'html';
  /** Alternatives asked for; the engines give one translation, so the answer's lists stay empty. */
  alternatives: number;
}

export function parseTranslateBody(raw: unknown): LibreTranslateRequest {
  const body = libreBody(raw);
  const q = body.q;
  if (!present(q) || (Array.isArray(q) && q.length === 0)) throw missing('q');
  const batch = Array.isArray(q);
  const texts = batch ? q : [q];
  if (texts.some((t) => typeof t !== 'string')) throw invalid('Invalid request: q parameter must be a string or an array of strings');
  if (texts.length > MAX_TEXTS) throw invalid(`Invalid request: request (${texts.length}) exceeds text limit (${MAX_TEXTS})`);
  const { sourceLang, targetLang } = parseLanguages(body);
  const format = stringParam(body, 'format') ?? 'text';
  if (format !== 'text' && format !== 'html') throw invalid(`${format} format is not supported`);
  let alternatives = 0;
  if (present(body.alternatives)) {
    // As LibreTranslate's int(): a JSON number is truncated (2.5 → 2), a string must spell an integer ("2.5" is refused).
    const v = body.alternatives;
    const n = typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : typeof v === 'string' && /^\s*[-+]?\d{1,9}\s*$/.test(v) ? Number(v) : NaN;
    if (!Number.isInteger(n)) throw invalid('Invalid request: alternatives parameter is not a number');
    alternatives = Math.max(0, n);
  }
  return { texts: texts as string[], batch, sourceLang, targetLang, format, alternatives };
}

/** `/detect`'s `q`: one text (an array is read as one text, as LibreTranslate pools a batch's detections). */
export function parseDetectBody(raw: unknown): string {
  const q = libreBody(raw).q;
  if (!present(q) || (Array.isArray(q) && q.length === 0)) throw missing('q');
  const texts = Array.isArray(q) ? q : [q];
  if (texts.some((t) => typeof t !== 'string')) throw invalid('Invalid request: q parameter must be a string');
  return (texts as string[]).join('\n');
}
