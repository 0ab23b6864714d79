// A stand-in for an external program that hangs (never answers, ignores the end of its input): tests check that the
// code driving it kills it at its deadline or when its request ends.
import { randomInt } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './wait.js';

export interface HungCommand {
  path: string;
  /** Pids of the runs alive now (found in /proc, so a run killed before it could say anything counts too). */
  running(): number[];
  /** Waits until a run has reached its hang (past the prelude); returns its pid. */
  started(): Promise<number>;
  /** True once no run is alive; false only after the hung-test deadline. */
  gone(): Promise<boolean>;
  remove(): void;
}

/** `prelude` runs first (e.g. answering `--list-langs`); then the script sleeps. */
export function hungCommand(prelude = ''): HungCommand {
  const dir = mkdtempSync(join(tmpdir(), 'tolk-hung-'));
  const path = join(dir, 'hung');
  // a sleep of its own length marks the run in /proc once `exec` has replaced the script's command line
  const sleep = `1000.${randomInt(100_000, 999_999)}`;
  writeFileSync(path, `#!/bin/sh\n${prelude}\nexec sleep ${sleep}\n`);
  chmodSync(path, 0o755);
  const live = (marks: string[]) =>
    readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
          // a killed run not yet reaped by its parent is a zombie: dead already
          const state = /^\d+ \(.*\) (\S)/s.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
          return marks.some((mark) => cmdline.includes(mark)) && state !== 'Z';
        } catch {
          return false; // exited while being looked at
        }
      })
      .map(Number);
  const running = () => live([path, sleep]);
  return {
    path,
    running,
    started: () => waitFor('the hung command to start', () => live([sleep])[0]),
    gone: () => waitFor('the hung command to exit', () => running().length === 0).catch(() => false),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
