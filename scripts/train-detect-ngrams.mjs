// Builds assets/detect-ngrams.tsv, the language model for short and mid-length text (src/detect/ngram-model.ts):
// character 1–4-gram and word counts of FLORES dev sentences 0–499 in the 33 detection languages, the vote's weights
// (one per order, eld's and a bias per language: a softmax fit, as naive Bayes over-counts overlapping n-grams), the
// short-text confidence (a logistic model, short-text-confidence.ts, and its thresholds) and the mid-length margin that
// make its answers a success. All are cross-fitted: sentences 0–499 in 4 folds, each fold's prefixes detected with a model
// trained on the other three (375 sentences, near the final 500), pooled; the final model is trained on all of 0–499.
// Sentences 500–996 stay held out for bench/detect.ts.
// Run after a build: `npx tsc && node scripts/train-detect-ngrams.mjs` (a few minutes; FLORES location:
// TOLK_FLORES_DIR, see test/helpers/flores.ts).

import { writeFileSync } from 'node:fs';
import { DETECTION_LANGUAGES, EldLanguageDetector } from '../dist/src/detect/language-detector.js';
import { FEW_LETTERS, MIN_SURE_LETTERS, featureOrder, ngramFeatures, NGRAM_MODEL_FILE, NgramModel, serialiseNgramModel } from '../dist/src/detect/ngram-model.js';
import { CONFIDENCE_FEATURES, confidenceFeatures, confidenceLogit } from '../dist/src/detect/short-text-confidence.js';
import { floresLines, truncateAtWord } from '../dist/test/helpers/flores.js';

const MAX_N = 4;
/** Additive smoothing: small, so a feature seen in one language and not its neighbour counts (0.02 and 0.05 gave the same cross-fitted ≤ 20 accuracy with the weighted vote, 86.28 % against 85.50 % at 0.5). */
const ALPHA = 0.02;
/** Features seen fewer times (all languages together) are dropped: half the file, no measurable loss. */
const MIN_COUNT = 2;
const SENTENCES = 500;
const FOLDS = 4;
/** Weights of eld's log score (× letters) tried in the vote; the best cross-fitted accuracy at 20 characters wins. */
const ELD_WEIGHTS = [1, 2, 4];
/** Precision of `success` required at ≤ 20 characters (a little above the issue's 99 %, for the held-out data). */
const TARGET = 0.992;
/** At ≤ 10 characters (text of at most FEW_LETTERS letters has its own threshold) 99 % is required. */
const TARGET_FEW = 0.99;
/** Prefix lengths whose short texts (under 20 letters) the confidence's logistic model is fit on. */
const FIT_LENGTHS = [10, 15, 20, 25, 30];
/** The window of candidates (vote score behind the best) of the plain vote (NgramModelData.candidateWindow). */
const PLAIN_CANDIDATE_WINDOW = 10;
/** Prefix lengths whose short texts the vote's weights are fit on. */
const VOTE_LENGTHS = [10, 15, 20, 25, 30];
/** L2 penalty of the logistic model (not on its intercept). */
const LAMBDA = 1;
/** Mid-length text (≤ 50 characters): the margin with the best accuracy whose precision stays at least this. */
const TARGET_MID = 0.99;
const MID_MARGINS = [0, 1, 2.5, 5, 10, 20];
/** eld's weight in the mid-length vote, as multiples of its short-text weight (swept with the margin). */
const MID_ELD_FACTORS = [1, 3, 10, 30, 100];
/** A calibration under which no short text is a success: evidence is collected under it before fitting. */
const UNCALIBRATED = { weights: [], languageBias: {}, minLogit: Infinity, minLogitFew: Infinity };

const langs = [...DETECTION_LANGUAGES];
const lines = new Map(langs.map((l) => [l, floresLines(l).slice(0, SENTENCES)]));

