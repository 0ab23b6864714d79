// `tolk serve` as a real child process: started with an environment, waited for, stopped with a signal.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { HUNG_TEST_MS } from './wait.js';

const run = promisify(execFile);
export const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  /** Everything the process wrote so far (JSON log lines). */
  logs(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The environment of a `tolk serve` on its own data directory and ports, with the en-es pair alone and no neural engine. */
export function serveEnv(dataDir: string, databaseUrl: string | undefined, port: number, freePort: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TOLK_DATA_DIR: dataDir,
    ...(databaseUrl ? { TOLK_DATABASE_URL: databaseUrl } : {}),
    TOLK_PORT: String(port),
    TOLK_FREE_PORT: String(freePort),
    TOLK_APERTIUM_PAIRS: 'en-es',
    TOLK_BERGAMOT_WORKERS: '0',
  };
}

export async function startServe(env: NodeJS.ProcessEnv, timeoutMs = HUNG_TEST_MS): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let logs = '';
  child.stdout.on('data', (d) => (logs += d));
  child.stderr.on('data', (d) => (logs += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + timeoutMs;
  while (!logs.includes('Tolk is listening')) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      assert.fail(`server did not start:\n${logs}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    logs: () => logs,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs a `tolk` CLI command with the environment and parses its JSON output. */
export async function cliJson(env: NodeJS.ProcessEnv, args: string[]): Promise<Record<string, string>> {
  return JSON.parse((await run(process.execPath, [CLI, ...args, '--json'], { env })).stdout) as Record<string, string>;
}
