// CPU per usage charge on SQLite by the number of charges sharing one commit (the group commit of
// src/store/charges.ts): the real migrated store and the real prepared charge, one unlimited account.
//
// Run: npm run build && node dist/bench/charge-commit.js [--charges=8000] [--rounds=3]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchArgs } from './args.js';
import { Store } from '../src/store/store.js';
import { AccountsService } from '../src/accounts/accounts-service.js';
import { prepareSqliteCharge, type ChargeLimits, type UsageCharge } from '../src/store/charges.js';

const args = benchArgs();
const CHARGES = Number(args.get('charges') ?? 8000);
const ROUNDS = Number(args.get('rounds') ?? 3);
const BATCHES = [1, 2, 4, 8];

const dir = mkdtempSync(path.join(tmpdir(), 'tolk-charge-'));
const store = await Store.open({ url: path.join(dir, 'tolk.db') });
try {
  const accounts = new AccountsService(store.repositories.accounts, store.changes);
  const { account, adminKey } = await accounts.createAccount({ plan: 'pro', characterLimit: null });
  const ctx = (await accounts.authenticate(adminKey))!;
  const run = prepareSqliteCharge(store.connection.sqlite!);
  const limits: ChargeLimits = { accountCharacterLimit: null, keyCharacterLimit: null, keySpeechToTextMsLimit: null };
  const periodStart = accounts.billingPeriod(ctx.account).start;
  const item = (): { charge: UsageCharge; limits: ChargeLimits } => ({
    charge: { accountId: account.id, keyId: ctx.key.id, product: 'text_translation', units: 36, reportingTag: null, at: Date.now(), periodStart },
    limits,
  });
  const results = new Map<number, number[]>(BATCHES.map((b) => [b, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of BATCHES) {
      const start = process.cpuUsage();
      for (let i = 0; i < CHARGES / size; i++) run(Array.from({ length: size }, item));
      const used = process.cpuUsage(start);
      results.get(size)!.push((used.user + used.system) / CHARGES);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`\nSQLite (WAL, synchronous=NORMAL), ${CHARGES} charges per cell, median of ${ROUNDS} rounds\n`);
  console.log('| charges per commit | CPU per charge (µs) | rounds |');
  console.log('|---:|---:|---|');
  for (const [size, us] of results) console.log(`| ${size} | ${median(us).toFixed(1)} | ${us.map((x) => x.toFixed(1)).join(' ')} |`);
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