function trainOn(keep) {
  const counts = new Map();
  const totals = langs.map(() => new Array(MAX_N + 1).fill(0));
  langs.forEach((lang, li) => {
    lines.get(lang).forEach((line, i) => {
      if (!keep(i)) return;
      for (const f of ngramFeatures(line, MAX_N)) {
        let perLang = counts.get(f);
        if (!perLang) counts.set(f, (perLang = new Map()));
        perLang.set(li, (perLang.get(li) ?? 0) + 1);
        totals[li][featureOrder(f)]++;
      }
    });
  });
  const grams = new Map();
  const vocab = new Array(MAX_N + 1).fill(0);
  for (const [f, perLang] of [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    let sum = 0;
    for (const c of perLang.values()) sum += c;
    if (sum < MIN_COUNT) continue;
    grams.set(f, [...perLang].sort((a, b) => a[0] - b[0]).flat());
    vocab[featureOrder(f)]++;
  }
  return { maxN: MAX_N, alpha: ALPHA, langs, totals, vocab, grams, eldWeight: 1, shortTextCalibration: null, minMarginMid: null };
}

const fold = (i) => Math.floor((i * FOLDS) / SENTENCES);
const foldData = Array.from({ length: FOLDS }, (_, k) => trainOn((i) => fold(i) !== k));
let models = foldData.map((d) => new NgramModel(d));
const prefixes = (max) =>
  Array.from({ length: FOLDS }, (_, k) => langs.flatMap((lang) => lines.get(lang).filter((_, i) => fold(i) === k).map((l) => [lang, truncateAtWord(l, max)])));
const sets = Object.fromEntries([...new Set([...FIT_LENGTHS, 10, 20, 50])].map((max) => [max, prefixes(max)]));

/** Pooled precision and accuracy of the cross-fitted detectors on prefixes of `max` characters (lower-cased if asked). */
async function measure(max, options, lowerCase = false) {
  let n = 0;
  let success = 0;
  let right = 0;
  for (let k = 0; k < FOLDS; k++) {
    const detector = await EldLanguageDetector.create({ ...options, ngramModel: models[k] });
    for (const [lang, text] of sets[max][k]) {
      n++;
      const o = detector.detect(lowerCase ? text.toLowerCase() : text);
      if (o.status !== 'success') continue;
      success++;
      if (o.language === lang) right++;
    }
  }
  return { precision: right / success, accuracy: right / n };
}
const show = (r) => `precision ${(100 * r.precision).toFixed(2)} %, accuracy ${(100 * r.accuracy).toFixed(2)} %`;

/**
 * Every cross-fitted prefix of the lengths asked for: its language, and either the detector's own outcome (text the
 * confidence does not judge: scripts, longer text) or the short-text evidence's features and guess.
 */
async function collect(eldWeight, lengths) {
  const rows = [];
  for (let k = 0; k < FOLDS; k++) {
    const detector = await EldLanguageDetector.create({ ngramEldWeight: eldWeight, ngramModel: models[k], shortTextCalibration: UNCALIBRATED });
    for (const max of lengths) {
      for (const [lang, text] of sets[max][k]) {
        const { outcome, evidence } = detector.analyse(text);
        const row = { max, lang, outcome };
        if (evidence) {
          row.features = confidenceFeatures(evidence);
          row.vote = evidence.vote;
          row.guess = langs[evidence.guess];
          row.few = evidence.letters <= FEW_LETTERS;
          // never a success (decideShort): eld ranks a language outside the 33 first, or too few letters
          row.never = evidence.foreignFirst || evidence.letters < MIN_SURE_LETTERS;
        }
        rows.push(row);
      }
    }
  }
  return rows;
}

/** Solves A x = b (Gaussian elimination with partial pivoting; A is small and positive definite). */
function solve(A, b) {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = c + 1; r < n; r++) {
      const f = M[r][c] / M[c][c];
      if (f !== 0) for (let j = c; j <= n; j++) M[r][j] -= f * M[c][j];
    }
  }
  const x = new Array(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let v = M[r][n];
    for (let j = r + 1; j < n; j++) v -= M[r][j] * x[j];
    x[r] = v / M[r][r];
  }
  return x;
}

/**
 * L2-penalised logistic regression (Newton's method) of "the guess is right" on the features plus one indicator per
 * guessed language; returns the calibration's weights and language biases.
 */
