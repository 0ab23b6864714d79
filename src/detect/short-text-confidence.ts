// Why: on short text the detector's best guess is right far more often than any single margin can tell (issue 36); a
// small logistic model over what detection already computes decides which guesses are sure. Its weights and
// thresholds are fit by scripts/train-detect-ngrams.mjs on cross-fitted FLORES dev sentences 0–499 and shipped in the
// model file's head (assets/detect-ngrams.tsv); this module only computes the features and applies the weights.

/** What detection knows about a short alphabetic text when the n-gram model has voted on it. */
export interface ShortTextEvidence {
  /** Letters analysed. */
  letters: number;
  /** Per model language: the model's log-likelihood plus eld's weighted log score (the vote). */
  vote: Float64Array;
  /** Per model language: the model's log-likelihood alone. */
  model: Float64Array;
  /** Index (model order) of the vote's winner: the guess the confidence is about. */
  guess: number;
  /** Whether eld's best language (after the foreign penalty and neighbour hints) is the guess. */
  eldAgrees: boolean;
  /** eld's relative margin of its best language over the runner-up, (best − second) / best. */
  eldMargin: number;
  /** eld's best score over its average score for that language (snippets of names fit no language well). */
  eldFit: number;
  /** Whether the text holds a letter that among the 33 only the guess writes (alphabet-hints). */
  signature: boolean;
  /** Whether eld, before the foreign penalty, scores a language outside the 33 at least as high as any of the 33. */
  foreignUnpenalised: boolean;
  /** Whether eld ranks a language outside the 33 first: never a success then (the model knows only the 33). */
  foreignFirst: boolean;
}

/** The logistic model's features, in the order of `ShortTextCalibration.weights`. */
export const CONFIDENCE_FEATURES = [
  'bias',
  'log(1 + vote lead)',
  'vote lead per letter',
  'eld relative margin',
  'log eld fit',
  'eld agrees',
  'log letters',
  'signature letter',
  'foreign language unpenalised first',
  'model alone agrees',
  'log(1 + model-alone lead)',
  'vote posterior (temperature 3)',
  'vote posterior (temperature 10)',
  'vote posterior (temperature 30)',
] as const;

/** Temperatures of the vote's softmax posteriors (log-likelihood leads are over-confident on a few letters). */
const POSTERIOR_TEMPERATURES = [3, 10, 30];
/** Log-posteriors are clipped here: beyond it they say nothing more. */
const POSTERIOR_FLOOR = -30;

/** Fitted by the training script; lives in the model file's head. */
export interface ShortTextCalibration {
  /** One weight per CONFIDENCE_FEATURES entry. */
  weights: number[];
  /** Added to the logit per guessed language (Tolk code): some languages' guesses are surer than others'. */
  languageBias: Record<string, number>;
  /** Logit a guess needs to be a success on text of at most FEW_LETTERS letters. */
  minLogitFew: number;
  /** Logit a guess needs to be a success on longer short text (up to 19 letters). */
  minLogit: number;
}

function leadOf(scores: Float64Array, best: number): number {
  let second = -Infinity;
  for (let i = 0; i < scores.length; i++) if (i !== best && scores[i]! > second) second = scores[i]!;
  return scores[best]! - second;
}

function bestOf(scores: Float64Array): number {
  let best = 0;
  for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i;
  return best;
}

/** log softmax(scores / temperature)[best]. */
function logPosterior(scores: Float64Array, best: number, temperature: number): number {
  const top = scores[best]! / temperature;
  let sum = 0;
  for (const s of scores) sum += Math.exp(s / temperature - top);
  return Math.max(POSTERIOR_FLOOR, -Math.log(sum));
}

/** The feature vector of CONFIDENCE_FEATURES. */
export function confidenceFeatures(e: ShortTextEvidence): number[] {
  const voteLead = Math.max(0, leadOf(e.vote, e.guess));
  const modelBest = bestOf(e.model);
  return [
    1,
    Math.log1p(voteLead),
    voteLead / e.letters,
    Math.min(1, e.eldMargin),
    Math.log(Math.max(1e-3, e.eldFit)),
    e.eldAgrees ? 1 : 0,
    Math.log(e.letters),
    e.signature ? 1 : 0,
    e.foreignUnpenalised ? 1 : 0,
    modelBest === e.guess ? 1 : 0,
    Math.log1p(Math.max(0, leadOf(e.model, modelBest))),
    ...POSTERIOR_TEMPERATURES.map((t) => logPosterior(e.vote, e.guess, t)),
  ];
}

/** The logistic model's logit that the guess is right (the probability is 1 / (1 + e^−logit)). */
export function confidenceLogit(calibration: ShortTextCalibration, features: readonly number[], language: string): number {
  let z = calibration.languageBias[language] ?? 0;
  for (let i = 0; i < features.length; i++) z += calibration.weights[i]! * features[i]!;
  return z;
}
