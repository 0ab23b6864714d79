// The daily rollups behind analytics agree with the ledger: random charges, random ranges (partial days included),
// compared with sums computed from usage_events directly; and the migration backfills rollups of an existing ledger.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import SqliteDatabase from 'better-sqlite3';
import { Store } from '../../src/store/store.js';
import type { UsageSumRow } from '../../src/store/repositories/admin-repository.js';
import { migrationsFor } from '../../src/store/migrations/index.js';
import type { UsageProduct } from '../../src/store/schema.js';

const dir = mkdtempSync(join(tmpdir(), 'tolk-rollups-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const PRODUCTS: UsageProduct[] = ['text_translation', 'document_translation', 'text_improvement', 'speech_to_text'];

/** A small deterministic PRNG so failures reproduce. */
function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

interface Ev {
  account: string;
  key: string;
  tag: string | null;
  product: UsageProduct;
  units: number;
  at: number;
}

const COLUMN: Record<UsageProduct, 'text' | 'document' | 'improvement' | 'speechMs'> = {
  text_translation: 'text',
  document_translation: 'document',
  text_improvement: 'improvement',
  speech_to_text: 'speechMs',
};

const flat = (rows: UsageSumRow[]) =>
  rows.map((r) => `${r.subject}|${r.day ?? ''}|${r.text}|${r.document}|${r.improvement}|${r.speechMs}`).sort();

function bruteForce(events: Ev[], account: string, dim: 'key' | 'tag', from: number, to: number, byDay: boolean): string[] {
  const sums = new Map<string, UsageSumRow>();
  for (const e of events) {
    if (e.account !== account || e.at < from || e.at >= to) continue;
    const subject = dim === 'key' ? e.key : e.tag;
    if (subject === null) continue;
    const day = byDay ? Math.floor(e.at / DAY) : null;
    const id = `${subject}|${day}`;
    const row = sums.get(id) ?? { subject, day, text: 0, document: 0, improvement: 0, speechMs: 0 };
    row[COLUMN[e.product]] += e.units;
    sums.set(id, row);
  }
  return flat([...sums.values()]);
}

function randomEvents(n: number, seed: number): Ev[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => ({
    account: r() < 0.8 ? 'acct-a' : 'acct-b',
    key: `key-${Math.floor(r() * 3)}`,
    tag: r() < 0.3 ? null : `tag-${Math.floor(r() * 4)}`,
    product: PRODUCTS[Math.floor(r() * 4)]!,
    units: 1 + Math.floor(r() * 500),
    at: T0 + Math.floor(r() * 20 * DAY),
  }));
}

describe('usage rollups', () => {
  it('match the ledger for random ranges, grouped by key or tag, with and without days', async () => {
    const store = await Store.open({ url: join(dir, 'a.db') });
    try {
      const events = randomEvents(600, 7);
      for (const e of events) {
        const ok = await store.repositories.usage.charge(
          { accountId: e.account, keyId: e.key, product: e.product, units: e.units, reportingTag: e.tag, at: e.at, periodStart: T0 },
          { accountCharacterLimit: null, keyCharacterLimit: null, keySpeechToTextMsLimit: null },
        );
        assert.equal(ok.ok, true);
      }
      const repo = store.repositories.admin;
      const r = rng(99);
      for (let i = 0; i < 40; i++) {
        const a = T0 - DAY + Math.floor(r() * 22 * DAY);
        const b = T0 - DAY + Math.floor(r() * 22 * DAY);
        // Every fourth range on day boundaries, the rest at arbitrary seconds.
        const snap = (t: number) => (i % 4 === 0 ? Math.floor(t / DAY) * DAY : Math.floor(t / 1000) * 1000);
        const [from, to] = [snap(Math.min(a, b)), snap(Math.max(a, b)) + 1000];
        for (const dim of ['key', 'tag'] as const) {
          for (const byDay of [false, true]) {
            assert.deepEqual(
              flat(await repo.usageSums('acct-a', dim, from, to, byDay)),
              bruteForce(events, 'acct-a', dim, from, to, byDay),
              `${dim} ${byDay} ${new Date(from).toISOString()} → ${new Date(to).toISOString()}`,
            );
          }
        }
      }
    } finally {
      await store.close();
    }
  });

  it('the migration backfills rollups from a ledger written before it', async () => {
    const path = join(dir, 'old.db');
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SqliteDatabase(path) }) });
    const first = migrationsFor('sqlite')['0001_accounts_keys_usage']!;
    const { error } = await new Migrator({ db, provider: { getMigrations: async () => ({ '0001_accounts_keys_usage': first }) } }).migrateToLatest();
    assert.equal(error, undefined);
    const events = randomEvents(200, 3);
    await db
      .insertInto('usage_events')
      .values(events.map((e) => ({ account_id: e.account, key_id: e.key, product: e.product, units: e.units, reporting_tag: e.tag, created_at: e.at })))
      .execute();
    await db.destroy();

    const store = await Store.open({ url: path });
    try {
      const repo = store.repositories.admin;
      const [from, to] = [T0, T0 + 21 * DAY];
      for (const dim of ['key', 'tag'] as const) {
        assert.deepEqual(flat(await repo.usageSums('acct-a', dim, from, to, true)), bruteForce(events, 'acct-a', dim, from, to, true));
      }
      const rollupRows = await store.db.selectFrom('usage_daily_keys').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      assert.ok(Number(rollupRows.n) > 0);
    } finally {
      await store.close();
    }
  });
});
