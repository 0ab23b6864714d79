// Parses the fields of a /v2/document upload with the same rules and messages as /v2/translate; the translation core
// validates the languages and loads the glossaries, style rules and memory at upload (prepare), as for text.
import { unsupportedValue } from '../../lib/errors.js';
import type { Formality } from '../../translate/translate-job.js';
import type { DocumentRequest } from '../../documents/document-request.js';
import { customizationRefsOf, glossaryIdsOf, optionalBoolean, parseSourceLang, parseTargetLang } from './translate-request.js';

const FORMALITIES: readonly Formality[] = ['default', 'more', 'less', 'prefer_more', 'prefer_less'];

type Fields = Record<string, unknown>;

function optionalString(fields: Fields, name: string): string | undefined {
  const v = fields[name];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw unsupportedValue(name);
  return v;
}

function list(fields: Fields, name: string): string[] {
  const v = fields[name];
  if (v === undefined || v === null || v === '') return [];
  const items = Array.isArray(v) ? v : [v];
  const out: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string') throw unsupportedValue(name);
    for (const part of item.split(',')) if (part.trim()) out.push(part.trim());
  }
  return out;
}

export function parseDocumentRequest(fields: Fields): DocumentRequest {
  const targetLang = parseTargetLang(fields);
  const sourceLang = parseSourceLang(fields);
  const formality = (optionalString(fields, 'formality') ?? 'default') as Formality;
  if (!FORMALITIES.includes(formality)) throw unsupportedValue('formality');
  const outputFormat = optionalString(fields, 'output_format')?.trim().replace(/^\./, '').toLowerCase();
  if (outputFormat !== undefined && !/^[a-z0-9]{1,10}$/.test(outputFormat)) throw unsupportedValue('output_format');
  const enableWatermark = optionalBoolean(fields, 'enable_watermark') ?? false;
  optionalBoolean(fields, 'enable_beta_languages'); // deprecated, no effect, but still a boolean

  const glossaryIds = glossaryIdsOf(optionalString(fields, 'glossary_id'), list(fields, 'glossary_ids'), sourceLang);
  const { styleId, translationMemoryId, translationMemoryThreshold } = customizationRefsOf(
    optionalString(fields, 'style_id'),
    optionalString(fields, 'translation_memory_id'),
    optionalString(fields, 'translation_memory_threshold'),
  );
  return {
    targetLang,
    sourceLang,
    formality,
    outputFormat,
    enableWatermark,
    glossaryIds,
    styleId,
    translationMemoryId,
    translationMemoryThreshold,
    fileName: optionalString(fields, 'filename'),
  };
}
