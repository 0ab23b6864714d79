// Why: what a language detection reports, shared by the detector, its wrappers and the services.

export type DetectionStatus = 'success' | 'insufficient_confidence' | 'unsupported_language' | 'no_language_detected';

export interface DetectionOutcome {
  status: DetectionStatus;
  /** Tolk lower-case code; only set when status is `success` (always one of DETECTION_LANGUAGES). */
  language?: string;
  /**
   * Best guess (Tolk lower-case code) whenever the text had letters the model recognised, even when
   * it is outside DETECTION_LANGUAGES (e.g. `ca`) or confidence was too low. Translation with an
   * omitted source_lang uses this.
   */
  rawLanguage?: string;
  /**
   * 0–1; 0.5 and above is a success. Short alphabetic text (under 20 letters): the learned confidence
   * (short-text-confidence.ts) mapped so that its threshold is 0.5. Longer text: 1 − exp(−evidence / 0.1) where
   * evidence = relative margin of eld's best language over the runner-up ((top − second) / top) × letters analysed,
   * so it grows with both separation and length. 1 for script-decided languages, 0 when nothing was detected.
   */
  confidence: number;
  /**
   * For `insufficient_confidence`: the languages (Tolk codes, among DETECTION_LANGUAGES) the text may be in, best
   * first, within the model's candidateWindow of the best by the n-gram model with eld's scores; absent without the model.
   */
  candidates?: readonly string[];
  /** Set when the installed dictionaries and analysers decided a short text the vote was unsure of (lexicon-vote.ts). */
  decidedBy?: 'lexicons';
}

export interface LanguageDetector {
  detect(text: string): DetectionOutcome;
  /** Languages (Tolk codes) the model can recognise, inside or outside DETECTION_LANGUAGES. */
  readonly languages: ReadonlySet<string>;
}

/** The detector as the services use it: a detection may first wait for the detector's tables to load. */
export interface LanguageDetection {
  detect(text: string): Promise<DetectionOutcome>;
  /** Languages (Tolk codes) the model can recognise, known without loading it. */
  readonly languages: ReadonlySet<string>;
}
