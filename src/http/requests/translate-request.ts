// Parses and validates a /v2/translate body (JSON or form, already decoded to an object) into a typed request,
// with the reference API's exact messages. Form bodies repeat `text` and join tag lists with commas.
import { ServiceError, invalid, unsupportedValue } from '../../lib/errors.js';
import { normalizeLangCode } from '../../translate/languages.js';
import type { Formality, SplitSentences, TagHandling, TranslationSpec } from '../../translate/translate-job.js';

export type ModelType = 'quality_optimized' | 'prefer_quality_optimized' | 'latency_optimized';

export const MAX_TEXTS = 50;
export const MAX_GLOSSARY_IDS = 5;
export const MAX_CUSTOM_INSTRUCTIONS = 10;
export const MAX_CUSTOM_INSTRUCTION_LENGTH = 300;
const CUSTOM_INSTRUCTION_TARGETS = new Set(['de', 'en', 'es', 'fr', 'it', 'ja', 'ko', 'zh']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface TranslateRequest {
  texts: string[];
  targetLang: string;
  sourceLang: string | undefined;
  context: string | undefined;
  showBilledCharacters: boolean;
  splitSentences: SplitSentences;
  preserveFormatting: boolean;
  formality: Formality;
  modelType: ModelType | undefined;
  glossaryIds: string[];
  styleId: string | undefined;
  translationMemoryId: string | undefined;
  translationMemoryThreshold: number | undefined;
  customInstructions: string[];
  tagHandling: TagHandling | undefined;
  tagHandlingVersion: 'v1' | 'v2' | undefined;
  outlineDetection: boolean;
  nonSplittingTags: string[];
  splittingTags: string[];
  ignoreTags: string[];
}

type Body = Record<string, unknown>;

function present(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

function optionalString(body: Body, name: string): string | undefined {
  const v = body[name];
  if (!present(v)) return undefined;
  if (typeof v !== 'string') throw unsupportedValue(name);
  return v;
}

function optionalEnum<T extends string>(body: Body, name: string, allowed: readonly T[]): T | undefined {
  const v = optionalString(body, name);
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v)) throw unsupportedValue(name);
  return v as T;
}

/** Booleans arrive as JSON booleans, or as "0"/"1"/"true"/"false" in form bodies. */
export function optionalBoolean(body: Body, name: string): boolean | undefined {
  const v = body[name];
  if (!present(v)) return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === '1' || v === 'true') return true;
  if (v === 0 || v === '0' || v === 'false') return false;
  throw unsupportedValue(name);
}

/** A list parameter: JSON array of strings, or a comma-separated / repeated form value. */
function stringList(body: Body, name: string): string[] {
  const v = body[name];
  if (!present(v)) return [];
  const items = Array.isArray(v) ? v : [v];
  const out: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string') throw unsupportedValue(name);
    for (const part of item.split(',')) {
      const t = part.trim();
      if (t) out.push(t);
    }
  }
  return out;
}

export function parseTexts(body: Body): string[] {
  const v = body.text;
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) throw invalid("Parameter 'text' not specified");
  const texts = Array.isArray(v) ? v : [v];
  if (texts.length > MAX_TEXTS) {
    throw new ServiceError('payload_too_large', `Too many texts: at most ${MAX_TEXTS} 'text' values per request.`);
  }
  for (const t of texts) if (typeof t !== 'string') throw unsupportedValue('text');
  return texts as string[];
}

export function parseTargetLang(body: Body): string {
  const raw = body.target_lang;
  if (!present(raw)) throw invalid("Parameter 'target_lang' not specified");
  if (typeof raw !== 'string') throw unsupportedValue('target_lang');
  const code = normalizeLangCode(raw);
  if (!code) throw unsupportedValue('target_lang');
  return code;
}

export function parseSourceLang(body: Body): string | undefined {
  const raw = optionalString(body, 'source_lang');
  if (raw === undefined) return undefined;
  const code = normalizeLangCode(raw);
  if (!code) throw unsupportedValue('source_lang');
  // Sources are languages, not variants: "EN-US" as a source means English.
  return code.split('-')[0]!;
}

