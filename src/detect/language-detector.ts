// Why: one place turns raw text into a detection status + language for both /v3/detect/language and source-less translation, wrapping eld with script shortcuts, neighbour tie-breaks and measured confidence thresholds.
import { danishOrNorwegian, hasSignatureLetter, isCompatible, nonAsciiLetterCounts } from './alphabet-hints.js';
import { ELD_AVERAGE_SCORES } from './eld-average-scores.js';
import { FEW_LETTERS, MIN_SURE_LETTERS, NgramModel } from './ngram-model.js';
import { profileScripts } from './script-profile.js';
import { confidenceFeatures, confidenceLogit, type ShortTextCalibration, type ShortTextEvidence } from './short-text-confidence.js';
import { distinctContent } from './distinct-content.js';
import { loadEld, type EldInstance } from './eld-database.js';
import { lexiconQuestion, type LexiconQuestion } from './lexicon-vote.js';
import type { EldLanguageDetectorOptions } from './detector-options.js';
import type { DetectionOutcome, LanguageDetector } from './detection-types.js';

export type { EldLanguageDetectorOptions };

/** Languages the detection endpoint may report as `detected_language` (Tolk lower-case codes). */
export const DETECTION_LANGUAGES = [
  'en', 'de', 'fr', 'es', 'pt', 'it', 'nl', 'pl', 'ru', 'zh', 'ja', 'bg', 'cs', 'da', 'el', 'et', 'fi',
  'hu', 'lt', 'lv', 'ro', 'sk', 'sl', 'sv', 'tr', 'id', 'uk', 'ko', 'nb', 'ar', 'vi', 'he', 'th',
] as const;

export type DetectionLanguage = (typeof DETECTION_LANGUAGES)[number];

export type { DetectionOutcome, DetectionStatus, LanguageDetection, LanguageDetector } from './detection-types.js';

const SUPPORTED = new Set<string>(DETECTION_LANGUAGES);

/** eld code → Tolk code, where they differ. */
const FROM_ELD: Readonly<Record<string, string>> = { ms: 'id', no: 'nb' };

/** Script → language, for scripts that (among languages we meet) only one language writes. */
const SCRIPT_LANGUAGE = { hangul: 'ko', thai: 'th', greek: 'el', hebrew: 'he' } as const;

/** Scripts whose letters each carry enough signal that the alphabetic minimum letter count does not apply. */
const DENSE_SCRIPTS = new Set(['han', 'kana', 'hangul', 'thai']);

/** Share of (weighted) letters the dominant script needs before a script shortcut applies. */
const SHORTCUT_SHARE = 0.6;

/** Evidence (relative margin × letters) that maps to confidence 1 − 1/e. */
const EVIDENCE_SCALE = 0.1;

/**
 * Without the n-gram model (or its short-text calibration), short alphabetic text (under 20 letters) is a success
 * only when eld's winner both fits its language well
 * (best score ≥ SHORT_FIT × eld's average for it: snippets of names and numbers score low for every language) and
 * leads the runner-up by the relative margin (best − runner-up) / best below; eld is confidently wrong between
 * neighbours (da/nb, ru/bg/uk, cs/sk) on a few words. Fit on FLORES dev sentences 0–499 cut to 20 and 50
 * characters for ≥ 99.3 % precision of `success` (kept monotonic) (bench/detect.ts reports the held-out 500–996).
 */
const SHORT_FIT = 0.95;
const SHORT_MARGINS: ReadonlyArray<readonly [letters: number, margin: number]> = [
  [8, 1],
  [12, 0.12],
  [16, 0.12],
  [20, 0.06],
];

/** Alphabetic text from 20 letters up to this many is also voted on by the n-gram model (longer text: eld alone). */
const MID_MAX_LETTERS = 80;

/** A signature letter (alphabet-hints) settles short text from this many letters on. */
const SIGNATURE_MIN_LETTERS = 8;

/** Alphabetic text under this many letters is short text (SHORT_MARGINS, the learned confidence, eld's short weight). */
const SHORT_TEXT_LETTERS = SHORT_MARGINS.at(-1)![0];

function shortMargin(letters: number): number | undefined {
  return SHORT_MARGINS.find(([below]) => letters < below)?.[1];
}

/** The model-fit check needs this many letters; shorter text scores low for every language. */
const FIT_MIN_LETTERS = 30;

/** Only candidates scoring within this of eld's best are considered by the neighbour hints. */
const HINT_WINDOW = 0.06;

