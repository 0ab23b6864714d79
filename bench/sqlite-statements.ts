// CPU of Kysely queries on SQLite with the store's kept statements (src/store/sqlite-statements.ts) against Kysely's
// own driver, which prepares each query's SQL anew: the two queries of GET /v2/usage on the real migrated store, over
// the same better-sqlite3 connection, in alternating rounds.
//
// Run: npm run build && node dist/bench/sqlite-statements.js [--calls=5000] [--rounds=5]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import { benchArgs } from './args.js';
import { Store } from '../src/store/store.js';
import type { StoreConnection } from '../src/store/connection.js';
import type { Database } from '../src/store/schema.js';
import { AccountsService } from '../src/accounts/accounts-service.js';
import { UsageRepository } from '../src/store/repositories/usage-repository.js';

const args = benchArgs();
const CALLS = Number(args.get('calls') ?? 5000);
const ROUNDS = Number(args.get('rounds') ?? 5);

const dir = mkdtempSync(path.join(tmpdir(), 'tolk-statements-'));
const store = await Store.open({ url: path.join(dir, 'tolk.db') });
try {
  const accounts = new AccountsService(store.repositories.accounts, store.changes);
  const { account, adminKey } = await accounts.createAccount({ plan: 'pro', characterLimit: null });
  const ctx = (await accounts.authenticate(adminKey))!;
  const period = accounts.billingPeriod(ctx.account).start;
  const limits = { accountCharacterLimit: null, keyCharacterLimit: null, keySpeechToTextMsLimit: null };
  for (let i = 0; i < 1000; i++) {
    await store.repositories.usage.charge(
      { accountId: account.id, keyId: ctx.key.id, product: i % 3 ? 'text_translation' : 'document_translation', units: 40, reportingTag: null, at: Date.now(), periodStart: period },
      limits,
    );
  }
  const kept = store.repositories.usage;
  // Kysely's own driver over the same connection (the repository only reads `db` for these queries)
  const plainDb = new Kysely<Database>({ dialect: new SqliteDialect({ database: store.connection.sqlite! }) });
  const plain = new UsageRepository({ db: plainDb } as StoreConnection);
  const usageRequest = async (repo: UsageRepository) => {
    await repo.usageTotals(account.id, period);
    await repo.usageTotals(ctx.key.id, period);
    await repo.usageByProduct(account.id, period);
    await repo.usageByProduct(account.id, period, ctx.key.id);
  };
  const sides = [
    { name: 'Kysely, statements kept (Tolk)', repo: kept, us: [] as number[] },
    { name: "Kysely's own driver (baseline)", repo: plain, us: [] as number[] },
  ];
  for (const side of sides) for (let i = 0; i < 500; i++) await usageRequest(side.repo);
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 ? [...sides].reverse() : sides) {
      const start = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) await usageRequest(side.repo);
      const used = process.cpuUsage(start);
      side.us.push((used.user + used.system) / CALLS);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`\nThe four queries of GET /v2/usage (two period totals, two per-product sums over 1,000 ledger rows), ${CALLS} times per round, median of ${ROUNDS}\n`);
  console.log('| queries through | CPU µs per four queries | rounds |');
  console.log('|---|---:|---|');
  for (const side of sides) console.log(`| ${side.name} | ${median(side.us).toFixed(1)} | ${side.us.map((x) => x.toFixed(1)).join(' ')} |`);
  await plainDb.destroy().catch(() => undefined);
} finally {
  await store.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