function fitConfidence(rows) {
  const d = CONFIDENCE_FEATURES.length;
  const size = d + langs.length;
  const w = new Array(size).fill(0);
  const data = rows.map((r) => ({ x: r.features, li: d + langs.indexOf(r.guess), y: r.guess === r.lang ? 1 : 0 }));
  for (let iteration = 0; iteration < 50; iteration++) {
    const g = w.map((v, j) => (j === 0 ? 0 : LAMBDA * v));
    const H = Array.from({ length: size }, (_, j) => Array.from({ length: size }, (_, k) => (j === k && j !== 0 ? LAMBDA : 0)));
    for (const { x, li, y } of data) {
      let z = w[li];
      for (let j = 0; j < d; j++) z += w[j] * x[j];
      const p = 1 / (1 + Math.exp(-Math.max(-30, Math.min(30, z))));
      const e = p - y;
      const v = p * (1 - p);
      for (let j = 0; j < d; j++) {
        g[j] += e * x[j];
        for (let k = 0; k < d; k++) H[j][k] += v * x[j] * x[k];
        H[j][li] += v * x[j];
        H[li][j] += v * x[j];
      }
      g[li] += e;
      H[li][li] += v;
    }
    const step = solve(H, g);
    let largest = 0;
    for (let j = 0; j < size; j++) {
      w[j] -= step[j];
      largest = Math.max(largest, Math.abs(step[j]));
    }
    if (largest < 1e-9) break;
  }
  return { weights: w.slice(0, d), languageBias: Object.fromEntries(langs.map((l, i) => [l, w[d + i]])) };
}

const logitOf = (calibration, row) => confidenceLogit(calibration, row.features, row.guess);
const answers = (calibration, row) =>
  !row.never && logitOf(calibration, row) >= (row.few ? calibration.minLogitFew : calibration.minLogit);

/** Precision and accuracy over the rows of one prefix length under a calibration. */
function score(rows, calibration) {
  let success = 0;
  let right = 0;
  for (const row of rows) {
    if (row.features) {
      if (!answers(calibration, row)) continue;
      success++;
      if (row.guess === row.lang) right++;
    } else if (row.outcome.status === 'success') {
      success++;
      if (row.outcome.language === row.lang) right++;
    }
  }
  return { precision: right / success, accuracy: right / rows.length };
}

/**
 * The lowest logit for short texts of one band (few letters or not) at which the precision over all `rows` (the
 * other band as the calibration decides) still reaches `target`: the largest set of answers that does.
 */
function threshold(rows, calibration, few, target) {
  let success = 0;
  let right = 0;
  const band = [];
  for (const row of rows) {
    if (row.features && row.few === few) {
      if (!row.never) band.push([logitOf(calibration, row), row.guess === row.lang]);
    } else if (row.features ? answers(calibration, row) : row.outcome.status === 'success') {
      success++;
      if ((row.features ? row.guess : row.outcome.language) === row.lang) right++;
    }
  }
  band.sort((a, b) => b[0] - a[0]);
  let chosen = Infinity;
  band.forEach(([logit, isRight], i) => {
    success++;
    if (isRight) right++;
    // a cut inside a run of equal logits (the same short text in several languages) would answer the whole run
    if (band[i + 1]?.[0] !== logit && right / success >= target) chosen = logit;
  });
  return chosen;
}

/** Orders of the vote's per-order log-likelihoods (0 = words, 1..MAX_N). */
const ORDERS = MAX_N + 1;
/** L2 penalty on the vote's per-language biases (they are only defined up to a constant). */
const BIAS_LAMBDA = 1;
/** Without the biases the fit gave 85.08 % cross-fitted at ≤ 20 characters, with them 85.56 % (docs/benchmarks.md). */
const WITH_BIAS = true;

/**
 * Per order, per language: the log-likelihood of a text's known features of that order, from the fold's model with that
 * order's weight 1 and the others 0 (the model's own arithmetic, not a second copy of it).
 */
function perOrderScores(orderModels, text) {
  const L = langs.length;
  const x = new Float64Array(ORDERS * L);
  orderModels.forEach((model, o) => x.set(model.logLikelihoods(text), o * L));
  return x;
}

/**
 * The vote's evidence per cross-fitted short text (its per-order log-likelihoods and eld's letters × log score, both
 * from the model trained without the text's fold) for the softmax fit of the vote's weights.
 */
