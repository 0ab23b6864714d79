// deploy/tolk.logrotate on a log that a process keeps open for appending, as the unit's StandardOutput=append: (or a
// shell's >>) leaves Tolk's stdout: logrotate's copytruncate moves what was written into the rotated file, and the
// process's next lines start the emptied file (no hole of zero bytes where the old end was, nothing reopened).
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../helpers/wait.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const LOGROTATE = ['logrotate', '/usr/sbin/logrotate'].find((p) => {
  const probe = spawnSync(p, ['--version'], { timeout: 10_000 });
  return !probe.error && probe.status === 0;
});
const dir = mkdtempSync(join(tmpdir(), 'tolk-logrotate-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('copytruncate rotates a log held open for appending: old lines in tolk.log.1, new ones from the start of tolk.log', { skip: !LOGROTATE && 'logrotate is not installed (Debian package logrotate)' }, async () => {
  const log = join(dir, 'tolk.log');
  const shipped = readFileSync(join(ROOT, 'deploy/tolk.logrotate'), 'utf8');
  assert.match(shipped, /^\/var\/log\/tolk\/tolk\.log \{/m);
  assert.match(shipped, /^\s+copytruncate$/m);
  const config = join(dir, 'tolk.logrotate');
  writeFileSync(config, shipped.replace('/var/log/tolk/tolk.log', log), { mode: 0o644 });
  // a writer like the server: one JSON line per event (a byte on its stdin), to a stdout opened for appending, never reopened
  const fd = openSync(log, 'a');
  const writer = spawn(process.execPath, ['-e', 'let n = 0; process.stdin.on("data", (d) => { for (const _ of d) process.stdout.write(JSON.stringify({ n: n++, msg: "x".repeat(200) }) + "\\n"); });'], {
    stdio: ['pipe', fd, 'inherit'],
  });
  closeSync(fd);
  const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const emit = async (count: number) => {
    const before = lines(log).length;
    for (let i = 0; i < count; i++) writer.stdin!.write('.');
    await waitFor(`${count} more log lines`, () => lines(log).length >= before + count);
  };
  try {
    await emit(50);
    const rotated = spawnSync(LOGROTATE!, ['--force', '--state', join(dir, 'state'), config], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(rotated.status, 0, rotated.stdout + rotated.stderr);
    const old = lines(`${log}.1`);
    assert.equal(old.length, 50);
    assert.deepEqual(old.map((l) => (JSON.parse(l) as { n: number }).n), [...Array(50).keys()]);
    await emit(5);
    const fresh = readFileSync(log);
    assert.equal(fresh.indexOf(0), -1, 'no run of zero bytes where the file ended before the truncation');
    assert.deepEqual(lines(log).map((l) => (JSON.parse(l) as { n: number }).n), [50, 51, 52, 53, 54]);
  } finally {
    writer.kill();
  }
});
