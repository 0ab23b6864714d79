// Bergamot benchmark: the real-shaped generated model (Firefox "tiny" student layers and dimensions, real en/es
// vocabulary) through Tolk's /v2/translate against the same engine and workers called directly (the floor), at 1 and
// 8 concurrent one-sentence requests; memory per loaded model, cold-load time, worst event-loop delay.
//
// Run: npm run bench:bergamot [-- --duration=4000 --workers=N --concurrency=1,8 --rounds=3 --engine-only]
// (issue 46's scaling: --concurrency=64 --engine-only, once with --workers=1 and once with more)
import { rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdtempSync } from 'node:fs';
import { loadConfig } from '../src/config.js';
import { buildServices } from '../src/services.js';
import { buildApp } from '../src/app.js';
import { BergamotEngine, defaultMemoryBudgetMb } from '../src/engines/bergamot/index.js';
import { modelsDirWith } from '../test/helpers/bergamot-models.js';
import { benchArgs } from './args.js';
import { floresLines } from '../test/helpers/flores.js';

const args = benchArgs();
const DURATION_MS = Number(args.get('duration') ?? 4000);
const WORKERS = Number(args.get('workers') ?? availableParallelism());
const ROUNDS = Number(args.get('rounds') ?? 3);
const CONCURRENCY = (args.get('concurrency') ?? '1,8').split(',').map(Number);
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
const SENTENCES = (() => {
  try {
    // Sentences of 16–22 words (about 25 pieces): the generated model ends its translations after about 25 pieces,
    // so output lengths are those of a real model for these sentences.
    return floresLines('en').map((s) => s.trim()).filter((s) => words(s) >= 16 && words(s) <= 22).slice(0, 200);
  } catch {
    return ['The house is big.', 'Where is the train station?', 'I have two dogs and a cat.', 'The weather is nice today.'];
  }
})();

type Translate = (text: string) => Promise<void>;

async function measure(translate: Translate, concurrency: number): Promise<{ sentences: number; words: number; seconds: number; p50: number }> {
  let next = 0;
  let sentences = 0;
  let wordCount = 0;
  const latencies: number[] = [];
  const end = performance.now() + DURATION_MS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const s = SENTENCES[next++ % SENTENCES.length]!;
        const t = performance.now();
        await translate(s);
        latencies.push(performance.now() - t);
        sentences++;
        wordCount += words(s);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { sentences, words: wordCount, seconds: (performance.now() - started) / 1000, p50: latencies[latencies.length >> 1] ?? 0 };
}

