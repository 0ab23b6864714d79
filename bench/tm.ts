// Translation-memory lookup on 100,000 segments: token index + edit distance vs scoring every segment (baseline).
import { performance } from 'node:perf_hooks';
import { FuzzyIndex, naiveLookup, type MemorySegment } from '../src/customization/memories/fuzzy-index.js';

let seed = 7;
// mulberry32: a deterministic generator with a full 2^32 period.
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
};
const vocab = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
const common = ['the', 'a', 'of', 'to', 'and', 'is', 'in', 'for', 'on', 'with'];
// Zipf-like: common words often, the long tail rarely, as in real text.
const pick = () => (rnd() < 0.35 ? common[Math.floor(rnd() * common.length)]! : vocab[Math.floor(Math.pow(rnd(), 2) * vocab.length)]!);
const sentence = () => Array.from({ length: 8 + Math.floor(rnd() * 12) }, pick).join(' ') + '.';
const N = 100_000;
const segments: MemorySegment[] = Array.from({ length: N }, (_, i) => ({ source: sentence(), target: `target ${i}` }));
let t = performance.now();
const index = new FuzzyIndex(segments);
const buildMs = performance.now() - t;
// Queries: a third exact, a third with one or two words changed (fuzzy hits), a third new sentences (misses).
const queries = Array.from({ length: 600 }, (_, i) => {
  const s = segments[Math.floor(rnd() * N)]!.source;
  if (i % 3 === 0) return s;
  if (i % 3 === 1) {
    const w = s.split(' ');
    w[Math.floor(rnd() * w.length)] = 'changed';
    if (w.length > 12) w[Math.floor(rnd() * w.length)] = 'again';
    return w.join(' ');
  }
  return sentence();
});
t = performance.now();
let hits = 0;
for (const q of queries) if (index.lookup(q, 75)) hits++;
const perUs = ((performance.now() - t) / queries.length) * 1000;
const naiveN = 6;
t = performance.now();
let agree = 0;
for (const q of queries.slice(0, naiveN)) if ((naiveLookup(segments, q, 75)?.score ?? -1) === (index.lookup(q, 75)?.score ?? -1)) agree++;
const naiveUs = ((performance.now() - t) / naiveN) * 1000;
console.log(`memory: ${N} segments; index build ${buildMs.toFixed(0)} ms; heap ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MiB`);
console.log(`indexed lookup (threshold 75): ${perUs.toFixed(0)} µs per segment (${queries.length} queries, ${hits} hits)`);
console.log(`baseline naive scan (edit distance to every segment): ${(naiveUs / 1000).toFixed(0)} ms per segment → ${(naiveUs / perUs).toFixed(0)}× slower; same best score on ${agree}/${naiveN}`);
