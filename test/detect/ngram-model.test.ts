// Why: the model's log-likelihoods come from a trie of typed arrays (for speed); this pins them to the plain definition
// (sum over the text's known features of log P(feature | language)) computed here from the model's data by string keys.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { featureOrder, forEachNgramFeature, NgramModel, readNgramModel, serialiseNgramModel, type NgramModelData } from '../../src/detect/ngram-model.js';
import { floresLines, truncateAtWord } from '../helpers/flores.js';

const langs = ['en', 'de', 'da', 'ru'];

/** A small model trained the way scripts/train-detect-ngrams.mjs trains (all features kept). */
function train(maxN: number): NgramModelData {
  const grams = new Map<string, Map<number, number>>();
  const totals = langs.map(() => new Array<number>(maxN + 1).fill(0));
  const texts: Array<[number, string]> = langs.flatMap((lang, li) => floresLines(lang).slice(0, 60).map((line): [number, string] => [li, line]));
  // astral and lone-surrogate characters the model must key like any other
  texts.push([0, 'the 𝔘𝔫𝔦 code'], [1, 'ein 𝔘𝔫𝔦 Wort'], [2, 'en \ud800x streng']);
  for (const [li, text] of texts) {
    forEachNgramFeature(text, maxN, (f, order) => {
      let perLang = grams.get(f);
      if (!perLang) grams.set(f, (perLang = new Map()));
      perLang.set(li, (perLang.get(li) ?? 0) + 1);
      totals[li]![order]!++;
    });
  }
  const vocab = new Array<number>(maxN + 1).fill(0);
  for (const f of grams.keys()) vocab[featureOrder(f)]!++;
  return {
    maxN,
    alpha: 0.5,
    langs,
    totals,
    vocab,
    grams: new Map([...grams].map(([f, perLang]) => [f, [...perLang].flat()])),
    eldWeight: 1,
    shortTextCalibration: null,
  };
}

/** log P(text | language) over the features the model knows, straight from the counts. */
function reference(data: NgramModelData, text: string): number[] {
  const scores = data.langs.map(() => 0);
  forEachNgramFeature(text, data.maxN, (f, order) => {
    const pairs = data.grams.get(f);
    if (!pairs) return;
    data.langs.forEach((_, li) => {
      let count = 0;
      for (let k = 0; k < pairs.length; k += 2) if (pairs[k] === li) count = pairs[k + 1]!;
      scores[li]! += Math.log((count + data.alpha) / (data.totals[li]![order]! + data.alpha * data.vocab[order]!));
    });
  });
  return scores;
}

describe('NgramModel', () => {
  for (const maxN of [2, 4]) {
    it(`log-likelihoods equal the counts' definition (n-grams up to ${maxN})`, () => {
      const data = train(maxN);
      const model = new NgramModel(data);
      const texts = [
        '',
        '   ',
        'a',
        'Hello, world!',
        'the 𝔘𝔫𝔦 code',
        'x\ud800 y',
        '\ud800x',
        'İstanbul',
        'über 42 straße',
        ...langs.flatMap((lang) => floresLines(lang).slice(100, 130).flatMap((line) => [truncateAtWord(line, 10), truncateAtWord(line, 20), line])),
      ];
      let features = 0;
      for (const text of texts) {
        forEachNgramFeature(text, maxN, (f) => {
          if (data.grams.has(f)) features++;
        });
        const got = model.logLikelihoods(text);
        const want = reference(data, text);
        want.forEach((w, li) => assert.ok(Math.abs(got[li]! - w) < 1e-6 * Math.max(1, Math.abs(w)), `${JSON.stringify(text)} ${langs[li]}: ${got[li]} ≠ ${w}`));
      }
      // the texts do meet the model: unseen sentences of its languages share most of their features with it
      assert.ok(features > 1000, `only ${features} known features met`);
    });
  }

  it('order weights weigh each order of the definition (the vote biases are left to the detector)', () => {
    const plain = train(4);
    const orderWeights = [0.9, 0.1, 0.08, 0.004, 0.2];
    const voteBias = [0.5, -0.25, 0, 1.5];
    const model = new NgramModel({ ...plain, orderWeights, voteBias });
    // one order at a time: the reference with only that order's features, times its weight
    const perOrder = orderWeights.map((_, order) => {
      const grams = new Map([...plain.grams].filter(([f]) => featureOrder(f) === order));
      return { ...plain, grams };
    });
    for (const line of langs.flatMap((lang) => floresLines(lang).slice(100, 110).map((l) => truncateAtWord(l, 20)))) {
      const got = model.logLikelihoods(line);
      const want = langs.map((_, li) => perOrder.reduce((sum, data, order) => sum + orderWeights[order]! * reference(data, line)[li]!, 0));
      want.forEach((w, li) => assert.ok(Math.abs(got[li]! - w) < 1e-5 * Math.max(1, Math.abs(w)), `${JSON.stringify(line)} ${langs[li]}: ${got[li]} ≠ ${w}`));
      // and the weights do change the scores: the plain model's differ
      assert.notDeepEqual([...new NgramModel(plain).logLikelihoods(line)], [...got]);
    }
    assert.deepEqual([...(model.voteBias ?? [])], voteBias);
  });

  it('a language that saw a text scores it above one that did not', () => {
    const model = new NgramModel(train(4));
    const text = 'the 𝔘𝔫𝔦 code';
    const scores = model.logLikelihoods(text);
    assert.ok(scores[0]! > scores[3]!, `en ${scores[0]} vs ru ${scores[3]}`);
  });

  it('built from its file as read (no Map of features), scores exactly as built from its data', () => {
    const data = { ...train(4), orderWeights: [0.9, 0.1, 0.08, 0.004, 0.2] };
    const fromMap = new NgramModel(data);
    const fromText = new NgramModel(readNgramModel(serialiseNgramModel(data)));
    for (const line of langs.flatMap((lang) => floresLines(lang).slice(100, 130).flatMap((l) => [truncateAtWord(l, 12), l]))) {
      assert.deepEqual([...fromText.logLikelihoods(line)], [...fromMap.logLikelihoods(line)], line);
    }
  });
});