function httpClient(port: number, key: string): Translate {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  return (text) =>
    new Promise((resolvePromise, reject) => {
      const body = JSON.stringify({ text: [text], source_lang: 'EN', target_lang: 'ES' });
      const req = request(
        { host: '127.0.0.1', port, path: '/v2/translate', method: 'POST', agent, headers: { authorization: `Service-Auth-Key ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolvePromise() : reject(new Error(`HTTP ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}

async function main(): Promise<void> {
  const modelsDir = await modelsDirWith(['en-es'], 'real');
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-bench-bergamot-'));
  // A request limit far above the 15 s default: 64 concurrent requests on a loaded 2-core machine measure latency, not timeouts.
  const engine = new BergamotEngine({ modelsDir, workers: WORKERS, rescanIntervalMs: 0, requestTimeoutMs: 300_000 });
  const config = loadConfig({ TOLK_DATA_DIR: dataDir, TOLK_PORT: '0', TOLK_FREE_PORT: '0', TOLK_RATE_LIMIT_PER_MINUTE: '100000000' });
  const services = await buildServices(config, { engineOverride: [engine] });
  const app = await buildApp({ config, services, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const account = await services.accounts.createAccount({ plan: 'pro', features: [], characterLimit: null });
  const key = (await services.accounts.createKey(account.account.id, { label: 'bench' })).secret;

  // Baseline: the same monitor while this process does nothing (what the machine's own load adds).
  const idle = monitorEventLoopDelay({ resolution: 10 });
  idle.enable();
  await new Promise((r) => setTimeout(r, 3000));
  idle.disable();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // Cold load: the first sentences load the model into one worker (bench/bergamot-memory.ts measures the policy).
  const rssBefore = process.memoryUsage().rss;
  const coldStart = performance.now();
  await Promise.all(Array.from({ length: WORKERS }, (_, i) => engine.translate({ source: 'en', target: 'es' }, [SENTENCES[i]!], {})));
  const coldMs = performance.now() - coldStart;
  const rssAfter = process.memoryUsage().rss;
  const loads = engine.loadStats();

  const direct: Translate = async (text) => {
    await engine.translate({ source: 'en', target: 'es' }, [text], {});
  };
  const http = httpClient(port, key);
  type Result = Awaited<ReturnType<typeof measure>>;
  const rows: { variant: string; concurrency: number; r: Result }[] = [];
  const variants = ([['engine (runtime in workers, no HTTP)', direct], ['tolk /v2/translate (HTTP)', http]] as const).slice(0, args.has('engine-only') ? 1 : 2);
  let mostCopies = 0;
  let peakRss = process.memoryUsage().rss;
  const copiesSampler = setInterval(() => {
    mostCopies = Math.max(mostCopies, engine.runtimeMemory().copies.get('en-es') ?? 0);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  for (const concurrency of CONCURRENCY) {
    for (const [, fn] of variants) await measure(fn, concurrency); // warm-up, same length
    // Rounds alternate the order of the variants; the median round (by words/s) is reported.
    const runs = new Map<string, Result[]>(variants.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, fn] of round % 2 ? [...variants].reverse() : variants) runs.get(name)!.push(await measure(fn, concurrency));
    }
    for (const [variant, results] of runs) {
      results.sort((a, b) => a.words / a.seconds - b.words / b.seconds);
      rows.push({ variant, concurrency, r: results[results.length >> 1]! });
    }
  }
  delay.disable();
  clearInterval(copiesSampler);

  const fmt = (n: number, d = 1) => n.toFixed(d);
  console.log(`\nBergamot, real-shaped en→es model (dim 256, 6 enc / 2 SSRU dec, FFN 1536, 32000 pieces), ${WORKERS} workers, ${availableParallelism()} cores, ${SENTENCES.length} FLORES sentences of 16–22 words, ${DURATION_MS} ms per cell, median of ${ROUNDS} rounds`);
  console.log('| variant | concurrent | sentences/s | words/s | words/s per core | p50 ms |');
  console.log('|---|---|---|---|---|---|');
  for (const { variant, concurrency, r } of rows) {
    console.log(`| ${variant} | ${concurrency} | ${fmt(r.sentences / r.seconds)} | ${fmt(r.words / r.seconds)} | ${fmt(r.words / r.seconds / availableParallelism())} | ${fmt(r.p50)} |`);
  }
  for (const c of args.has('engine-only') ? [] : CONCURRENCY) {
    const [e, h] = rows.filter((x) => x.concurrency === c).map((x) => x.r.words / x.r.seconds);
    console.log(`${c} concurrent: HTTP/engine = ${fmt((h! / e!) * 100, 0)} %`);
  }
  console.log(`copies of the model: at most ${mostCopies} during the run, ${engine.loadStats().length} loads`);
  // issue 46: resident memory under the engine's default budget (this bench leaves the budget at its default)
  console.log(`peak process RSS during the measured rounds: ${fmt(peakRss / 1048576, 0)} MiB; the engine's default memory budget here: ${defaultMemoryBudgetMb()} MiB`);
  const perModel = loads.length ? loads[0]!.bytes : 0;
  console.log(`memory per loaded model: WebAssembly heap of one worker grew ${fmt(perModel / 1048576)} MiB (reserved, grows in steps); process RSS grew ${fmt((rssAfter - rssBefore) / 1048576)} MiB for ${loads.length} worker copies`);
  console.log(`cold load (read files, hand to a worker, build the model): ${loads.map((l) => `${fmt(l.loadMs, 0)} ms`).join(', ')}; first translations done after ${fmt(coldMs, 0)} ms`);
  console.log(`worst event-loop delay over the run: ${fmt(delay.max / 1e6)} ms (p99 ${fmt(delay.percentile(99) / 1e6)} ms); idle baseline 3 s before: ${fmt(idle.max / 1e6)} ms (p99 ${fmt(idle.percentile(99) / 1e6)} ms)`);

  await app.close();
  await services.close();
  rmSync(modelsDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}

await main();
