// What a translation is asked to do, independent of how it arrived (HTTP text request, document job, voice session).
import type { AuthContext } from '../accounts/accounts-service.js';

export type SplitSentences = '0' | '1' | 'nonewlines';
export type Formality = 'default' | 'more' | 'less' | 'prefer_more' | 'prefer_less';
export type TagHandling = 'xml' | 'html';

/** How texts are segmented, formatted and marked up. */
export interface TextOptions {
  formality: Formality;
  splitSentences: SplitSentences;
  preserveFormatting: boolean;
  context?: string | undefined;
  tagHandling?: TagHandling | undefined;
  tagHandlingVersion?: 'v1' | 'v2' | undefined;
  outlineDetection: boolean;
  nonSplittingTags: string[];
  splittingTags: string[];
  ignoreTags: string[];
}

/** The account's resources a translation applies: glossaries, style rules, a translation memory, instructions. */
export interface CustomizationIds {
  glossaryIds: string[];
  styleId: string | undefined;
  translationMemoryId: string | undefined;
  translationMemoryThreshold: number | undefined;
  customInstructions: string[];
}

/** Languages, options and resources of a translation: everything but the texts and who pays. */
export interface TranslationSpec {
  /** Tolk code; undefined = detected per text. */
  sourceLang: string | undefined;
  targetLang: string;
  options: TextOptions;
  customization: CustomizationIds;
}

/** One metered text translation: the spec, the texts, and the key that is charged. */
export interface TranslateJob extends TranslationSpec {
  texts: string[];
  caller: AuthContext;
  reportingTag: string | null;
  /** Aborted when the client goes away: queued engine work is dropped. */
  signal?: AbortSignal | undefined;
}

export const NO_CUSTOMIZATION: CustomizationIds = {
  glossaryIds: [],
  styleId: undefined,
  translationMemoryId: undefined,
  translationMemoryThreshold: undefined,
  customInstructions: [],
};

/** Options with the defaults of /v2/translate for every field not given. */
export function textOptions(given: Partial<TextOptions> = {}): TextOptions {
  return {
    formality: 'default',
    splitSentences: '1',
    preserveFormatting: false,
    outlineDetection: true,
    nonSplittingTags: [],
    splittingTags: [],
    ignoreTags: [],
    ...given,
  };
}
