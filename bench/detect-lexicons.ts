// What the lexicons' vote (src/detect/lexicon-vote.ts) changes in short-text detection, in one run: the detector alone
// and the detector with the installed Hunspell dictionaries and Apertium analysers, on
//  - the greetings and UI words of test/fixtures/detect/short-phrases.tsv,
//  - held-out FLORES dev prefixes (sentences 500 on, --sentences per language) of ≤10 and ≤20 characters in the 33
//    detection languages (accuracy, precision of answers),
//  - the same prefixes in FLORES languages outside the 33 (how many get a language reported that is not theirs).
//  - the UDHR (held out from all of it) in the 33 and in neighbouring languages outside them.
// node dist/bench/detect-lexicons.js [--sentences=150]
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DETECTION_LANGUAGES, DETECTOR_LANGUAGES, EldLanguageDetector, type DetectionOutcome } from '../src/detect/language-detector.js';
import { hunspellLexicon, LexiconVote } from '../src/detect/lexicon-vote.js';
import { MorphAnalysers } from '../src/engines/apertium/morph-analysers.js';
import { Hunspell } from '../src/write/hunspell.js';
import { FLORES_DIR, floresLines, truncateAtWord } from '../test/helpers/flores.js';
import { benchArgs } from './args.js';
import { distinctTexts, UDHR_OTHER_DECLARATIONS, udhrOtherSentences, udhrSentences } from './udhr-sentences.js';

const args = benchArgs();
const sentences = Number(args.get('sentences') ?? 150);
const HELD_OUT_FROM = 500;

const detector = await EldLanguageDetector.create();
const hunspell = new Hunspell();
const analysers = new MorphAnalysers();
const vote = new LexiconVote([hunspellLexicon(hunspell), analysers], DETECTOR_LANGUAGES, new Set(DETECTION_LANGUAGES), 30_000);

/** The language reported (success, or unsupported outside the 33), undefined when unsure. */
const reported = (o: DetectionOutcome) => (o.status === 'success' ? o.language : o.status === 'unsupported_language' ? o.rawLanguage : undefined);

async function both(text: string): Promise<[alone: string | undefined, withLexicons: string | undefined]> {
  const outcome = detector.detect(text);
  const question = detector.lexiconQuestion(text, outcome);
  const decided = question ? await vote.decide(question) : undefined;
  return [reported(outcome), decided ?? reported(outcome)];
}

interface Tally {
  texts: number;
  right: [number, number];
  answered: [number, number];
}

async function tally(cases: Array<[lang: string, text: string]>): Promise<Tally> {
  const t: Tally = { texts: 0, right: [0, 0], answered: [0, 0] };
  for (const [lang, text] of cases) {
    t.texts++;
    const answers = await both(text);
    answers.forEach((answer, i) => {
      if (answer !== undefined) t.answered[i]!++;
      if (answer === lang) t.right[i]!++;
    });
  }
  return t;
}

const pct = (n: number, d: number) => (d === 0 ? '–' : `${((100 * n) / d).toFixed(2)}%`);
const row = (name: string, t: Tally) =>
  `| ${name} | ${t.texts} | ${pct(t.right[0], t.texts)} | ${pct(t.right[0], t.answered[0])} | ${pct(t.right[1], t.texts)} | ${pct(t.right[1], t.answered[1])} |`;

// outside the 33 what counts is how many texts are reported as another language (alone / with lexicons)
const wrongRow = (name: string, t: Tally) =>
  `| ${name} | ${t.texts} | another language reported: ${pct(t.answered[0] - t.right[0], t.texts)} | | ${pct(t.answered[1] - t.right[1], t.texts)} | |`;

const fixture = fileURLToPath(new URL('../../test/fixtures/detect/short-phrases.tsv', import.meta.url));
const phrases = readFileSync(fixture, 'utf8')
  .split('\n')
  .filter((l) => l !== '' && !l.startsWith('#'))
  .map((l) => l.split('\t') as [string, string]);

console.log(`FLORES dev sentences ${HELD_OUT_FROM}–${HELD_OUT_FROM + sentences - 1} per language; prefixes cut at a word boundary.\n`);
console.log('| Set | texts | alone: accuracy | alone: precision | with lexicons: accuracy | with lexicons: precision |');
console.log('|---|---:|---:|---:|---:|---:|');
console.log(row('greetings and UI words (fixture)', await tally(phrases)));
for (const max of [10, 20]) {
  const cases: Array<[string, string]> = [];
  for (const lang of DETECTION_LANGUAGES) {
    for (const line of floresLines(lang).slice(HELD_OUT_FROM, HELD_OUT_FROM + sentences)) cases.push([lang, truncateAtWord(line, max)]);
  }
  console.log(row(`FLORES ≤${max}, the 33`, await tally(cases)));
}
// languages outside the 33: any language reported but their own is wrong (eld reports some of them, e.g. ca)
const others = readdirSync(FLORES_DIR)
  .map((f) => f.replace(/^flores-dev\./, ''))
  .filter((lang) => !(DETECTION_LANGUAGES as readonly string[]).includes(lang));
for (const max of [10, 20]) {
  const cases: Array<[string, string]> = [];
  for (const lang of others) for (const line of floresLines(lang).slice(HELD_OUT_FROM, HELD_OUT_FROM + sentences)) cases.push([lang, truncateAtWord(line, max)]);
  console.log(wrongRow(`FLORES ≤${max}, ${others.length} other languages`, await tally(cases)));
}
// held out from everything fit or tuned: the UDHR (bench/udhr-sentences.ts), each distinct prefix once per language
const udhrCases = (langs: readonly string[], sentencesOf: (lang: string) => string[], max: number) =>
  langs.flatMap((lang) => distinctTexts(sentencesOf(lang).map((s) => truncateAtWord(s, max))).map((text): [string, string] => [lang, text]));
const udhrOthers = Object.keys(UDHR_OTHER_DECLARATIONS);
for (const max of [10, 20]) console.log(row(`UDHR ≤${max}, the 33`, await tally(udhrCases(DETECTION_LANGUAGES, udhrSentences, max))));
for (const max of [10, 20]) console.log(wrongRow(`UDHR ≤${max}, ${udhrOthers.length} other languages`, await tally(udhrCases(udhrOthers, udhrOtherSentences, max))));
hunspell.close();
analysers.close();
