// Drives an HTTP endpoint with wrk (a C load generator from Debian), so the client's CPU cost stays out of the
// server's process; used by the translate benchmark for the HTTP variants.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface WrkTarget {
  url: string;
  headers: Record<string, string>;
  /** One request body per text (single line). */
  bodyFor(text: string): string;
}

export interface WrkResult {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  errors: number;
}

export function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk --version exits 1 after printing its version
    return (err as { status?: number }).status === 1;
  }
}

const SCRIPT = `
local bodies = {}
for line in io.lines(os.getenv("WRK_BODIES")) do bodies[#bodies + 1] = line end
local i = 0
wrk.method = "POST"
request = function()
  i = i + 1
  return wrk.format(nil, nil, nil, bodies[(i % #bodies) + 1])
end
`;

function toMs(value: string, unit: string): number {
  const n = Number(value);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : n;
}

export async function runWrk(target: WrkTarget, texts: string[], connections: number, durationMs: number): Promise<WrkResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tolk-wrk-'));
  try {
    const bodies = path.join(dir, 'bodies.txt');
    writeFileSync(bodies, texts.map((t) => target.bodyFor(t).replace(/\n/g, ' ')).join('\n'));
    const script = path.join(dir, 'post.lua');
    writeFileSync(script, SCRIPT);
    const headerArgs = Object.entries(target.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
    const seconds = Math.max(1, Math.round(durationMs / 1000));
    const { stdout } = await run(
      'wrk',
      ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, ...headerArgs, target.url],
      { env: { ...process.env, WRK_BODIES: bodies } },
    );
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? NaN);
    const total = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? NaN);
    const lat = (p: string) => {
      const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(stdout);
      return m ? toMs(m[1]!, m[2]!) : NaN;
    };
    const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
    return { requests: total, seconds: total / rps, p50: lat('50'), p99: lat('99'), errors };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
