// Why: measures /v2/write/correct's offline spelling correction (precision/recall of word edits on sentences with
// common real misspellings in en/de/es/fr) against two baselines in the same run: no correction, and Hunspell's
// first suggestion for every rejected word without filters or ranking.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Hunspell } from '../src/write/hunspell.js';
import { correctSpelling } from '../src/write/spelling-corrector.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const fixtures = join(repoRoot, 'test', 'fixtures', 'write');

interface Sample {
  lang: string;
  input: string;
  expected: string;
}

function loadSamples(): Sample[] {
  const samples: Sample[] = [];
  for (const file of readdirSync(fixtures).filter((f) => /^misspellings-.*\.tsv$/.test(f)).sort()) {
    for (const line of readFileSync(join(fixtures, file), 'utf8').split('\n')) {
      if (!line.trim() || line.startsWith('#')) continue;
      const [lang, input, expected] = line.split('\t');
      if (!lang || input === undefined || expected === undefined) throw new Error(`${file}: bad line ${JSON.stringify(line)}`);
      samples.push({ lang, input, expected });
    }
  }
  return samples;
}

/** An edit: input tokens [from, to) replaced by `text` (space-joined tokens). */
interface Edit {
  from: number;
  to: number;
  text: string;
}

/** Word edits turning a into b: the gaps of a longest-common-subsequence alignment of whitespace tokens. */
export function edits(a: string, b: string): Edit[] {
  const x = a.split(/\s+/).filter(Boolean);
  const y = b.split(/\s+/).filter(Boolean);
  const l: number[][] = Array.from({ length: x.length + 1 }, () => new Array<number>(y.length + 1).fill(0));
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) l[i]![j] = x[i] === y[j] ? l[i + 1]![j + 1]! + 1 : Math.max(l[i + 1]![j]!, l[i]![j + 1]!);
  }
  const out: Edit[] = [];
  let i = 0;
  let j = 0;
  let gap: { from: number; tokens: string[] } | undefined;
  const close = () => {
    if (gap) out.push({ from: gap.from, to: i, text: gap.tokens.join(' ') });
    gap = undefined;
  };
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      close();
      i++;
      j++;
    } else if (j < y.length && (i === x.length || l[i]![j + 1]! >= l[i + 1]![j]!)) {
      gap ??= { from: i, tokens: [] };
      gap.tokens.push(y[j++]!);
    } else {
      gap ??= { from: i, tokens: [] };
      i++;
    }
  }
  close();
  return out;
}

interface Score {
  goldEdits: number;
  systemEdits: number;
  correct: number;
  detected: number;
  exactSentences: number;
  sentences: number;
  ms: number;
}

const empty = (): Score => ({ goldEdits: 0, systemEdits: 0, correct: 0, detected: 0, exactSentences: 0, sentences: 0, ms: 0 });

function scoreOne(score: Score, sample: Sample, output: string): void {
  const gold = edits(sample.input, sample.expected);
  const system = edits(sample.input, output);
  score.sentences++;
  score.goldEdits += gold.length;
  score.systemEdits += system.length;
  if (output === sample.expected) score.exactSentences++;
  for (const s of system) {
    if (gold.some((g) => g.from === s.from && g.to === s.to && g.text === s.text)) score.correct++;
    if (gold.some((g) => s.from < Math.max(g.to, g.from + 1) && Math.max(s.to, s.from + 1) > g.from)) score.detected++;
  }
}

type Corrector = (text: string, lang: string) => Promise<string>;

const WORD = /[\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)*/gu;

/** Baseline: every word Hunspell rejects becomes its first suggestion (no skip rules, no ranking, no casing). */
function firstSuggestion(hunspell: Hunspell): Corrector {
  return async (text, lang) => {
    const matches = [...text.matchAll(WORD)];
    const checks = await hunspell.check(lang, matches.map((m) => m[0]));
    let out = '';
    let at = 0;
    matches.forEach((m, i) => {
      const c = checks[i]!;
      if (!c.correct && c.suggestions[0]) {
        out += text.slice(at, m.index!) + c.suggestions[0];
        at = m.index! + m[0].length;
      }
    });
    return out + text.slice(at);
  };
}

const pct = (n: number, d: number) => (d === 0 ? '–' : `${((100 * n) / d).toFixed(1)}`);

async function main(): Promise<void> {
  const samples = loadSamples();
  const hunspell = new Hunspell();
  const langs = [...new Set(samples.map((s) => s.lang))];
  for (const l of langs) if (!hunspell.has(l)) throw new Error(`no Hunspell dictionary for ${l}: run scripts/setup.sh`);
  const variants: [string, Corrector][] = [
    ['no correction', async (t) => t],
    ['hunspell first suggestion', firstSuggestion(hunspell)],
    ['tolk correct (offline)', (t, l) => correctSpelling(t, l, hunspell)],
  ];
  // warm the checkers so start-up is not timed
  for (const l of langs) await hunspell.check(l, ['warm']);
  const results = new Map<string, Map<string, Score>>();
  for (const [name, correct] of variants) {
    const byLang = new Map<string, Score>();
    for (const sample of samples) {
      const score = byLang.get(sample.lang) ?? empty();
      byLang.set(sample.lang, score);
      const started = performance.now();
      const output = await correct(sample.input, sample.lang);
      score.ms += performance.now() - started;
      scoreOne(score, sample, output);
      if (process.env.BENCH_VERBOSE && name.startsWith('tolk') && output !== sample.expected) {
        console.log(`  miss [${sample.lang}] ${sample.input}\n    got      ${output}\n    expected ${sample.expected}`);
      }
    }
    results.set(name, byLang);
  }
  hunspell.close();

  const goldTotal = samples.reduce((n, s) => n + edits(s.input, s.expected).length, 0);
  console.log(`${samples.length} sentences (${langs.join(', ')}), ${goldTotal} gold word edits\n`);
  console.log('| variant | lang | precision % | recall % | F1 | detection recall % | exact sentences % | ms/sentence |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const [name, byLang] of results) {
    const total = empty();
    for (const [lang, s] of [...byLang, ['all', total] as [string, Score]]) {
      if (lang !== 'all') for (const k of Object.keys(total) as (keyof Score)[]) total[k] += s[k];
      const p = s.systemEdits ? s.correct / s.systemEdits : 0;
      const r = s.goldEdits ? s.correct / s.goldEdits : 0;
      const f1 = p + r === 0 ? '–' : ((2 * p * r) / (p + r)).toFixed(3);
      console.log(
        `| ${name} | ${lang} | ${pct(s.correct, s.systemEdits)} | ${pct(s.correct, s.goldEdits)} | ${f1} | ${pct(Math.min(s.detected, s.goldEdits), s.goldEdits)} | ${pct(s.exactSentences, s.sentences)} | ${(s.ms / s.sentences).toFixed(2)} |`,
      );
    }
  }
}

await main();