export function parseTranslateRequest(body: unknown): TranslateRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid("Parameter 'text' not specified");
  const b = body as Body;
  const texts = parseTexts(b);
  const targetLang = parseTargetLang(b);
  const sourceLang = parseSourceLang(b);

  const context = optionalString(b, 'context');
  const showBilledCharacters = optionalBoolean(b, 'show_billed_characters') ?? false;
  const tagHandling = optionalEnum(b, 'tag_handling', ['xml', 'html'] as const);
  const splitSentences =
    optionalEnum(b, 'split_sentences', ['0', '1', 'nonewlines'] as const) ?? (tagHandling === 'html' ? 'nonewlines' : '1');
  const preserveFormatting = optionalBoolean(b, 'preserve_formatting') ?? false;
  const formality =
    optionalEnum(b, 'formality', ['default', 'more', 'less', 'prefer_more', 'prefer_less'] as const) ?? 'default';
  const modelType = optionalEnum(b, 'model_type', ['quality_optimized', 'prefer_quality_optimized', 'latency_optimized'] as const);
  const outlineDetection = optionalBoolean(b, 'outline_detection') ?? true;
  // The reference documents style_id, custom_instructions and tag_handling_version for JSON bodies only; client
  // libraries (deepl-node) send them in forms too, so both are read.
  const tagHandlingVersion = optionalEnum(b, 'tag_handling_version', ['v1', 'v2'] as const);
  const nonSplittingTags = stringList(b, 'non_splitting_tags');
  const splittingTags = stringList(b, 'splitting_tags');
  const ignoreTags = stringList(b, 'ignore_tags');
  optionalBoolean(b, 'enable_beta_languages'); // deprecated, no effect, but still a boolean

  // Glossaries
  const glossaryIds = glossaryIdsOf(optionalString(b, 'glossary_id'), stringList(b, 'glossary_ids'), sourceLang);

  // Style rules, translation memory, custom instructions
  const { styleId, translationMemoryId, translationMemoryThreshold } = customizationRefsOf(
    optionalString(b, 'style_id'),
    optionalString(b, 'translation_memory_id'),
    b.translation_memory_threshold,
  );
  let customInstructions: string[] = [];
  if (present(b.custom_instructions)) {
    // a form body carries one instruction as a string, several as repeated fields
    const ci = typeof b.custom_instructions === 'string' ? [b.custom_instructions] : b.custom_instructions;
    if (!Array.isArray(ci) || ci.some((s) => typeof s !== 'string')) throw unsupportedValue('custom_instructions');
    if (ci.length > MAX_CUSTOM_INSTRUCTIONS) throw invalid(`Parameter 'custom_instructions' accepts at most ${MAX_CUSTOM_INSTRUCTIONS} entries.`);
    for (const s of ci as string[]) {
      if ([...s].length > MAX_CUSTOM_INSTRUCTION_LENGTH) {
        throw invalid(`Each entry of 'custom_instructions' may have at most ${MAX_CUSTOM_INSTRUCTION_LENGTH} characters.`);
      }
    }
    if (ci.length > 0 && !CUSTOM_INSTRUCTION_TARGETS.has(targetLang.split('-')[0]!)) {
      throw invalid("Parameter 'custom_instructions' is not supported for this target language.");
    }
    customInstructions = ci as string[];
  }

  return {
    texts,
    targetLang,
    sourceLang,
    context,
    showBilledCharacters,
    splitSentences,
    preserveFormatting,
    formality,
    modelType,
    glossaryIds,
    styleId,
    translationMemoryId,
    translationMemoryThreshold,
    customInstructions,
    tagHandling,
    tagHandlingVersion,
    outlineDetection,
    nonSplittingTags,
    splittingTags,
    ignoreTags,
  };
}

/** `glossary_id` or `glossary_ids` (never both, at most five UUIDs, only with a source_lang), for text and documents. */
/**
 * The style rule list, translation memory and match threshold a request names (text and document requests alike):
 * ids must be UUIDs, the threshold an integer 0–100, as a JSON number or a form's digits.
 */
export function customizationRefsOf(
  styleId: string | undefined,
  translationMemoryId: string | undefined,
  rawThreshold: unknown,
): { styleId: string | undefined; translationMemoryId: string | undefined; translationMemoryThreshold: number | undefined } {
  if (styleId !== undefined && !UUID.test(styleId)) throw unsupportedValue('style_id');
  if (translationMemoryId !== undefined && !UUID.test(translationMemoryId)) throw unsupportedValue('translation_memory_id');
  if (!present(rawThreshold)) return { styleId, translationMemoryId, translationMemoryThreshold: undefined };
  const n = typeof rawThreshold === 'number' ? rawThreshold : typeof rawThreshold === 'string' && /^\s*\d{1,3}\s*$/.test(rawThreshold) ? Number(rawThreshold) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 100) throw invalid('Parameter "translation_memory_threshold" must be an integer between 0 and 100');
  return { styleId, translationMemoryId, translationMemoryThreshold: n };
}

export function glossaryIdsOf(glossaryId: string | undefined, glossaryIdList: string[], sourceLang: string | undefined): string[] {
  if (glossaryId !== undefined && glossaryIdList.length > 0) {
    throw invalid("Parameters 'glossary_id' and 'glossary_ids' cannot be used together.");
  }
  if (glossaryIdList.length > MAX_GLOSSARY_IDS) throw invalid(`Parameter 'glossary_ids' accepts at most ${MAX_GLOSSARY_IDS} glossaries.`);
  const glossaryIds = glossaryId !== undefined ? [glossaryId] : glossaryIdList;
  for (const id of glossaryIds) if (!UUID.test(id)) throw unsupportedValue(glossaryId !== undefined ? 'glossary_id' : 'glossary_ids');
  if (glossaryIds.length > 0 && sourceLang === undefined) {
    throw invalid('Use of a glossary requires the source_lang parameter to be specified');
  }
  return glossaryIds;
}

/** The request's languages, options and resources as the translation core takes them. */
export function translationSpecOf(req: TranslateRequest): TranslationSpec {
  return {
    sourceLang: req.sourceLang,
    targetLang: req.targetLang,
    options: {
      formality: req.formality,
      splitSentences: req.splitSentences,
      preserveFormatting: req.preserveFormatting,
      context: req.context,
      tagHandling: req.tagHandling,
      tagHandlingVersion: req.tagHandlingVersion,
      outlineDetection: req.outlineDetection,
      nonSplittingTags: req.nonSplittingTags,
      splittingTags: req.splittingTags,
      ignoreTags: req.ignoreTags,
    },
    customization: {
      glossaryIds: req.glossaryIds,
      styleId: req.styleId,
      translationMemoryId: req.translationMemoryId,
      translationMemoryThreshold: req.translationMemoryThreshold,
      customInstructions: req.customInstructions,
    },
  };
}