async function voteRows(lengths) {
  const rows = [];
  const L = langs.length;
  let mismatched = 0;
  for (let k = 0; k < FOLDS; k++) {
    const detector = await EldLanguageDetector.create({ ngramEldWeight: 1, ngramModel: models[k], shortTextCalibration: UNCALIBRATED });
    const orderModels = Array.from({ length: ORDERS }, (_, o) => new NgramModel({ ...foldData[k], orderWeights: Array.from({ length: ORDERS }, (_, j) => (j === o ? 1 : 0)) }));
    for (const max of lengths) {
      for (const [lang, text] of sets[max][k]) {
        const { evidence } = detector.analyse(text);
        if (!evidence) continue;
        const x = perOrderScores(orderModels, text);
        const eld = new Float64Array(L);
        let sum = 0;
        for (let li = 0; li < L; li++) {
          eld[li] = evidence.vote[li] - evidence.model[li];
          let m = 0;
          for (let o = 0; o < ORDERS; o++) m += x[o * L + li];
          sum += Math.abs(m - evidence.model[li]);
        }
        if (sum > 1e-2 * L) mismatched++;
        rows.push({ max, y: langs.indexOf(lang), x, eld });
      }
    }
  }
  console.log(`vote fit: ${rows.length} short texts (${mismatched} scored on other text than the detector's)`);
  return rows;
}

/**
 * Weights of the vote — one per order, eld's, and (WITH_BIAS) a bias per language — maximising the cross-fitted
 * conditional log-likelihood (softmax over the 33) of each text's language (Newton's method with step halving).
 */
function fitVote(rows, start) {
  const L = langs.length;
  const D = ORDERS + 1;
  const P = D + (WITH_BIAS ? L : 0);
  const feat = (row, j, li) => (j < ORDERS ? row.x[j * L + li] : row.eld[li]);
  const theta = new Float64Array(P);
  theta.set(start);
  const scoresOf = (row, th) => {
    const s = new Float64Array(L);
    for (let li = 0; li < L; li++) {
      let v = 0;
      for (let j = 0; j < D; j++) v += th[j] * feat(row, j, li);
      if (WITH_BIAS) v += th[D + li];
      s[li] = v;
    }
    return s;
  };
  const lossOf = (th) => {
    let loss = 0;
    for (const row of rows) {
      const s = scoresOf(row, th);
      let top = -Infinity;
      for (const v of s) top = Math.max(top, v);
      let z = 0;
      for (const v of s) z += Math.exp(v - top);
      loss += top + Math.log(z) - s[row.y];
    }
    if (WITH_BIAS) for (let li = 0; li < L; li++) loss += 0.5 * BIAS_LAMBDA * th[D + li] ** 2;
    return loss;
  };
  let loss = lossOf(theta);
  for (let iteration = 0; iteration < 30; iteration++) {
    const g = new Float64Array(P);
    const H = Array.from({ length: P }, () => new Float64Array(P));
    const f = new Float64Array(D);
    for (const row of rows) {
      const s = scoresOf(row, theta);
      let top = -Infinity;
      for (const v of s) top = Math.max(top, v);
      const p = new Float64Array(L);
      let z = 0;
      for (let li = 0; li < L; li++) z += p[li] = Math.exp(s[li] - top);
      const mean = new Float64Array(D);
      for (let li = 0; li < L; li++) p[li] /= z;
      for (let j = 0; j < D; j++) {
        let m = 0;
        for (let li = 0; li < L; li++) m += p[li] * feat(row, j, li);
        mean[j] = m;
        g[j] += m - feat(row, j, row.y);
      }
      for (let li = 0; li < L; li++) {
        for (let j = 0; j < D; j++) f[j] = feat(row, j, li) - mean[j];
        const pl = p[li];
        for (let j = 0; j < D; j++) for (let k = j; k < D; k++) H[j][k] += pl * f[j] * f[k];
        if (WITH_BIAS) {
          // bias block: Cov(e_l) = diag(p) − p pᵀ; cross: p_l (F_jl − mean_j)
          for (let j = 0; j < D; j++) H[j][D + li] += pl * f[j];
          H[D + li][D + li] += pl;
          for (let m = li; m < L; m++) H[D + li][D + m] -= pl * p[m];
        }
      }
      if (WITH_BIAS) {
        for (let li = 0; li < L; li++) g[D + li] += p[li];
        g[D + row.y] -= 1;
      }
    }
    if (WITH_BIAS) for (let li = 0; li < L; li++) {
      g[D + li] += BIAS_LAMBDA * theta[D + li];
      H[D + li][D + li] += BIAS_LAMBDA;
    }
    for (let j = 0; j < P; j++) for (let k = 0; k < j; k++) H[j][k] = H[k][j];
    for (let j = 0; j < P; j++) H[j][j] += 1e-9;
    const step = solve(H.map((r) => [...r]), [...g]);
    let t = 1;
    let next;
    let nextLoss;
    for (;;) {
      next = theta.map((v, j) => v - t * step[j]);
      nextLoss = lossOf(next);
      if (nextLoss <= loss || t < 1e-4) break;
      t /= 2;
    }
    const gain = loss - nextLoss;
    theta.set(next);
    loss = nextLoss;
    console.log(`  vote fit iteration ${iteration}: loss ${(loss / rows.length).toFixed(5)} per text, step ${t}, weights ${[...theta.slice(0, D)].map((v) => v.toFixed(3)).join(' ')}`);
    if (gain < 1e-6 * rows.length) break;
  }
  return {
    orderWeights: [...theta.slice(0, ORDERS)],
    eldWeight: theta[ORDERS],
    voteBias: WITH_BIAS ? [...theta.slice(D)] : undefined,
  };
}

