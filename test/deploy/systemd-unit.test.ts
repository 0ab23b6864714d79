// deploy/tolk.service as systemd reads it: `systemd-analyze verify` finds nothing to say, the hardening the docs
// promise is there, and systemd's own exposure score rates it OK.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

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

it('runs as its own user, read-only but its data directory, settings from an environment file', () => {
  const settings = new Map<string, string[]>();
  for (const line of readFileSync(UNIT, 'utf8').split('\n')) {
    const m = /^(\w+)=(.*)$/.exec(line);
    if (m) settings.set(m[1]!, [...(settings.get(m[1]!) ?? []), m[2]!]);
  }
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
