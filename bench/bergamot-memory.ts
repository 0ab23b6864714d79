// Bergamot memory under mixed traffic: 1, 3 and 6 installed base-memory directions (Mozilla's architecture at its
// published size, generated weights, real vocabularies), one engine per case with the engine's default budget
// (TOLK_BERGAMOT_MEMORY_MB unset: a quarter of the machine's memory) unless --budget is given. Each case starts cold:
// the first burst (8 concurrent one-sentence requests for one direction) measures the latency of a cold start; then
// clients send one-sentence requests while the process's resident memory is sampled every 20 ms: "first visits" until
// every direction has answered once (their cold loads), then the steady state for --duration. `--order=random`
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

/** Runtime calls (batches) of the engine's pool: how many, their segments and their time (the pool's own measure). */
function watchBatches(engine: InstanceType<typeof BergamotEngine>) {
  const pool = (engine as unknown as { pool: { runBatch: (w: unknown, k: string, b: { texts: string[] }[]) => void; noteBatchTime: (k: string, ms: number) => void } }).pool;
  let count = 0;
  let segments = 0;
  let ms = 0;
  const run = pool.runBatch.bind(pool);
  const note = pool.noteBatchTime.bind(pool);
  pool.runBatch = (w, k, b) => {
    count++;
    segments += b.reduce((n, c) => n + c.texts.length, 0);
    run(w, k, b);
  };
  pool.noteBatchTime = (k, t) => {
    ms += t;
    note(k, t);
  };
  return { reset: () => void (count = segments = ms = 0), read: () => ({ count, segments, ms }) };
}

const f = (n: number) => n.toFixed(0);
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;

async function runCase(root: string, directions: number) {
  const modelsDir = mkdtempSync(join(tmpdir(), 'tolk-bench-bergamot-memory-'));
  for (const pair of DIRECTIONS.slice(0, directions)) execFileSync('cp', ['-r', join(root, pair), join(modelsDir, pair)]);
  // The request limit far above the 15 s default: a loaded machine measures latency, not timeouts.
  const engine = new BergamotEngine({ modelsDir, workers: WORKERS, rescanIntervalMs: 0, requestTimeoutMs: 300_000, ...(args.has('budget') ? { memoryBudgetMb: BUDGET_MB } : {}) });
  await engine.start();
  const batches = watchBatches(engine);
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

  // First visits: the stream runs until every direction has answered once (its cold load included); then the
  // steady state is measured for DURATION_MS with every direction visited before.
  const first: number[] = [];
  const steady: number[] = [];
  const answered = new Set<string>();
  let steadyFrom = Infinity;
  let loadsBefore = 0;
  let errors = 0;
  let requests = 0;
  let turn = 0;
  const end = () => steadyFrom + DURATION_MS;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      let n = client;
      while (performance.now() < end()) {
        const pair = DIRECTIONS[ROUND_ROBIN ? turn++ % directions : Math.floor(Math.random() * directions)]!;
        const texts = ++n % 25 === 0 && !ROUND_ROBIN ? Array.from({ length: 40 }, (_, i) => SENTENCES[i % SENTENCES.length]!) : [SENTENCES[n % SENTENCES.length]!];
        const t = performance.now();
        const inSteady = t >= steadyFrom;
        try {
          await engine.translate(pairOf(pair), texts, {});
          if (texts.length === 1) (inSteady ? steady : first).push(performance.now() - t);
          answered.add(pair);
          if (answered.size === directions && steadyFrom === Infinity) {
            steadyFrom = performance.now();
            loadsBefore = engine.loadStats().length;
            batches.reset();
          }
        } catch {
          errors++;
        }
        requests++;
      }
    }),
  );
  clearInterval(sampler);
  const loadList = engine.loadStats().map((l) => `${l.key}@${l.worker} ${f(l.loadMs)}`);
  const loads = loadList.length;
  const steadyLoads = loads - loadsBefore;
  const steadyBatches = batches.read();
  const copies = [...engine.runtimeMemory().copies.values()].reduce((a, b) => a + b, 0);
  await engine.close();
  rmSync(modelsDir, { recursive: true, force: true });
  return { directions, cold, first, steady, errors, requests, peakRss, peakHeaps, loads, steadyLoads, steadyBatches, copies, loadList };
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

  console.log(`\nBergamot memory, base-memory models (width 384, 6 enc / 4 SSRU dec, 31.6 MB each), ${WORKERS} workers, ${availableParallelism()} cores, budget ${BUDGET_MB} MiB${args.has('budget') ? '' : " (the engine's default)"}, ${CLIENTS} clients for ${DURATION_MS} ms per case, ${ROUND_ROBIN ? 'one-sentence requests visiting the directions in turn' : 'random directions'}`);
  console.log(`baseline: runtimes started, no model: RSS ${f(baselineRss / MiB)} MiB`);
  console.log('| directions | first burst (8 × 1 sentence, cold) ms: first / last | first visits: requests, p50 / p95 ms | steady state: requests, p50 / p95 ms | loads (steady state) | steady batches: count, segments each, ms each | copies at end | peak Σ heaps MiB | peak RSS MiB | below budget | errors |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const b = r.steadyBatches;
    console.log(
      `| ${r.directions} | ${f(Math.min(...r.cold))} / ${f(Math.max(...r.cold))} | ${r.first.length}, ${f(quantile(r.first, 0.5))} / ${f(quantile(r.first, 0.95))} | ${r.steady.length}, ${f(quantile(r.steady, 0.5))} / ${f(quantile(r.steady, 0.95))} | ${r.loads} (${r.steadyLoads}) | ${b.count}, ${(b.segments / Math.max(1, b.count)).toFixed(1)}, ${f(b.ms / Math.max(1, b.count))} | ${r.copies} | ${f(r.peakHeaps / MiB)} | ${f(r.peakRss / MiB)} | ${r.peakRss <= BUDGET_MB * MiB ? 'yes' : 'NO'} | ${r.errors} |`,
    );
  }
  for (const r of rows) console.log(`${r.directions} directions, loads (model@worker ms, the last ${r.steadyLoads} in the steady state): ${r.loadList.join(', ')}`);
  const one = rows.find((r) => r.directions === 1);
  for (const r of one ? rows.filter((x) => x !== one) : []) {
    const ratio = (a: number[], b: number[]) => (quantile(a, 0.5) / quantile(b, 0.5)).toFixed(2);
    console.log(`${r.directions} directions against 1, p50: steady state ${ratio(r.steady, one!.steady)}×, whole stream (first visits included) ${ratio([...r.first, ...r.steady], [...one!.first, ...one!.steady])}×`);
  }
}

await main();