/** Share of the rows (one prefix length) whose vote under these weights picks the right language. */
function voteAccuracy(rows, max, w) {
  const L = langs.length;
  let n = 0;
  let right = 0;
  for (const row of rows) {
    if (row.max !== max) continue;
    n++;
    let best = 0;
    let top = -Infinity;
    for (let li = 0; li < L; li++) {
      let v = w.eldWeight * row.eld[li] + (w.voteBias?.[li] ?? 0);
      for (let o = 0; o < ORDERS; o++) v += w.orderWeights[o] * row.x[o * L + li];
      if (v > top) [top, best] = [v, li];
    }
    if (best === row.y) right++;
  }
  return right / n;
}

/** Fits the confidence (and its thresholds) under each eld weight on the current fold models; the best at ≤ 20. */
async function calibrate(eldWeights, label) {
  let best = null;
  for (const eldWeight of eldWeights) {
    const rows = await collect(eldWeight, FIT_LENGTHS);
    const calibration = { ...fitConfidence(rows.filter((r) => r.features)), minLogitFew: Infinity, minLogit: Infinity };
    calibration.minLogitFew = threshold(rows.filter((r) => r.max === 10), calibration, true, TARGET_FEW);
    calibration.minLogit = threshold(rows.filter((r) => r.max === 20), calibration, false, TARGET);
    const at20 = score(rows.filter((r) => r.max === 20), calibration);
    const at10 = score(rows.filter((r) => r.max === 10), calibration);
    const guessed = rows.filter((r) => r.max === 20 && r.features);
    const guessRight = guessed.filter((r) => r.guess === r.lang).length / guessed.length;
    console.log(`${label}, eld weight ${eldWeight.toFixed(3)}: logits ${calibration.minLogitFew.toFixed(3)} (≤ ${FEW_LETTERS} letters) / ${calibration.minLogit.toFixed(3)}; ≤ 20 characters ${show(at20)} (guess right ${(100 * guessRight).toFixed(2)} %); ≤ 10 ${show(at10)}`);
    if (!best || at20.accuracy > best.accuracy) best = { eldWeight, calibration, accuracy: at20.accuracy, votes: guessed.map((r) => r.vote) };
  }
  return best;
}

