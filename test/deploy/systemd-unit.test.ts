// deploy/tolk.service as systemd reads it: `systemd-analyze verify` finds nothing to say, the hardening the docs
// promise is there, and systemd's own exposure score rates it OK. A stop signals the server alone (KillMode=mixed)
// and waits longer than its drain: that holds because the server, signalled alone, stops its own children.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import { freePort } from '../helpers/harness.js';
import { cliJson, startServe } from '../helpers/serve-process.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);
const UNIT = fileURLToPath(new URL('../../../deploy/tolk.service', import.meta.url));
const ANALYZE = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p));
const skip = ANALYZE ? false : 'systemd-analyze is not installed (Debian package systemd)';

/** The unit as shipped; where node is not /usr/bin/node (a node from nvm, say), a copy naming this machine's node. */
function unitForThisMachine(): { path: string; cleanup: () => void } {
  if (existsSync('/usr/bin/node')) return { path: UNIT, cleanup: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'tolk-unit-'));
  const path = join(dir, 'tolk.service');
  writeFileSync(path, readFileSync(UNIT, 'utf8').replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `));
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

it('systemd-analyze verify accepts the unit without a warning', { skip }, async () => {
  const unit = unitForThisMachine();
  try {
    const { stdout, stderr } = await run(ANALYZE!, ['verify', unit.path]);
    assert.equal(stdout + stderr, '');
  } finally {
    unit.cleanup();
  }
});

/** The unit's settings: every value of each key, in order. */
function unitSettings(): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  for (const line of readFileSync(UNIT, 'utf8').split('\n')) {
    const m = /^(\w+)=(.*)$/.exec(line);
    if (m) settings.set(m[1]!, [...(settings.get(m[1]!) ?? []), m[2]!]);
  }
  return settings;
}

it('runs as its own user, read-only but its data directory, settings from an environment file', () => {
  const settings = unitSettings();
  const one = (key: string) => settings.get(key)?.[0];
  assert.equal(one('User'), 'tolk');
  assert.equal(one('ProtectSystem'), 'strict');
  assert.equal(one('ProtectHome'), 'true');
  assert.equal(one('NoNewPrivileges'), 'true');
  assert.equal(one('StateDirectory'), 'tolk');
  assert.match(one('Environment')!, /TOLK_DATA_DIR=\/var\/lib\/tolk/);
  assert.equal(one('EnvironmentFile'), '-/etc/tolk/tolk.env');
  assert.match(one('ExecStart')!, /dist\/src\/cli\.js serve$/);
  assert.equal(settings.has('MemoryDenyWriteExecute'), false, 'V8 needs executable memory');
});

it("systemd's exposure score rates the unit OK or better", { skip }, async () => {
  const unit = unitForThisMachine();
  try {
    const { stdout } = await run(ANALYZE!, ['security', '--offline=true', '--no-pager', unit.path]);
    const score = /Overall exposure level for tolk\.service: ([\d.]+)/.exec(stdout);
    assert.ok(score, stdout.slice(-500));
    assert.ok(Number(score[1]) <= 2, `exposure ${score[1]}`);
  } finally {
    unit.cleanup();
  }
});

it('a stop signals the server alone and waits longer than its drain before killing anything', () => {
  const settings = unitSettings();
  const one = (key: string) => settings.get(key)?.[0];
  assert.equal(one('KillMode'), 'mixed', 'SIGTERM to the main process only; the Apertium pipelines are stopped by the server');
  assert.equal(one('KillSignal'), 'SIGTERM');
  assert.equal(settings.has('SendSIGKILL'), false, 'what is left after the stop is killed');
  const drainS = loadConfig({}).shutdownTimeoutMs / 1000;
  assert.ok(Number(one('TimeoutStopSec')) >= drainS + 15, `TimeoutStopSec=${one('TimeoutStopSec')} leaves the ${drainS} s drain and the engines' close their time`);
});

/** Every process descended from `pid`, read from /proc (Linux). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // the field after the parenthesised command name: state, then the parent's pid
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const visit = (p: number) => {
    for (const [child, parent] of parents) if (parent === p) found.push(child), visit(child);
  };
  visit(pid);
  return found;
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));

it('the server, sent SIGTERM alone as KillMode=mixed does, stops its Apertium pipelines itself and exits 0', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-stop-'));
  const port = await freePort();
  const env = { ...process.env, TOLK_DATA_DIR: dataDir, TOLK_PORT: String(port), TOLK_FREE_PORT: String(port), TOLK_APERTIUM_PAIRS: 'en-es', TOLK_BERGAMOT_WORKERS: '0' };
  const server = await startServe(env);
  try {
    const account = await cliJson(env, ['account', 'create', '--plan', 'pro']);
    const res = await fetch(`http://127.0.0.1:${port}/v2/translate`, {
      method: 'POST',
      headers: { authorization: `Service-Auth-Key ${account.admin_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: ['The house is big.'], source_lang: 'EN', target_lang: 'ES' }),
    });
    assert.equal(res.status, 200, await res.text());
    const children = await waitFor('the pipeline processes of en-es', () => {
      const found = descendants(server.child.pid!);
      return found.length > 0 && found;
    });
    assert.equal(await server.stop('SIGTERM'), 0);
    // nothing left for systemd's final SIGKILL to cut short
    assert.deepEqual(children.filter(alive), []);
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
