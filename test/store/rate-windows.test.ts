// The memory rate counter (SQLite, one node): fixed windows per bucket and a bounded number of buckets.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryRateWindows } from '../../src/store/rate-windows.js';

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
