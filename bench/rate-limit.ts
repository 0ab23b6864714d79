// Per-request cost of the rate-limit counter: memory (one node; the baseline, as before issue 25) against the two
// counters a cluster shares, the PostgreSQL database and Redis. One hit per request, measured one at a time (the
// latency a request pays) and with many in flight (the rate one node can count).
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { benchArgs } from './args.js';
import { Store } from '../src/store/store.js';
import { DatabaseRateWindows, MemoryRateWindows, RedisRateWindows, type RateWindows } from '../src/store/rate-windows.js';
import { TEST_POSTGRES_URL } from '../test/helpers/harness.js';
import { TEST_REDIS_URL, redisUnavailable } from '../test/helpers/cluster.js';

const args = benchArgs();
const hits = Number(args.get('hits') ?? 5000);
const concurrency = Number(args.get('concurrency') ?? 16);
const rounds = Number(args.get('rounds') ?? 3);
/** Distinct keys hit in turn, as many clients would. */
const BUCKETS = 100;

async function sequential(windows: RateWindows): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < hits; i++) await windows.hit(`k${i % BUCKETS}`, 60_000);
  return ((performance.now() - start) * 1000) / hits;
}

async function concurrent(windows: RateWindows): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < hits) await windows.hit(`k${next++ % BUCKETS}`, 60_000);
    }),
  );
  return hits / ((performance.now() - start) / 1000);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(name: string, windows: RateWindows): Promise<void> {
  await sequential(windows); // warm-up: connections, prepared plans, JIT
  const latency: number[] = [];
  const rate: number[] = [];
  for (let r = 0; r < rounds; r++) {
    latency.push(await sequential(windows));
    rate.push(await concurrent(windows));
  }
  console.log(`| ${name} | ${median(latency).toFixed(1)} | ${Math.round(median(rate))} |`);
}

console.log(`${hits} hits over ${BUCKETS} keys, ${concurrency} in flight for the concurrent column, median of ${rounds} rounds\n`);
console.log('| counter | µs per hit, one at a time | hits/s, concurrent |');
console.log('|---|---|---|');
await measure('memory (baseline)', new MemoryRateWindows());

const schema = `bench_${randomBytes(4).toString('hex')}`;
for (const logged of [false, true]) {
  const store = await Store.open({ url: TEST_POSTGRES_URL, pgSchema: `${schema}${logged ? '_logged' : ''}` });
  try {
    // the table as an ordinary (WAL-logged) one: what the unlogged table saves
    if (logged) await sql`ALTER TABLE rate_limit_windows SET LOGGED`.execute(store.db);
    const database = new DatabaseRateWindows(store.db);
    await measure(logged ? 'PostgreSQL, the table WAL-logged' : 'PostgreSQL database (unlogged table)', database);
    await database.close();
  } finally {
    await store.close({ dropSchema: true });
  }
}

const skip = await redisUnavailable();
if (skip) console.log(`| Redis | skipped: ${skip} | |`);
else {
  const redis = await RedisRateWindows.connect(TEST_REDIS_URL, { prefix: `tolk:bench:${schema}:` });
  try {
    await measure('Redis', redis);
  } finally {
    await redis.close();
  }
}
