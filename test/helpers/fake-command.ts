// A stand-in for an external program that hangs (never answers, ignores the end of its input): tests check that the
// code driving it kills it at its deadline or when its request ends.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gone } from './processes.js';

export interface HungCommand {
  path: string;
  /** Pid of the last run (written by the script itself). */
  pid(): number;
  /** True once the last run has exited. */
  gone(): Promise<boolean>;
  remove(): void;
}

/** `prelude` runs first (e.g. answering `--list-langs`); then the script records its pid and sleeps. */
export function hungCommand(prelude = ''): HungCommand {
  const dir = mkdtempSync(join(tmpdir(), 'tolk-hung-'));
  const path = join(dir, 'hung');
  const pidFile = join(dir, 'pid');
  writeFileSync(path, `#!/bin/sh\n${prelude}\necho $$ > '${pidFile}'\nexec sleep 1000\n`);
  chmodSync(path, 0o755);
  const pid = () => Number(readFileSync(pidFile, 'utf8'));
  return {
    path,
    pid,
    gone: () => gone(pid()),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
