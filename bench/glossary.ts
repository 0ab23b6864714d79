// Glossary application on a 10 MiB dictionary: Aho–Corasick matcher vs a naive per-term scan (baseline).
import { performance } from 'node:perf_hooks';
import { GlossaryMatcher, naiveFind } from '../src/customization/glossaries/matcher.js';
import { applyGlossary } from '../src/customization/glossaries/protect.js';
import { parseEntries, toTsv, type GlossaryEntry } from '../src/customization/glossaries/entries.js';

let seed = 42;
// mulberry32: a deterministic generator with a full 2^32 period.
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
};
const syll = ['ka', 'lo', 'mi', 'ser', 'tan', 'po', 'ver', 'dex', 'ul', 'ran', 'qui', 'mon', 'zet', 'bri', 'ox'];
const word = () => Array.from({ length: 2 + Math.floor(rnd() * 3) }, () => syll[Math.floor(rnd() * syll.length)]).join('');

const seen = new Set<string>();
const entries: GlossaryEntry[] = [];
let bytes = 0;
while (bytes < 10 * 1024 * 1024 - 200) {
  const source = Array.from({ length: 1 + Math.floor(rnd() * 3) }, word).join(' ');
  if (seen.has(source)) continue;
  seen.add(source);
  const e = { source, target: `T-${source}` };
  bytes += Buffer.byteLength(`${e.source}\t${e.target}\n`);
  entries.push(e);
}
const tsv = toTsv(entries);
let t = performance.now();
const parsed = parseEntries(tsv, 'tsv');
const parseMs = performance.now() - t;
t = performance.now();
const matcher = new GlossaryMatcher(parsed);
const buildMs = performance.now() - t;
const filler = ['the', 'customer', 'said', 'that', 'our', 'new', 'product', 'works', 'well', 'with', 'and', 'a'];
const sentences = Array.from({ length: 2000 }, () =>
  Array.from({ length: 20 }, () => (rnd() < 0.15 ? entries[Math.floor(rnd() * entries.length)]!.source : filler[Math.floor(rnd() * filler.length)])).join(' ') + '.',
);
t = performance.now();
let terms = 0;
for (const s of sentences) terms += applyGlossary([s], [matcher]).termCount;
const perSegmentUs = ((performance.now() - t) / sentences.length) * 1000;
const naiveN = 5;
const folded = entries.map((e) => e.source.toLowerCase());
t = performance.now();
const naive = sentences.slice(0, naiveN).map((s) => naiveFind(entries, s, folded));
const naiveUs = ((performance.now() - t) / naiveN) * 1000;
// The two must agree (same spans) on the baseline's segments.
const agree = naive.filter((n, i) => JSON.stringify(n) === JSON.stringify(matcher.find(sentences[i]!))).length;
console.log(`dictionary: ${entries.length} entries, ${(Buffer.byteLength(tsv) / 1048576).toFixed(2)} MiB; parse+validate ${parseMs.toFixed(0)} ms; matcher build ${buildMs.toFixed(0)} ms (${matcher.nodeCount} nodes); heap ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MiB`);
console.log(`Aho–Corasick: ${perSegmentUs.toFixed(1)} µs per 20-word segment (${sentences.length} segments, ${terms} terms protected)`);
console.log(`baseline naive scan (every term at every word start): ${(naiveUs / 1000).toFixed(1)} ms per segment (${naiveN} segments) → ${(naiveUs / perSegmentUs).toFixed(0)}× slower; same matches on ${agree}/${naiveN}`);
