// The server's SQLite store checkpoints its WAL from a worker thread: commits only append to the WAL, the worker
// copies it into the database file, and closing the store leaves everything in the file.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { Store } from '../../src/store/store.js';
import { AccountsService } from '../../src/accounts/accounts-service.js';
import { UsageService } from '../../src/accounts/usage-service.js';
import { WAL_CHECKPOINT_INTERVAL_MS } from '../../src/store/wal-checkpointer.js';

async function chargeMany(store: Store, n: number): Promise<string> {
  const accounts = new AccountsService(store);
  const usage = new UsageService(store, accounts);
  const { account } = await accounts.createAccount({ plan: 'pro', characterLimit: null });
  const dev = await accounts.createKey(account.id);
  const ctx = (await accounts.authenticate(dev.secret))!;
  for (let i = 0; i < n; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, k) => usage.charge(ctx, 'text_translation', 10, `tag-${(i + k) % 7}`)));
  }
  return account.id;
}

describe('SQLite WAL checkpoints in the background', () => {
  it('copies committed pages into the database file while the store runs, and keeps them on close', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tolk-wal-'));
    try {
      const file = path.join(dir, 'tolk.db');
      const store = await Store.open({ url: file, backgroundCheckpoints: true });
      // commits of this connection no longer checkpoint on their own
      await chargeMany(store, 100);
      const before = statSync(file).size;
      const accountId = await chargeMany(store, 3000);
      assert.equal(statSync(file).size, before, 'a commit checkpointed on the server connection');
      await sleep(WAL_CHECKPOINT_INTERVAL_MS * 3);
      assert.ok(statSync(file).size > before, `database file did not grow (${before} bytes): no checkpoint ran`);
      await store.close();
      assert.equal(existsSync(`${file}-wal`), false, 'WAL left behind after close');
      const db = new SqliteDatabase(file, { readonly: true });
      try {
        const row = db.prepare('select count(*) as n, sum(units) as units from usage_events where account_id = ?').get(accountId) as { n: number; units: number };
        assert.deepEqual(row, { n: 3000, units: 30000 });
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves short-lived stores (the CLI) with SQLite’s own checkpoints', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tolk-wal-'));
    try {
      const store = await Store.open({ url: path.join(dir, 'tolk.db') });
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
      assert.equal(rows[0]?.wal_autocheckpoint, 1000);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
