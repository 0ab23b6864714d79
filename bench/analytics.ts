// Why: shows that admin analytics over a 1,000,000-row usage ledger answers in < 200 ms on SQLite and PostgreSQL
// (issue 5), comparing the daily rollups (kept by a trigger) with the baseline of grouping the ledger itself through
// its original (account_id, created_at) index, and measuring what the trigger costs each charge.
//
// Usage: npm run bench:analytics [-- --rows=1000000 --only=sqlite,postgres --runs=7]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { Store } from '../src/store/store.js';
import { AccountsService, type Account } from '../src/accounts/accounts-service.js';
import { AGGREGATE_BY_VALUES, AnalyticsService, GROUP_BY_VALUES } from '../src/admin/analytics-service.js';
import { parseAnalyticsRange, parseChoice, parsePage } from '../src/http/routes/analytics-params.js';
import { DAY_MS } from '../src/store/schema.js';
import { benchArgs } from './args.js';

const args = benchArgs();
const ROWS = Number(args.get('rows') ?? 1_000_000);
const RUNS = Number(args.get('runs') ?? 7);
const ONLY = (args.get('only') ?? 'sqlite,postgres').split(',');
const PG_URL = process.env.TOLK_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const KEYS = 25;
const TAGS = 40;
/** The ledger spans one year before this instant; every query asks for the whole span (366 days). */
const END = Date.UTC(2026, 0, 1);
const START = END - 365 * DAY_MS;

interface Shape {
  name: string;
  query: Record<string, string>;
  tags?: boolean;
}

const FULL = { start_date: iso(START - DAY_MS), end_date: iso(END) };
const SHAPES: Shape[] = [
  { name: 'analytics (no grouping)', query: { ...FULL } },
  { name: 'analytics group_by=key', query: { ...FULL, group_by: 'key' } },
  { name: 'analytics group_by=key_and_day', query: { ...FULL, group_by: 'key_and_day' } },
  {
    name: 'analytics key_and_day, partial-day edges',
    query: { start_date: `${iso(START)}T12:34:56`, end_date: `${iso(END - DAY_MS)}T08:00:00`, group_by: 'key_and_day' },
  },
  { name: 'custom-tags aggregate_by=period', query: { ...FULL }, tags: true },
  { name: 'custom-tags aggregate_by=day (page 1)', query: { ...FULL, aggregate_by: 'day' }, tags: true },
];

function iso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const t = performance.now();
  const result = await fn();
  return { ms: performance.now() - t, result };
}

async function median(fn: () => Promise<unknown>): Promise<{ p50: number; max: number }> {
  await fn(); // warm-up: caches, plans
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push((await time(fn)).ms);
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)]!, max: times[times.length - 1]! };
}

/** Bulk-loads the ledger in SQL (the rollup trigger fires for every row, as it does in production). */
async function load(store: Store, account: Account, keyIds: string[]): Promise<number> {
  const keys = sql.join(keyIds.map((id, i) => sql`(${sql.lit(i)}, ${sql.lit(id)})`));
  const series =
    store.dialect === 'postgres'
      ? sql`select i::bigint from generate_series(0, ${sql.lit(ROWS - 1)}) as g(i)`
      : sql`select 0 as i union all select i + 1 from s where i < ${sql.lit(ROWS - 1)}`;
  const spacing = Math.floor((END - START) / ROWS);
  const products = `case (i / ${KEYS}) % 4 when 0 then 'text_translation' when 1 then 'document_translation' when 2 then 'text_improvement' else 'speech_to_text' end`;
  const tag = `'tag-' || ((i / 100) % ${TAGS})`;
  const { ms } = await time(() =>
    sql`with recursive s(i) as (${series}), k(idx, id) as (values ${keys})
      insert into usage_events (account_id, key_id, product, units, reporting_tag, created_at)
      select ${account.id}, k.id, ${sql.raw(products)}, 1 + (i * 37) % 300,
        case when (i / 7) % 3 = 0 then null else ${sql.raw(tag)} end, ${sql.lit(START)} + i * ${sql.lit(spacing)}
      from s join k on k.idx = i % ${sql.lit(KEYS)}`.execute(store.db),
  );
  // The steady state autovacuum reaches on PostgreSQL (visibility map for index-only scans, statistics).
  await sql.raw(store.dialect === 'postgres' ? 'vacuum analyze' : 'analyze').execute(store.db);
  return ms;
}

/** Baseline: the same sums grouped straight from the ledger, through the original (account_id, created_at) index. */
async function baseline(store: Store, accountId: string, shape: Shape): Promise<unknown> {
  const from = Date.parse(`${shape.query.start_date}${shape.query.start_date!.length === 10 ? 'T00:00:00' : ''}Z`);
  const to = Date.parse(`${shape.query.end_date}${shape.query.end_date!.length === 10 ? 'T00:00:00' : ''}Z`);
  const byDay = shape.query.group_by === 'key_and_day' || shape.query.aggregate_by === 'day';
  const subject = shape.tags ? 'reporting_tag' : 'key_id';
  const grouped = shape.tags || shape.query.group_by ? `${subject}, ` : '';
  const day = byDay ? `created_at / ${DAY_MS}, ` : '';
  return sql`select ${sql.raw(grouped)}${sql.raw(day)}product, sum(units) as units from usage_events
    where account_id = ${accountId} and created_at >= ${from} and created_at < ${to}
    ${sql.raw(shape.tags ? 'and reporting_tag is not null' : '')}
    group by ${sql.raw(grouped)}${sql.raw(day)}product`.execute(store.db);
}