const URL_OR_EMAIL = /\b(?:https?:\/\/|www\.)\S+|[\w.+-]+@[\w-]+\.[\w.-]+/giu;
const CODE_TOKEN = /\b[\p{L}]*\d+[\p{L}\d]*\b/gu;

/** The text as analysed: repeats, URLs, e-mail addresses and codes left out. */
const cleanText = (text: string, maxChars: number) => distinctContent(text).slice(0, maxChars).replace(URL_OR_EMAIL, ' ').replace(CODE_TOKEN, ' ');


/** Maps an eld code to a Tolk lower-case code. */
export function fromEldCode(code: string): string {
  return FROM_ELD[code] ?? code;
}

/** Languages (Tolk codes) eld's databases recognise. */
export const DETECTOR_LANGUAGES: ReadonlySet<string> = new Set(Object.keys(ELD_AVERAGE_SCORES).map(fromEldCode));

/** eld codes of the languages Tolk reports (looked up per eld score of every text, so by eld's own code). */
const SUPPORTED_ELD: ReadonlySet<string> = new Set(Object.keys(ELD_AVERAGE_SCORES).filter((code) => SUPPORTED.has(fromEldCode(code))));

/** The outcome reporting `raw`: a success among DETECTION_LANGUAGES, unsupported outside them (`ca`), or unsure. */
export function outcome(raw: string, confidence: number, lowConfidence: boolean): DetectionOutcome {
  if (lowConfidence) return { status: 'insufficient_confidence', rawLanguage: raw, confidence };
  if (SUPPORTED.has(raw)) return { status: 'success', language: raw, rawLanguage: raw, confidence };
  return { status: 'unsupported_language', rawLanguage: raw, confidence };
}

/**
 * Language detector backed by eld's n-gram databases (60 languages; the small one by default).
 *
 * Construct once with `await EldLanguageDetector.create()` and share the instance; `detect()` is
 * synchronous and safe to call concurrently. Each EldLanguageDetector owns an eld instance on its own
 * copy of the database's table (eld-database.ts).
 */
export class EldLanguageDetector implements LanguageDetector {
  readonly languages = DETECTOR_LANGUAGES;
  private readonly maxChars: number;
  private readonly minLetters: number;
  private readonly minConfidence: number;
  private readonly minFit: number;
  private readonly scriptShortcuts: boolean;
  private readonly neighbourHints: boolean;
  private readonly foreignPenalty: number;
  private readonly shortMargins: boolean;
  private readonly calibration: ShortTextCalibration | undefined;
  private readonly ngramMinMarginMid: number;
  private readonly ngramMaxLetters: number;
  private readonly ngramEldWeight: number;
  private readonly ngramEldWeightMid: number;
  /** Index of each model language in the model's order. */
  private readonly ngramIndex: ReadonlyMap<string, number>;
  /** The same by eld code. */
  private readonly eldModelIndex: ReadonlyMap<string, number>;

  private constructor(
    private readonly eld: EldInstance,
    options: EldLanguageDetectorOptions,
    private readonly ngram: NgramModel | undefined,
  ) {
    this.calibration = options.shortTextCalibration ?? ngram?.shortTextCalibration;
    this.ngramMinMarginMid = options.ngramMinMarginMid ?? ngram?.minMarginMid ?? Infinity;
    this.ngramMaxLetters = options.ngramMaxLetters ?? MID_MAX_LETTERS;
    this.ngramEldWeight = options.ngramEldWeight ?? ngram?.eldWeight ?? 1;
    this.ngramEldWeightMid = options.ngramEldWeightMid ?? ngram?.eldWeightMid ?? this.ngramEldWeight;
    this.ngramIndex = new Map(ngram?.langs.map((l, i) => [l, i]));
    this.eldModelIndex = new Map(Object.keys(ELD_AVERAGE_SCORES).flatMap((code) => (this.ngramIndex.has(fromEldCode(code)) ? [[code, this.ngramIndex.get(fromEldCode(code))!]] : [])));
    this.maxChars = options.maxChars ?? 1000;
    this.minLetters = options.minLetters ?? 3;
    this.minConfidence = options.minConfidence ?? 0.5;
    this.minFit = options.minFit ?? 0.6;
    this.scriptShortcuts = options.scriptShortcuts ?? true;
    this.neighbourHints = options.neighbourHints ?? true;
    this.foreignPenalty = options.foreignPenalty ?? 0.05;
    this.shortMargins = options.shortMargins ?? true;
  }

