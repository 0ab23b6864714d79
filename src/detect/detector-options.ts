// The knobs of EldLanguageDetector: defaults were calibrated on FLORES-200 dev (docs/benchmarks.md); the training
// and benchmark scripts override them.
import type { NgramModel } from './ngram-model.js';
import type { ShortTextCalibration } from './short-text-confidence.js';

export interface EldLanguageDetectorOptions {
  /** Characters of the input analysed (eld itself stops after ~380 UTF-8 bytes). Default 1000. */
  maxChars?: number;
  /** Below this many letters of an alphabetic script the result is `insufficient_confidence`. Default 3. */
  minLetters?: number;
  /** Below this confidence the result is `insufficient_confidence`. Default 0.5 (evidence ≈ 0.069). */
  minConfidence?: number;
  /**
   * With at least FIT_MIN_LETTERS letters, a best score below this share of eld's average score for
   * that language means the text is in a language the model lacks (Welsh, Maltese…) or a mix:
   * `insufficient_confidence`. Default 0.6; 0 disables.
   */
  minFit?: number;
  /** Decide Hangul/Kana/Han/Thai/Greek/Hebrew text by script alone. Default true. */
  scriptShortcuts?: boolean;
  /** Re-rank close candidates by alphabet compatibility and da/nb function words. Default true. */
  neighbourHints?: boolean;
  /**
   * Judge text under 20 letters by its own rules: the n-gram model's learned confidence (or, without the model, the
   * SHORT_MARGINS rules). Default true; false leaves it to eld's confidence alone.
   */
  shortMargins?: boolean;
  /** eld database size. Default 'small': the large one adds ≈300 MB and 2 s of start-up for no measurable gain (docs/benchmarks.md). */
  database?: 'extrasmall' | 'small' | 'medium' | 'large';
  /**
   * Share taken off the n-gram score of languages outside DETECTION_LANGUAGES (Azerbaijani, Serbian, Croatian…),
   * which otherwise win short snippets of their neighbours. Default 0.05.
   */
  foreignPenalty?: number;
  /**
   * Short alphabetic text (under 20 letters) is decided, and mid-length text (up to ngramMaxLetters) checked, with
   * the character n-gram model (ngram-model.ts) added to eld's scores. Default true (the model in assets/; the
   * training script passes its own); false leaves text to eld and the short-text rules alone.
   */
  ngramModel?: boolean | NgramModel;
  /** Alphabetic text from 20 up to this many letters is checked by the n-gram model too (see MID_MAX_LETTERS). */
  ngramMaxLetters?: number;
  /** Override the model's lead for mid-length text (20 letters up to ngramMaxLetters). */
  ngramMinMarginMid?: number;
  /** Override the weight of eld's log score in the model's vote on short text (under 20 letters). */
  ngramEldWeight?: number;
  /** Override the weight of eld's log score in the model's vote on mid-length text. */
  ngramEldWeightMid?: number;
  /** Override the model's short-text calibration (the training script fits it). */
  shortTextCalibration?: ShortTextCalibration;
}