// The plain vote (every order weight 1, eld's weight swept) against the discriminatively weighted one; the better
// cross-fitted accuracy at ≤ 20 characters wins. Mid-length text is left to eld meanwhile, then its margin is swept.
const plain = { ...(await calibrate(ELD_WEIGHTS, 'plain vote')), weights: null };
const vote = await voteRows(VOTE_LENGTHS);
const fitted = fitVote(vote, [...new Array(MAX_N + 1).fill(1), plain.eldWeight, ...(WITH_BIAS ? langs.map(() => 0) : [])]);
for (const max of [10, 20]) {
  const acc = (w) => (100 * voteAccuracy(vote, max, w)).toFixed(2);
  console.log(`vote guess right at ≤ ${max} characters (short texts): plain ${acc({ orderWeights: new Array(MAX_N + 1).fill(1), eldWeight: plain.eldWeight })} %, weighted ${acc(fitted)} %`);
}
models = foldData.map((d) => new NgramModel({ ...d, orderWeights: fitted.orderWeights, voteBias: fitted.voteBias }));
const weighted = { ...(await calibrate([fitted.eldWeight], 'weighted vote')), weights: fitted };
const best = weighted.accuracy <= plain.accuracy ? plain : weighted;
if (best === plain) models = foldData.map((d) => new NgramModel(d));
console.log(`chosen: ${best === plain ? 'plain' : 'weighted'} vote`);
const { eldWeight, calibration: shortTextCalibration } = best;
// Unsure outcomes list the languages within a window of the vote's best (translation falls back on them); the weighted
// vote's scale is another, so its window is the one that lists as many languages on average as the plain vote's
// PLAIN_CANDIDATE_WINDOW does, over the same short texts.
const candidatesWithin = (votes, window) => {
  let n = 0;
  for (const v of votes) {
    let top = -Infinity;
    for (const x of v) top = Math.max(top, x);
    for (const x of v) if (top - x <= window) n++;
  }
  return n / votes.length;
};
let candidateWindow = PLAIN_CANDIDATE_WINDOW;
if (best.weights) {
  const want = candidatesWithin(plain.votes, PLAIN_CANDIDATE_WINDOW);
  let [lo, hi] = [0, PLAIN_CANDIDATE_WINDOW];
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (candidatesWithin(best.votes, mid) < want) lo = mid;
    else hi = mid;
  }
  candidateWindow = hi;
  console.log(`candidate window ${candidateWindow.toFixed(3)}: ${candidatesWithin(best.votes, candidateWindow).toFixed(2)} languages on average at ≤ 20 characters (plain vote, window ${PLAIN_CANDIDATE_WINDOW}: ${want.toFixed(2)})`);
}
const voteWeights = best.weights ? { orderWeights: best.weights.orderWeights, voteBias: best.weights.voteBias } : {};
console.log(`weights: ${CONFIDENCE_FEATURES.map((f, i) => `${f} ${shortTextCalibration.weights[i].toFixed(3)}`).join(', ')}`);
let mid = null;
for (const factor of best.weights ? MID_ELD_FACTORS : [1]) {
  for (const m of MID_MARGINS) {
    const options = { ngramEldWeight: eldWeight, ngramEldWeightMid: factor * eldWeight, shortTextCalibration, ngramMinMarginMid: m };
    const r = await measure(50, options);
    console.log(`≤ 50 characters, mid eld weight ${(factor * eldWeight).toFixed(3)}, margin ${m}: ${show(r)}`);
    if (r.precision >= TARGET_MID && (!mid || r.accuracy > mid.accuracy)) mid = { margin: m, eldWeightMid: factor * eldWeight, ...r };
  }
}
const minMarginMid = mid?.margin ?? null;
const eldWeightMid = mid?.eldWeightMid ?? eldWeight;
// The detector must not lean on case (FLORES capitalises names; users may not): the same prefixes lower-cased.
for (const max of [10, 20, 50]) {
  const r = await measure(max, { ngramEldWeight: eldWeight, ngramEldWeightMid: eldWeightMid, shortTextCalibration, ngramMinMarginMid: minMarginMid ?? Infinity }, true);
  console.log(`≤ ${max} characters lower-cased: ${show(r)}`);
}
const data = { ...trainOn(() => true), ...voteWeights, eldWeight, eldWeightMid, candidateWindow, shortTextCalibration, minMarginMid };
writeFileSync(NGRAM_MODEL_FILE, serialiseNgramModel(data));
console.log(`${NGRAM_MODEL_FILE}: ${data.grams.size} features, eldWeight ${eldWeight} (mid-length ${eldWeightMid}), orderWeights ${data.orderWeights ?? "1"}, minMarginMid ${minMarginMid}`);