  /** Loads eld's database (small by default, ≈0.2 s, ≈3 MB in eld-database.ts's table) and returns a ready detector. */
  static async create(options: EldLanguageDetectorOptions = {}): Promise<EldLanguageDetector> {
    const instance = await loadEld(options.database ?? 'small');
    // loaded on a first request now, not at start: requests in flight run between eld's load and the model's
    await new Promise((resolve) => setImmediate(resolve));
    const model = options.ngramModel === false ? undefined : options.ngramModel instanceof NgramModel ? options.ngramModel : await NgramModel.load();
    return new EldLanguageDetector(instance, options, model);
  }

  detect(text: string): DetectionOutcome {
    return this.analyse(text).outcome;
  }

  /** What the lexicons are asked about an unsure short text (lexicon-vote.ts); undefined for any other. */
  lexiconQuestion(text: string, decided: DetectionOutcome): LexiconQuestion | undefined {
    const cleaned = cleanText(text, this.maxChars);
    const scores = () => Object.entries(this.eld.detect(cleaned).getScores()).map(([code, s]): [string, number] => [fromEldCode(code), s]);
    return decided.status === 'insufficient_confidence' ? lexiconQuestion(cleaned, decided.candidates ?? [], scores) : undefined;
  }


  /**
   * The detection and, for short alphabetic text the n-gram model voted on, the evidence its confidence came from
   * (scripts/train-detect-ngrams.mjs fits the confidence on it).
   */
  analyse(text: string): { outcome: DetectionOutcome; evidence?: ShortTextEvidence } {
    // Repeated text ("Hello world. " × 2000) is judged on its distinct content: repeats add letters, not evidence.
    const cleaned = cleanText(text, this.maxChars);
    const profile = profileScripts(cleaned);
    if (profile.letters === 0 || profile.dominant === undefined) {
      return { outcome: { status: 'no_language_detected', confidence: 0 } };
    }
    const { dominant, counts } = profile;

    if (this.scriptShortcuts && profile.dominantShare >= SHORTCUT_SHARE) {
      if (dominant === 'han' || dominant === 'kana') {
        if (counts.kana > 0) return { outcome: outcome('ja', 1, false) };
        // A lone ideograph is as likely Japanese as Chinese.
        return { outcome: outcome('zh', counts.han >= 2 ? 1 : 0, counts.han < 2) };
      }
      if (dominant in SCRIPT_LANGUAGE) {
        const lang = SCRIPT_LANGUAGE[dominant as keyof typeof SCRIPT_LANGUAGE];
        // A lone Greek or Hebrew letter is more often a symbol (α, ℵ) than language.
        const enough = DENSE_SCRIPTS.has(dominant) || counts[dominant] >= 2;
        return { outcome: outcome(lang, enough ? 1 : 0, !enough) };
      }
    }

    const result = this.eld.detect(cleaned);
    const keep = 1 - this.foreignPenalty;
    const ranked = Object.entries(result.getScores());
    for (const entry of ranked) if (!SUPPORTED_ELD.has(entry[0])) entry[1] *= keep;
    ranked.sort((a, b) => b[1] - a[1]);
    const first = ranked[0];
    if (first === undefined) {
      // Letters, but not a single n-gram eld knows (eld scores nothing under a few letters: "Hola").
      const unsure: DetectionOutcome = { status: 'insufficient_confidence', confidence: 0 };
      return { outcome: this.withCandidates(unsure, cleaned, profile.letters, ranked, !DENSE_SCRIPTS.has(dominant)) };
    }

    let bestIndex = 0;
    const lowerText = cleaned.toLowerCase();
    if (this.neighbourHints) bestIndex = this.rerank(ranked, lowerText, profile.letters);
    const best = ranked[bestIndex] ?? first;
    const runnerUp = ranked[bestIndex + 1]?.[1] ?? 0;
    const top = best[1];
    const margin = top <= 0 ? 0 : Math.max(0, (top - runnerUp) / top);
    const confidence = 1 - Math.exp(-(margin * profile.letters) / EVIDENCE_SCALE);
    const alphabetic = !DENSE_SCRIPTS.has(dominant);
    const fewLetters = alphabetic && profile.letters < this.minLetters;
    const average = ELD_AVERAGE_SCORES[best[0]] ?? 0.8;
    const poorFit = profile.letters >= FIT_MIN_LETTERS && top < this.minFit * average;
    const shortNeed = this.shortMargins && alphabetic ? shortMargin(profile.letters) : undefined;
    const raw = fromEldCode(best[0]);
    const low = fewLetters || poorFit || confidence < this.minConfidence;
    // Short text with the model: the learned confidence of the vote's guess decides (issue 36).
    if (shortNeed !== undefined && this.ngram && this.calibration && !fewLetters) {
      const vote = this.ngramVote(cleaned, profile.letters, ranked);
      const evidence: ShortTextEvidence = {
        letters: profile.letters,
        vote: vote.scores,
        model: vote.modelScores,
        guess: this.ngramIndex.get(vote.language)!,
        eldAgrees: raw === vote.language,
        eldMargin: margin,
        eldFit: top / average,
        signature: hasSignatureLetter(vote.language, lowerText),
        foreignUnpenalised: vote.foreignUnpenalised,
        foreignFirst: vote.foreignFirst,
      };
      const decided = this.decideShort(this.calibration, evidence, vote.language, raw);
      return { outcome: this.withCandidates(decided, cleaned, profile.letters, ranked, alphabetic, vote.scores), evidence };
    }
    // Mid-length text: the model (with eld) settles close neighbours eld confuses (da/nb, cs/sk, ru/bg); text that fits
    // no language well (poorFit: Welsh, Maltese…) stays undecided whatever the model, which knows only the 33, says.
    if (alphabetic && shortNeed === undefined && this.ngram && !poorFit && profile.letters < this.ngramMaxLetters) {
      const vote = this.ngramVote(cleaned, profile.letters, ranked);
      if (!vote.foreignFirst && !vote.foreignUnpenalised) {
        // A clear lead decides; otherwise eld's answer stands only when the model agrees with it.
        const sure = vote.margin >= this.ngramMinMarginMid;
        const success = sure || (vote.language === raw && !low);
        const decided = outcome(sure ? vote.language : raw, success ? Math.max(0.5, confidence) : Math.min(0.49, confidence), !success);
        return { outcome: this.withCandidates(decided, cleaned, profile.letters, ranked, alphabetic, vote.scores) };
      }
    }
    // Without the model (or its calibration), short text is decided by the short-text rules.
    const ambiguous =
      shortNeed !== undefined &&
      (margin < shortNeed || top < SHORT_FIT * average) &&
      !(profile.letters >= SIGNATURE_MIN_LETTERS && hasSignatureLetter(raw, lowerText));
    // Reported confidence stays below the success line when the short-text margin is not met.
    const shortShare = shortNeed === undefined ? 1 : Math.min(1, margin / shortNeed, top / (SHORT_FIT * average));
    const calibrated = ambiguous ? Math.min(confidence, 0.5 * shortShare) : confidence;
    return { outcome: this.withCandidates(outcome(raw, calibrated, low || ambiguous), cleaned, profile.letters, ranked, alphabetic) };
  }

