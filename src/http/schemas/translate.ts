// /v2/translate response schema (the request is validated by src/translate/translate-request.ts for exact messages).
import { Type } from '@sinclair/typebox';

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
