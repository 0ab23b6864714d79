// A/B of Tolk's own work per /v2/translate request between this build and another built checkout (e.g. a git
// worktree of main): both apps are built in this one process (each from its own dist, with its own SQLite store and
// Apertium en-es pipeline) and driven by Fastify's inject() in alternating batches; what is compared is this
// process's CPU time per request (the Apertium stages run in child processes and are not counted), which load from
// other work on the machine moves far less than requests per second.
//
// Run: npm run build && node dist/bench/app-ab.js --baseline=/path/to/other/checkout [--rounds=8] [--batch=1500]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchArgs } from './args.js';

const args = benchArgs();
const BASELINE = args.get('baseline');
const ROUNDS = Number(args.get('rounds') ?? 8);
const BATCH = Number(args.get('batch') ?? 1500);
const CONCURRENCY = 8;
const TEXTS = ['The cat sleeps in the big red house.', 'My brother writes long letters.', 'Read the new book about the sea.', 'Good night.'];

interface Side {
  name: string;
  inject: (text: string) => Promise<number>;
  close(): Promise<void>;
}

/** Builds the app of the checkout at `root` (its compiled dist) with its own store and engine. */
async function side(name: string, root: string): Promise<Side> {
  const load = (file: string) => import(pathToFileURL(path.join(root, 'dist', 'src', file)).href);
  const [{ loadConfig }, { buildServices }, { buildApp }, { ApertiumEngine }] = await Promise.all([
    load('config.js'), load('services.js'), load('app.js'), load('engines/apertium/index.js'),
  ]);
  const dir = mkdtempSync(path.join(tmpdir(), 'tolk-ab-'));
  const config = loadConfig({ TOLK_DATA_DIR: dir, TOLK_RATE_LIMIT_PER_MINUTE: '100000000' });
  const services = await buildServices(config, { engineOverride: [new ApertiumEngine({ pairs: ['en-es'], maxPipelinesPerPair: 1 })] });
  const app = await buildApp({ config, services, logger: false });
  await app.ready();
  const { adminKey } = await services.accounts.createAccount({ plan: 'pro', features: [], characterLimit: null });
  const headers = { authorization: `Service-Auth-Key ${adminKey}`, host: new URL(config.baseUrl).host };
  return {
    name,
    inject: async (text) => (await app.inject({ method: 'POST', url: '/v2/translate', headers, payload: { text: [text], target_lang: 'ES', source_lang: 'EN' } })).statusCode,
    async close() {
      await app.close();
      await services.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** CPU microseconds of this process per request over one batch. */
async function batch(s: Side): Promise<number> {
  let next = 0;
  const start = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < BATCH) {
        const status = await s.inject(TEXTS[next++ % TEXTS.length]!);
        if (status !== 200) throw new Error(`${s.name}: HTTP ${status}`);
      }
    }),
  );
  const used = process.cpuUsage(start);
  return (used.user + used.system) / BATCH;
}

async function main(): Promise<void> {
  if (!BASELINE) throw new Error('--baseline=DIR (another built checkout) is required');
  const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const sides = [await side('this build', here), await side(`baseline ${BASELINE}`, path.resolve(BASELINE))];
  const samples = new Map<Side, number[]>(sides.map((s) => [s, []]));
  try {
    for (const s of sides) await batch(s); // warm-up: JIT, pipelines, SQLite pages
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of round % 2 === 0 ? sides : [...sides].reverse()) {
        const us = await batch(s);
        samples.get(s)!.push(us);
        console.error(`round ${round + 1} | ${s.name}: ${us.toFixed(1)} µs CPU per request`);
      }
    }
  } finally {
    for (const s of sides) await s.close();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`\n/v2/translate en→es, one sentence, inject(), ${CONCURRENCY} at once, ${BATCH} requests per batch, median of ${ROUNDS} alternating rounds\n`);
  console.log('| build | CPU per request (µs, this process) | rounds |');
  console.log('|---|---:|---|');
  for (const s of sides) console.log(`| ${s.name} | ${median(samples.get(s)!).toFixed(1)} | ${samples.get(s)!.map((x) => x.toFixed(0)).join(' ')} |`);
}

await main();
