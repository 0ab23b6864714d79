// `tolk serve` as a child process on free loopback ports with a fresh data directory, for tests of the real process.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { freePort } from './harness.js';

const run = promisify(execFile);
export const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

export interface ServedProcess {
  server: ChildProcess;
  env: NodeJS.ProcessEnv;
  dataDir: string;
  port: number;
  freePort: number;
  /** Everything the process wrote to stdout and stderr so far. */
  logs(): string;
  /** Runs a CLI command against the same configuration; returns its stdout. */
  cli(...args: string[]): Promise<string>;
  /** Kills the process if it still runs and removes the data directory. */
  cleanup(): void;
}

/** Starts the server and resolves once it listens (fails after 30 s or when it exits). */
export async function startServe(env: Record<string, string> = {}): Promise<ServedProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-serve-'));
  const [port, freePortNumber] = [await freePort(), await freePort()];
  const fullEnv = { ...process.env, TOLK_DATA_DIR: dataDir, TOLK_PORT: String(port), TOLK_FREE_PORT: String(freePortNumber), ...env };
  const server = spawn(process.execPath, [CLI, 'serve'], { env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let logs = '';
  server.stdout!.on('data', (d) => (logs += d));
  server.stderr!.on('data', (d) => (logs += d));
  const served: ServedProcess = {
    server,
    env: fullEnv,
    dataDir,
    port,
    freePort: freePortNumber,
    logs: () => logs,
    cli: async (...args) => (await run(process.execPath, [CLI, ...args], { env: fullEnv })).stdout,
    cleanup() {
      if (server.exitCode === null) server.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + 30_000;
  while (!logs.includes('Tolk is listening')) {
    if (Date.now() > deadline || server.exitCode !== null) {
      served.cleanup();
      assert.fail(`server did not start:\n${logs}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return served;
}
