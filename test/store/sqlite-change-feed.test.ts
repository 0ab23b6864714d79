// On SQLite another process writing the same file (the `tolk` command, another HTTP process of the node) is noticed by
// the server's change feed before a cache serves a row: a change another connection announced resets the caches; the
// server's own writes, other connections' unannounced writes (charges, rate-limit counts) and the checkpointer's
// PASSIVE checkpoints do not.
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { Store } from '../../src/store/store.js';
import type { Change } from '../../src/store/change-feed.js';
import { testStoreLocation } from '../helpers/harness.js';

const location = testStoreLocation('sqlite');
after(() => location.cleanup());

it('catchUp() resets the caches after another connection committed, and only then', async () => {
  const store = await Store.open({ url: location.url });
  const other = new Database(location.url);
  const cli = await Store.open({ url: location.url });
  try {
    const heard: Change[] = [];
    store.changes.subscribe((change) => heard.push(change));
    store.changes.catchUp();
    assert.deepEqual(heard, []);
    // the server's own write, announced as usual: heard once, no reset
    await store.connection.writeAndAnnounce({ kind: 'account', id: 'a1' }, (db) => db.insertInto('accounts').values({ id: 'a1', name: 'n', plan: 'pro', features: '[]', character_limit: null, created_at: 1 }).execute());
    store.changes.catchUp();
    assert.deepEqual(heard, [{ kind: 'account', id: 'a1' }]);
    // a checkpoint by another connection changes no row
    other.pragma('wal_checkpoint(PASSIVE)');
    store.changes.catchUp();
    assert.equal(heard.length, 1);
    // another process's write of rows nobody caches (a charge, a rate-limit count): no reset
    other.prepare("UPDATE accounts SET name = 'charged' WHERE id = 'a1'").run();
    store.changes.catchUp();
    assert.equal(heard.length, 1);
    // another process's announced change (the CLI revoking a key): every cache starts over, once
    await cli.connection.writeAndAnnounce({ kind: 'account', id: 'a1' }, (db) => db.updateTable('accounts').set({ name: 'renamed' }).where('id', '=', 'a1').execute());
    store.changes.catchUp();
    store.changes.catchUp();
    assert.deepEqual(heard.slice(1), [{ kind: 'reset' }]);
  } finally {
    other.close();
    await cli.close();
    await store.close();
  }
});
