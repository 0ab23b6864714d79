// Issue 42: a real `tolk serve` stays at most 300 MiB resident once its first detection has loaded the detector's
// tables (375–430 MiB when eld's object literal was imported and the thread's heap kept its load-time growth).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../helpers/harness.js';
import { MIB, residentBytes } from '../helpers/peak-memory.js';
import { cliJson, startServe } from '../helpers/serve-process.js';
import { HUNG_TEST_MS } from '../helpers/wait.js';

const IDLE_BOUND = 300 * MIB;

/** RSS once it has stopped falling: no new low for `quietMs` (the thread's heap settles after its load), bounded. */
async function settledResident(pid: number, quietMs = 3000, timeoutMs = HUNG_TEST_MS): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let low = residentBytes(pid);
  let lowAt = Date.now();
  while (Date.now() - lowAt < quietMs && Date.now() < deadline) {
    await sleep(200);
    const now = residentBytes(pid);
    // a fall of under 1 MiB is noise, not settling
    if (now < low - MIB) lowAt = Date.now();
    low = Math.min(low, now);
  }
  return residentBytes(pid);
}

it('idle resident memory after the first detection stays within 300 MiB', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-detector-memory-'));
  const port = await freePort();
  const env = { ...process.env, TOLK_DATA_DIR: dataDir, TOLK_PORT: String(await freePort()), TOLK_FREE_PORT: String(port), TOLK_APERTIUM_PAIRS: 'en-es' };
  const served = await startServe(env);
  try {
    const key = (await cliJson(env, ['account', 'create', '--plan', 'free', '--features', 'detection'])).admin_key;
    const pid = served.child.pid!;
    const before = await settledResident(pid);
    const res = await fetch(`http://127.0.0.1:${port}/v3/detect/language`, {
      method: 'POST',
      headers: { authorization: `Service-Auth-Key ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: ['Los niños juegan en el jardín'] }),
    });
    assert.equal(res.status, 200);
    // the detector did load its tables and answer from them
    assert.deepEqual(((await res.json()) as { results: unknown[] }).results, [{ detected_language: 'es', detection_status: 'success' }]);
    const after = await settledResident(pid);
    const mib = (bytes: number) => `${Math.round(bytes / MIB)} MiB`;
    assert.ok(after <= IDLE_BOUND, `idle RSS after the first detection ${mib(after)} (before it ${mib(before)}), bound ${mib(IDLE_BOUND)}`);
    assert.equal(await served.stop('SIGTERM'), 0);
  } finally {
    if (served.child.exitCode === null) served.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
