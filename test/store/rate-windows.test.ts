// The rate counters of one node: in memory (one process: fixed windows per bucket, a bounded number of buckets) and
// in the SQLite file (several HTTP processes: one window per bucket whichever connection counts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryRateWindows, SqliteRateWindows } from '../../src/store/rate-windows.js';
import { Store } from '../../src/store/store.js';

describe('memory rate windows', () => {
  it('counts hits per bucket within a window and starts over when it ends', async () => {
    let now = 1_000;
    const windows = new MemoryRateWindows(() => now);
    assert.deepEqual(await windows.hit('a', 100), { count: 1, resetInMs: 100 });
    now += 40;
    assert.deepEqual(await windows.hit('a', 100), { count: 2, resetInMs: 60 });
    assert.deepEqual(await windows.hit('b', 100), { count: 1, resetInMs: 100 });
    now += 60;
    assert.deepEqual(await windows.hit('a', 100), { count: 1, resetInMs: 100 });
  });

  it('forgets the oldest windows beyond 10 000 buckets', async () => {
    const windows = new MemoryRateWindows(() => 0);
    await windows.hit('first', 60_000);
    await windows.hit('first', 60_000);
    for (let i = 0; i < 10_000; i++) await windows.hit(`k${i}`, 60_000);
    assert.equal((await windows.hit('first', 60_000)).count, 1);
    assert.equal((await windows.hit('k9999', 60_000)).count, 2);
  });
});

describe('SQLite rate windows', () => {
  it('two connections to one file (two processes) count one window per bucket, and start over when it ends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tolk-rate-'));
    const [a, b] = [await Store.open({ url: join(dir, 'tolk.db') }), await Store.open({ url: join(dir, 'tolk.db') })];
    try {
      let now = 1_000;
      const [wa, wb] = [new SqliteRateWindows(a.connection.sqlite!, () => now), new SqliteRateWindows(b.connection.sqlite!, () => now)];
      assert.deepEqual(wa.hit('key', 100), { count: 1, resetInMs: 100 });
      now += 40;
      assert.deepEqual(wb.hit('key', 100), { count: 2, resetInMs: 60 });
      assert.deepEqual(wa.hit('other', 100), { count: 1, resetInMs: 100 });
      assert.deepEqual(wa.hit('key', 100), { count: 3, resetInMs: 60 });
      now += 60;
      assert.deepEqual(wb.hit('key', 100), { count: 1, resetInMs: 100 });
      await Promise.all([wa.close(), wb.close()]);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