  /**
   * A short text's outcome from the learned confidence that the vote's guess is right: a success at the calibrated
   * logit (never when eld ranks a language outside the 33 first: the model knows only the 33; never under
   * MIN_SURE_LETTERS letters). The reported confidence maps that logit to 0.5, keeping the probability's order on
   * either side.
   */
  private decideShort(calibration: ShortTextCalibration, evidence: ShortTextEvidence, guess: string, raw: string): DetectionOutcome {
    const logit = confidenceLogit(calibration, confidenceFeatures(evidence), guess);
    const need = evidence.letters <= FEW_LETTERS ? calibration.minLogitFew : calibration.minLogit;
    const p = 1 / (1 + Math.exp(-logit));
    const pNeed = 1 / (1 + Math.exp(-need));
    if (logit >= need && !evidence.foreignFirst && evidence.letters >= MIN_SURE_LETTERS) return outcome(guess, Math.min(0.99, 0.5 + (0.5 * (p - pNeed)) / (1 - pNeed)), false);
    return outcome(raw, Math.min(0.49, (0.5 * p) / pNeed), true);
  }

  /**
   * Adds the candidate languages to an unsure outcome of alphabetic text (translation falls back on them), from the
   * vote's scores when the vote already ran.
   */
  private withCandidates(
    decided: DetectionOutcome,
    text: string,
    letters: number,
    ranked: ReadonlyArray<readonly [string, number]>,
    alphabetic: boolean,
    voted?: Float64Array,
  ): DetectionOutcome {
    if (decided.status !== 'insufficient_confidence' || !this.ngram || !alphabetic) return decided;
    const scores = voted ?? this.voteScores(text, letters, ranked);
    let best = -Infinity;
    for (const score of scores) best = Math.max(best, score);
    const near: number[] = [];
    for (let i = 0; i < scores.length; i++) if (best - scores[i]! <= this.ngram.candidateWindow) near.push(i);
    const langs = this.ngram.langs;
    const candidates = near.sort((a, b) => scores[b]! - scores[a]!).map((i) => langs[i]!);
    decided.candidates = candidates;
    return decided;
  }