/** Cost of the trigger per charge: sequential charges with and without it, alternating, after a warm-up. */
async function chargeCost(store: Store, accountId: string, keyId: string): Promise<{ withTrigger: number; without: number }> {
  const N = 1_000;
  let at = END;
  const run = async (n: number) =>
    (
      await time(async () => {
        for (let i = 0; i < n; i++) {
          await store.repositories.usage.charge(
            { accountId, keyId, product: 'text_translation', units: 10, reportingTag: i % 2 ? 'bench' : null, at: at++, periodStart: END },
            { accountCharacterLimit: null, keyCharacterLimit: null, keySpeechToTextMsLimit: null },
          );
        }
      })
    ).ms / n;
  const create =
    store.dialect === 'postgres'
      ? sql`create trigger usage_events_rollup after insert on usage_events for each row execute function usage_events_rollup()`
      : sql.raw(
          (await sql<{ sql: string }>`select sql from sqlite_master where type = 'trigger' and name = 'usage_events_rollup'`.execute(store.db))
            .rows[0]!.sql,
        );
  const drop = sql`drop trigger usage_events_rollup${sql.raw(store.dialect === 'postgres' ? ' on usage_events' : '')}`;
  await run(200);
  const withTimes: number[] = [];
  const withoutTimes: number[] = [];
  for (let round = 0; round < 2; round++) {
    withTimes.push(await run(N));
    await drop.execute(store.db);
    withoutTimes.push(await run(N));
    await create.execute(store.db);
  }
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { withTrigger: avg(withTimes), without: avg(withoutTimes) };
}

async function benchDatabase(name: 'sqlite' | 'postgres'): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tolk-bench-analytics-'));
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const store = await Store.open(name === 'sqlite' ? { url: join(dir, 'bench.db') } : { url: PG_URL, pgSchema: schema });
  try {
    const accounts = new AccountsService(store.repositories.accounts, store.changes, { now: () => START - 2 * DAY_MS });
    const { account } = await accounts.createAccount({ plan: 'pro' });
    const keyIds: string[] = [];
    for (let i = 0; i < KEYS; i++) keyIds.push((await accounts.createKey(account.id, { label: `key ${i}` })).key.id);
    const loadMs = await load(store, account, keyIds);
    const repo = store.repositories.admin;
    const analytics = new AnalyticsService(store.repositories.accounts, repo);
    const rollupRows = await store.db.selectFrom('usage_daily_keys').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const tagRows = await store.db.selectFrom('usage_daily_tags').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    console.log(
      `\n## ${name}: ${ROWS.toLocaleString('en')} ledger rows loaded in ${(loadMs / 1000).toFixed(1)} s (trigger on); ` +
        `rollups: ${rollupRows.n} key-day rows, ${tagRows.n} tag-day rows; median of ${RUNS} runs after one warm-up\n`,
    );
    console.log('| query (366-day range) | rollups p50 ms | rollups max ms | baseline: ledger GROUP BY p50 ms | speed-up |');
    console.log('|---|---:|---:|---:|---:|');
    for (const shape of SHAPES) {
      // as the route does: parse the query, then the report
      const run = () =>
        shape.tags
          ? analytics.customTagReport(account, parseAnalyticsRange(shape.query), parseChoice(shape.query, 'aggregate_by', AGGREGATE_BY_VALUES) || 'period', parsePage(shape.query))
          : analytics.usageReport(account, parseAnalyticsRange(shape.query), parseChoice(shape.query, 'group_by', GROUP_BY_VALUES));
      const fast = await median(run);
      const base = await median(() => baseline(store, account.id, shape));
      console.log(
        `| ${shape.name} | ${fast.p50.toFixed(1)} | ${fast.max.toFixed(1)} | ${base.p50.toFixed(1)} | ${(base.p50 / fast.p50).toFixed(0)}× |`,
      );
    }
    // The two must agree: the total of the rollup path equals the ledger's sum.
    const total = (await analytics.usageReport(account, parseAnalyticsRange(SHAPES[0]!.query), '')).total;
    const report = { total_usage: { total_characters: total.textTranslationCharacters + total.documentTranslationCharacters + total.textImprovementCharacters } };
    const ledger = await sql<{ n: number | string }>`select sum(units) as n from usage_events where product <> 'speech_to_text'`.execute(store.db);
    console.log(`\nconsistency: rollup total ${report.total_usage.total_characters} = ledger total ${Number(ledger.rows[0]!.n)}`);
    const cost = await chargeCost(store, account.id, keyIds[0]!);
    console.log(
      `charge() per call, sequential, 2×${1000} alternating: ${cost.withTrigger.toFixed(3)} ms with the rollup trigger, ${cost.without.toFixed(3)} ms without`,
    );
  } finally {
    await store.close({ dropSchema: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const db of ['sqlite', 'postgres'] as const) if (ONLY.includes(db)) await benchDatabase(db);
