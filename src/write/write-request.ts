// What the text improvement service is asked to do (/v2/write/rephrase, /v2/write/correct), and the targets it serves;
// the wire parser is src/http/requests/write-request.ts.
import type { WritingStyle, WritingTone } from '../engines/llm/index.js';

/** target_lang values the reference accepts for text improvement (TargetLanguageWrite), as Tolk codes. */
export const WRITE_TARGETS = ['de', 'en', 'en-gb', 'en-us', 'es', 'fr', 'it', 'ja', 'ko', 'pt', 'pt-br', 'pt-pt', 'zh', 'zh-hans'] as const;

/** Targets where writing_style and tone may be set (the reference's current docs). */
export const STYLE_TARGETS = new Set(['de', 'en', 'en-gb', 'en-us', 'es', 'fr', 'it', 'pt', 'pt-br', 'pt-pt']);

export interface WriteRequest {
  texts: string[];
  /** Tolk code, undefined when target_lang was omitted (the language is then detected per text). */
  targetLang: string | undefined;
  /** target_lang as the client sent it (for messages). */
  targetLangRaw: string | undefined;
  style: WritingStyle | undefined;
  tone: WritingTone | undefined;
}
