// Bergamot memory under mixed traffic: 1, 3 and 6 installed base-memory directions (Mozilla's architecture at its
// published size, generated weights, real vocabularies), one engine per case with the engine's default budget
// (TOLK_BERGAMOT_MEMORY_MB unset: a quarter of the machine's memory) unless --budget is given. Each case starts cold:
// the first burst (8 concurrent one-sentence requests for one direction) measures the latency of a cold start; then
// clients send one-sentence requests while the process's resident memory is sampled every 20 ms. `--order=random`
// (default): random directions, a 40-sentence request now and then; `--order=round-robin`: one-sentence requests
// that visit every direction in turn (issue 46: ten directions against one). Baseline in the same run: the process
// with the runtimes started and no model.
//
// Run: npm run bench:bergamot-memory [-- --duration=20000 --workers=4 --clients=8 --budget=MiB --directions=1,3,6
//      --order=random|round-robin --models=DIR (generated models kept between runs)]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import * as bergamot from '../src/engines/bergamot/index.js';
import { realVocab } from '../test/helpers/bergamot-models.js';
import { benchArgs } from './args.js';

const args = benchArgs();
const DURATION_MS = Number(args.get('duration') ?? 20_000);
const WORKERS = Number(args.get('workers') ?? 4);
const CLIENTS = Number(args.get('clients') ?? 8);
// The engine's default where it has one (main's engine had a fixed 2048 and no export: this bench also runs against it).
const defaultBudget = (bergamot as { defaultMemoryBudgetMb?: () => number }).defaultMemoryBudgetMb?.() ?? 2048;
const BUDGET_MB = args.has('budget') ? Number(args.get('budget')) : defaultBudget;
const CASES = (args.get('directions') ?? '1,3,6').split(',').map(Number);
const ROUND_ROBIN = args.get('order') === 'round-robin';
const DIRECTIONS = ['en-de', 'de-en', 'en-es', 'es-en', 'en-fr', 'fr-en', 'en-it', 'it-en', 'en-pt', 'pt-en'];
const { BergamotEngine } = bergamot;
const SENTENCES = ['The house is big and the garden is green.', 'Where is the train station, please?', 'I have two dogs and a cat at home.', 'The weather is nice today in the city.'];
const MiB = 1048576;

/** Model directories written by the generator in a child process (its buffers never weigh on this process's RSS). */
function writeModels(root: string, pairs: string[]): void {
  for (const pair of pairs) {
    if (existsSync(join(root, pair))) continue;
    const vocab = realVocab(pair.includes('de') ? 'deen' : 'esen');
    execFileSync(process.execPath, ['scripts/make-test-model.mjs', '--pair', pair, '--shape', 'base-memory', '--vocab', vocab, '--out', join(root, pair)]);
  }
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;

async function runCase(root: string, directions: number) {
  const modelsDir = mkdtempSync(join(tmpdir(), 'tolk-bench-bergamot-memory-'));
  for (const pair of DIRECTIONS.slice(0, directions)) execFileSync('cp', ['-r', join(root, pair), join(modelsDir, pair)]);
  // The request limit far above the 15 s default: a loaded machine measures latency, not timeouts.
  const engine = new BergamotEngine({ modelsDir, workers: WORKERS, rescanIntervalMs: 0, requestTimeoutMs: 300_000, ...(args.has('budget') ? { memoryBudgetMb: BUDGET_MB } : {}) });
  await engine.start();
  let peakRss = process.memoryUsage().rss;
  let peakHeaps = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    peakHeaps = Math.max(peakHeaps, engine.runtimeMemory().heapBytes.reduce((a, b) => a + b, 0));
  }, 20);
  const pairOf = (p: string) => ({ source: p.split('-')[0]!, target: p.split('-')[1]! });

  // Cold start: runtimes start and the first direction loads while the burst waits.
  const coldStart = performance.now();
  const cold = await Promise.all(
    SENTENCES.concat(SENTENCES).map(async (s) => {
      await engine.translate(pairOf(DIRECTIONS[0]!), [s], {});
      return performance.now() - coldStart;
    }),
  );

  const latencies: number[] = [];
  let errors = 0;
  let requests = 0;
  let turn = 0;
  const end = performance.now() + DURATION_MS;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      let n = client;
      while (performance.now() < end) {
        const pair = DIRECTIONS[ROUND_ROBIN ? turn++ % directions : Math.floor(Math.random() * directions)]!;
        const texts = ++n % 25 === 0 && !ROUND_ROBIN ? Array.from({ length: 40 }, (_, i) => SENTENCES[i % SENTENCES.length]!) : [SENTENCES[n % SENTENCES.length]!];
        const t = performance.now();
        try {
          await engine.translate(pairOf(pair), texts, {});
          if (texts.length === 1) latencies.push(performance.now() - t);
        } catch {
          errors++;
        }
        requests++;
      }
    }),
  );
  clearInterval(sampler);
  const loads = engine.loadStats().length;
  const copies = [...engine.runtimeMemory().copies.values()].reduce((a, b) => a + b, 0);
  await engine.close();
  rmSync(modelsDir, { recursive: true, force: true });
  return { directions, cold, latencies, errors, requests, peakRss, peakHeaps, loads, copies };
}

async function main(): Promise<void> {
  const root = args.get('models') ?? mkdtempSync(join(tmpdir(), 'tolk-bench-bergamot-models-'));
  writeModels(root, DIRECTIONS.slice(0, Math.max(...CASES)));
  // Baseline: the runtimes started, no model loaded.
  const bare = new BergamotEngine({ modelsDir: root, workers: WORKERS, rescanIntervalMs: 0 });
  await bare.start();
  await (bare as unknown as { pool: { start(): Promise<void> } }).pool.start();
  const baselineRss = process.memoryUsage().rss;
  await bare.close();

  const rows = [];
  for (const directions of CASES) rows.push(await runCase(root, directions));
  if (!args.has('models')) rmSync(root, { recursive: true, force: true });

  const f = (n: number) => n.toFixed(0);
  console.log(`\nBergamot memory, base-memory models (width 384, 6 enc / 4 SSRU dec, 31.6 MB each), ${WORKERS} workers, ${availableParallelism()} cores, budget ${BUDGET_MB} MiB${args.has('budget') ? '' : " (the engine's default)"}, ${CLIENTS} clients for ${DURATION_MS} ms per case, ${ROUND_ROBIN ? 'one-sentence requests visiting the directions in turn' : 'random directions'}`);
  console.log(`baseline: runtimes started, no model: RSS ${f(baselineRss / MiB)} MiB`);
  console.log('| directions | first burst (8 × 1 sentence, cold) ms: first / last | requests | errors | p50 / p95 ms (1 sentence) | loads | copies at end | peak Σ heaps MiB | peak RSS MiB | below budget |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.directions} | ${f(Math.min(...r.cold))} / ${f(Math.max(...r.cold))} | ${r.requests} | ${r.errors} | ${f(quantile(r.latencies, 0.5))} / ${f(quantile(r.latencies, 0.95))} | ${r.loads} | ${r.copies} | ${f(r.peakHeaps / MiB)} | ${f(r.peakRss / MiB)} | ${r.peakRss <= BUDGET_MB * MiB ? 'yes' : 'NO'} |`,
    );
  }
}

await main();
