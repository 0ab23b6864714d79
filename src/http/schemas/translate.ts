// /v2/translate request and response schemas. The request is checked by src/http/requests/translate-request.ts, whose
// messages the clients depend on; its schema documents the parameters (see handlerChecked).
import { Type } from '@sinclair/typebox';
import { Flag, OneOrMany, handlerChecked } from './common.js';

const Enum = (values: readonly string[], description: string) => Type.Union(values.map((v) => Type.Literal(v)), { description });
const TagList = (description: string) => OneOrMany(Type.String(), `${description} A list or one comma-separated string.`);

/** Options shared by /v2/translate and the document upload. */
export const translationOptions = {
  source_lang: Type.Optional(Type.String({ description: 'Language of the text (e.g. `DE`); detected when absent.' })),
  target_lang: Type.String({ description: 'Language to translate into (e.g. `EN-GB`).' }),
  formality: Type.Optional(Enum(['default', 'more', 'less', 'prefer_more', 'prefer_less'], 'Formality of the translation.')),
  glossary_id: Type.Optional(Type.String({ format: 'uuid', description: 'Glossary to apply (needs source_lang).' })),
  style_id: Type.Optional(Type.String({ format: 'uuid', description: 'Style rule list to apply.' })),
  translation_memory_id: Type.Optional(Type.String({ format: 'uuid', description: 'Translation memory to consult.' })),
  translation_memory_threshold: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.String()], { description: 'Lowest fuzzy-match score used (0–100).' }),
  ),
};

export const TranslateBody = handlerChecked({
  text: OneOrMany(Type.String(), 'Texts to translate (at most 50); a form body repeats the field.'),
  ...translationOptions,
  context: Type.Optional(Type.String({ description: 'Text around the input that guides the translation; not translated, not billed.' })),
  show_billed_characters: Type.Optional(Flag('Report billed characters per text and in total.')),
  split_sentences: Type.Optional(Enum(['0', '1', 'nonewlines'], 'Sentence splitting (`nonewlines` is the default with HTML).')),
  preserve_formatting: Type.Optional(Flag('Keep punctuation and case as given.')),
  model_type: Type.Optional(Enum(['quality_optimized', 'prefer_quality_optimized', 'latency_optimized'], 'Model preference.')),
  glossary_ids: Type.Optional(TagList('Glossaries to apply (at most 5; not with glossary_id).')),
  custom_instructions: Type.Optional(OneOrMany(Type.String({ maxLength: 300 }), 'Up to 10 instructions for the translation.')),
  tag_handling: Type.Optional(Enum(['xml', 'html'], 'Markup of the texts.')),
  tag_handling_version: Type.Optional(Enum(['v1', 'v2'], 'Markup handling algorithm.')),
  outline_detection: Type.Optional(Flag('Detect the XML structure automatically (default true).')),
  non_splitting_tags: Type.Optional(TagList('XML tags that never split sentences.')),
  splitting_tags: Type.Optional(TagList('XML tags that always split sentences.')),
  ignore_tags: Type.Optional(TagList('XML tags whose content is not translated.')),
  enable_beta_languages: Type.Optional(Flag('Deprecated; no effect.')),
});

export const TranslationItem = Type.Object({
  detected_source_language: Type.String(),
  text: Type.String(),
  billed_characters: Type.Optional(Type.Integer()),
  model_type_used: Type.Optional(Type.String()),
  tag_handling_version: Type.Optional(Type.String()),
});

export const TranslateResponse = Type.Object({
  translations: Type.Array(TranslationItem),
  billed_characters: Type.Optional(Type.Integer()),
});
