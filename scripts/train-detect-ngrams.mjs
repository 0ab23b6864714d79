// Builds assets/detect-ngrams.tsv, the language model for short and mid-length text (src/detect/ngram-model.ts):
// character 1–4-gram and word counts of FLORES dev sentences 0–499 in the 33 detection languages, and the leads
// (margins) that make its answers a success. Margins are cross-fitted: sentences 0–499 in 4 folds, each fold's
// prefixes detected with a model trained on the other three (375 sentences, near the final 500), pooled; the final
// model is trained on all of 0–499. Sentences 500–996 stay held out for bench/detect.ts.
// Run after a build: `npx tsc && node scripts/train-detect-ngrams.mjs` (a few minutes; FLORES location:
// TOLK_FLORES_DIR, see test/helpers/flores.ts).

import { writeFileSync } from 'node:fs';
import { DETECTION_LANGUAGES, EldLanguageDetector } from '../dist/src/detect/language-detector.js';
import { featureOrder, ngramFeatures, NGRAM_MODEL_FILE, NgramModel, serialiseNgramModel } from '../dist/src/detect/ngram-model.js';
import { floresLines, truncateAtWord } from '../dist/test/helpers/flores.js';

const MAX_N = 4;
const ALPHA = 0.5;
/** Features seen fewer times (all languages together) are dropped: half the file, no measurable loss. */
const MIN_COUNT = 2;
const SENTENCES = 500;
const FOLDS = 4;
/** Weights of eld's log score (× letters) tried in the vote; the best accuracy at 20 characters wins. */
const ELD_WEIGHTS = [1, 2, 4];
/** Precision of `success` required at ≤ 20 characters (a little above the 99 %, for the held-out data). */
const TARGET = 0.992;
/** At ≤ 10 characters eld's own successes are ~99.2 % right; the model may only add answers that keep 99 %. */
const TARGET_FEW = 0.99;
/** Mid-length text (≤ 50 characters): the margin with the best accuracy whose precision stays at least this. */
const TARGET_MID = 0.99;
const MID_MARGINS = [0, 2.5, 5, 7.5, 10, 15, 20, 30];

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
  return { maxN: MAX_N, alpha: ALPHA, langs, totals, vocab, grams, eldWeight: 1, minMargin: null, minMarginFew: null, minMarginMid: null };
}

const fold = (i) => Math.floor((i * FOLDS) / SENTENCES);
const models = Array.from({ length: FOLDS }, (_, k) => new NgramModel(trainOn((i) => fold(i) !== k)));
const prefixes = (max) =>
  Array.from({ length: FOLDS }, (_, k) => langs.flatMap((lang) => lines.get(lang).filter((_, i) => fold(i) === k).map((l) => [lang, truncateAtWord(l, max)])));
const sets = { 10: prefixes(10), 20: prefixes(20), 50: prefixes(50) };

/** Pooled precision and accuracy of the cross-fitted detectors on prefixes of `max` characters. */
async function measure(max, options) {
  let n = 0;
  let success = 0;
  let right = 0;
  for (let k = 0; k < FOLDS; k++) {
    const detector = await EldLanguageDetector.create({ ...options, ngramModel: models[k] });
    for (const [lang, text] of sets[max][k]) {
      n++;
      const o = detector.detect(text);
      if (o.status !== 'success') continue;
      success++;
      if (o.language === lang) right++;
    }
  }
  return { precision: right / success, accuracy: right / n };
}
const show = (r) => `precision ${(100 * r.precision).toFixed(2)} %, accuracy ${(100 * r.accuracy).toFixed(2)} %`;

/** Precision grows with the margin, not quite monotonically: from 50, step down while the target is still met. */
async function sweep(max, target, optionsFor) {
  let chosen = null;
  for (let m = 50; m >= 2; m -= 1.25) {
    const r = await measure(max, optionsFor(m));
    if (r.precision < target) break;
    chosen = { margin: m, ...r };
  }
  if (chosen) console.log(`≤ ${max} characters: margin ${chosen.margin}, ${show(chosen)}`);
  return chosen;
}

// Mid-length text is left to eld while the short margins are swept (a margin of Infinity), then swept itself.
let best = null;
for (const w of ELD_WEIGHTS) {
  console.log(`eld weight ${w}`);
  const r = await sweep(20, TARGET, (m) => ({ ngramEldWeight: w, ngramMinMargin: m, ngramMinMarginFew: Infinity, ngramMaxLetters: 0 }));
  if (r && (!best || r.accuracy > best.accuracy)) best = { ...r, eldWeight: w };
}
if (best === null) throw new Error(`no margin reaches ${TARGET} precision at 20 characters`);
const { eldWeight, margin: minMargin } = best;
const few = await sweep(10, TARGET_FEW, (m) => ({ ngramEldWeight: eldWeight, ngramMinMargin: minMargin, ngramMinMarginFew: m, ngramMaxLetters: 0 }));
const minMarginFew = few?.margin ?? null;
let mid = null;
for (const m of MID_MARGINS) {
  const r = await measure(50, { ngramEldWeight: eldWeight, ngramMinMargin: minMargin, ngramMinMarginFew: minMarginFew ?? Infinity, ngramMinMarginMid: m });
  console.log(`≤ 50 characters, mid margin ${m}: ${show(r)}`);
  if (r.precision >= TARGET_MID && (!mid || r.accuracy > mid.accuracy)) mid = { margin: m, ...r };
}
const minMarginMid = mid?.margin ?? null;
const data = { ...trainOn(() => true), eldWeight, minMargin, minMarginFew, minMarginMid };
writeFileSync(NGRAM_MODEL_FILE, serialiseNgramModel(data));
console.log(`${NGRAM_MODEL_FILE}: ${data.grams.size} features, eldWeight ${eldWeight}, minMargin ${minMargin}, minMarginFew ${minMarginFew}, minMarginMid ${minMarginMid}`);