  /** Per model language, the n-gram log-likelihood plus eld's log score weighted by length (the model's vote). */
  private voteScores(text: string, letters: number, ranked: ReadonlyArray<readonly [string, number]>): Float64Array {
    return this.withEld(this.ngram!.logLikelihoods(text), letters, ranked);
  }

  /** Adds eld's log scores, weighted by length, and the vote's biases to the model's log-likelihoods (in place). */
  private withEld(scores: Float64Array, letters: number, ranked: ReadonlyArray<readonly [string, number]>): Float64Array {
    const eldScores = new Float64Array(scores.length).fill(1e-3);
    for (const [code, score] of ranked) {
      const i = this.eldModelIndex.get(code);
      if (i !== undefined) eldScores[i] = Math.max(eldScores[i]!, score);
    }
    // short and mid-length text have their own weight
    const weight = letters < SHORT_TEXT_LETTERS ? this.ngramEldWeight : this.ngramEldWeightMid;
    for (let i = 0; i < scores.length; i++) scores[i]! += weight * letters * Math.log(eldScores[i]!);
    // the vote's biases were fit beside eld's scores: without them ("Hola": eld scores nothing) they would decide alone
    const bias = this.ngram!.voteBias;
    if (bias && ranked.length > 0) for (let i = 0; i < scores.length; i++) scores[i]! += bias[i]!;
    return scores;
  }

  /**
   * The n-gram model's best language with eld's scores added (weighted by length), its lead over the runner-up, and
   * whether eld ranks a language outside the 33 first (the model, which knows only the 33, must not overrule that).
   */
  private ngramVote(
    text: string,
    letters: number,
    ranked: ReadonlyArray<readonly [string, number]>,
  ): { language: string; margin: number; foreignFirst: boolean; foreignUnpenalised: boolean; scores: Float64Array; modelScores: Float64Array } {
    const model = this.ngram!;
    const modelScores = model.logLikelihoods(text);
    const scores = this.withEld(modelScores.slice(), letters, ranked);
    let best = 0;
    let second = -Infinity;
    let top = -Infinity;
    for (let i = 0; i < scores.length; i++) {
      const v = scores[i]!;
      if (v > top) {
        second = top;
        top = v;
        best = i;
      } else if (v > second) second = v;
    }
    const first = ranked[0]?.[0];
    // Whether eld, before the foreign penalty, ranks a language outside the 33 first: the mid-length vote must not turn
    // Serbian into Bulgarian (full sentences are long enough for eld to be right about such languages).
    const keep = 1 - this.foreignPenalty;
    let foreignTop = 0;
    let supportedTop = 0;
    for (const [code, score] of ranked) {
      if (SUPPORTED_ELD.has(code)) supportedTop = Math.max(supportedTop, score);
      else foreignTop = Math.max(foreignTop, keep > 0 ? score / keep : score);
    }
    return {
      language: model.langs[best]!,
      margin: top - second,
      foreignFirst: first !== undefined && !SUPPORTED_ELD.has(first),
      foreignUnpenalised: foreignTop >= supportedTop,
      scores,
      modelScores,
    };
  }

  /**
   * Index in `ranked` of the language to report: the best-scoring candidate (within HINT_WINDOW of
   * the top) whose alphabet fits the text, then da/no decided by function words. When the hints
   * promote a candidate its score is treated as the top (the margin is measured against the rest).
   */
  private rerank(ranked: ReadonlyArray<readonly [string, number]>, lower: string, letters: number): number {
    const top = ranked[0]?.[1] ?? 0;
    let letterCounts: Map<string, number> | undefined;
    let chosen = 0;
    for (let i = 0; i < ranked.length; i++) {
      const entry = ranked[i];
      if (entry === undefined || top - entry[1] > HINT_WINDOW) break;
      letterCounts ??= nonAsciiLetterCounts(lower);
      if (isCompatible(entry[0], letterCounts, letters)) {
        chosen = i;
        break;
      }
    }
    const chosenLang = ranked[chosen]?.[0];
    if (chosenLang === 'da' || chosenLang === 'no') {
      const other = chosenLang === 'da' ? 'no' : 'da';
      const otherIndex = ranked.findIndex(([lang]) => lang === other);
      const otherEntry = ranked[otherIndex];
      const chosenScore = ranked[chosen]?.[1] ?? 0;
      if (otherEntry !== undefined && chosenScore - otherEntry[1] <= HINT_WINDOW) {
        if (danishOrNorwegian(lower) === other) chosen = otherIndex;
      }
    }
    return chosen;
  }
}
