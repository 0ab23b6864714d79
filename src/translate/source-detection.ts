// Which language a text is translated from when the caller did not say: the detector, with a fallback for texts
// too short to tell (single words, greetings, labels).
import type { LanguageDetector } from '../detect/language-detector.js';
import { baseLang } from './languages.js';
import type { SourceDetector } from './translate-service.js';

export interface SourceDetectionPolicy {
  detector: Pick<LanguageDetector, 'detect'>;
  /** True when some route translates source → target (the target's base counts). */
  canTranslate(source: string, target: string): boolean;
  /** TOLK_DEFAULT_SOURCE_LANG: the source assumed for undecidable short texts. */
  defaultSourceLang?: string | undefined;
}

export function sourceDetector(policy: SourceDetectionPolicy): SourceDetector {
  return {
    detectSource(text, target) {
      const outcome = policy.detector.detect(text);
      const guess = outcome.rawLanguage;
      // The detector calibrates short texts itself, so /v3/detect/language and translation agree.
      if (outcome.status === 'success' || outcome.status === 'unsupported_language') return guess;
      if (outcome.status === 'no_language_detected' || guess === undefined) return undefined;
      // Too short or ambiguous to decide (single words): the configured default source wins when it can be
      // translated to the target, as short greetings and labels are mostly in it; else the detector's best guess.
      const fallback = policy.defaultSourceLang;
      if (fallback && baseLang(target) !== fallback && policy.canTranslate(fallback, target)) return fallback;
      return guess;
    },
  };
}
