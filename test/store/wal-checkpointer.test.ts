// The server's SQLite store checkpoints its WAL from a worker thread: commits only append to the WAL, the worker
// copies it into the database file, and closing the store leaves everything in the file.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { Store } from '../../src/store/store.js';
import { AccountsService } from '../../src/accounts/accounts-service.js';
import { UsageService } from '../../src/accounts/usage-service.js';
import { waitFor } from '../helpers/wait.js';

async function chargeMany(store: Store, n: number): Promise<string> {
  const accounts = new AccountsService(store.repositories.accounts, store.changes);
  const usage = new UsageService(store.repositories.usage, accounts);
  const { account } = await accounts.createAccount({ plan: 'pro', characterLimit: null });
  const dev = await accounts.createKey(account.id);
  const ctx = (await accounts.authenticate(dev.secret))!;
  for (let i = 0; i < n; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, k) => usage.charge(ctx, 'text_translation', 10, `tag-${(i + k) % 7}`)));
  }
  return account.id;
}

describe('SQLite WAL checkpoints in the background', () => {
  const withFile = async (body: (file: string) => Promise<void>) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tolk-wal-'));
    try {
      await body(path.join(dir, 'tolk.db'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('commits of the server connection only append to the WAL; closing leaves everything in the file', () =>
    withFile(async (file) => {
      // a checkpointer that never gets to run during the test: whatever reaches the file came from a commit
      const store = await Store.open({ url: file, backgroundCheckpoints: { intervalMs: 3_600_000 } });
      await chargeMany(store, 100);
      const before = statSync(file).size;
      const accountId = await chargeMany(store, 3000);
      assert.equal(statSync(file).size, before, 'a commit checkpointed on the server connection');
      assert.ok(statSync(`${file}-wal`).size > 0);
      await store.close();
      assert.equal(existsSync(`${file}-wal`), false, 'WAL left behind after close');
      const db = new SqliteDatabase(file, { readonly: true });
      try {
        const row = db.prepare('select count(*) as n, sum(units) as units from usage_events where account_id = ?').get(accountId) as { n: number; units: number };
        assert.deepEqual(row, { n: 3000, units: 30000 });
      } finally {
        db.close();
      }
    }));

  it('the worker copies committed pages into the database file while the store runs', () =>
    withFile(async (file) => {
      const store = await Store.open({ url: file, backgroundCheckpoints: true });
      try {
        const before = statSync(file).size;
        await chargeMany(store, 3000);
        await waitFor('a background checkpoint to grow the database file', () => statSync(file).size > before);
      } finally {
        await store.close();
      }
    }));

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
