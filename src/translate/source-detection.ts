// Which language a text is translated from when the caller did not say: the detector, with a fallback for texts
// too short to tell (single words, greetings, labels).
import type { LanguageDetection } from '../detect/language-detector.js';
import { baseLang } from './languages.js';
import type { SourceChoice, SourceDetector } from './translate-service.js';

export interface SourceDetectionPolicy {
  detector: Pick<LanguageDetection, 'detect'>;
  /** True when some route, direct or through pivots, translates source → target (the target's base counts). */
  canTranslate(source: string, target: string): boolean;
  /** True when some engine translates into the target: only then may an unsure text be taken as already in it. */
  servesTarget(target: string): boolean;
  /** TOLK_DEFAULT_SOURCE_LANG: the source assumed for undecidable short texts. */
  defaultSourceLang?: string | undefined;
}

export function sourceDetector(policy: SourceDetectionPolicy): SourceDetector {
  return {
    async detectSource(text, target): Promise<SourceChoice> {
      const outcome = await policy.detector.detect(text);
      // The detector calibrates short texts itself, so /v3/detect/language and translation agree.
      if (outcome.status === 'success' || outcome.status === 'unsupported_language') return { source: outcome.rawLanguage, detected: true };
      if (outcome.status === 'no_language_detected') return { source: undefined, detected: true };
      // Too short or ambiguous to decide: the unsure guess is never used as such. The languages the text may be in,
      // best first; the configured default source first (short greetings and labels are mostly in it) unless the
      // likeliest language is the target itself ("Protonenstrahl" into German stays German).
      const targetBase = baseLang(target);
      const candidates = outcome.candidates ?? (outcome.rawLanguage === undefined ? [] : [outcome.rawLanguage]);
      const fallback = policy.defaultSourceLang;
      const usable = (lang: string) => lang !== targetBase && policy.canTranslate(lang, target);
      if (fallback && candidates[0] !== targetBase && usable(fallback)) return { source: fallback, detected: false };
      // The likeliest language some engine translates to the target, or the target itself (nothing to translate) when
      // an engine serves it: into a target nothing serves, an unsure text is refused as such, never labelled with it.
      const served = policy.servesTarget(target);
      const source = candidates.find((lang) => (lang === targetBase && served) || usable(lang));
      return { source, detected: false };
    },
  };
}
