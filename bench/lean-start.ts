// Lean start: resident memory of a freshly started `tolk serve` (the Node process and every Apertium stage it
// started), idle, with every installed pair, for the old start (every pair probed and kept warm) and the new one
// (nothing started until used); then the time of the first request to a cold pair.
// Usage: node dist/bench/lean-start.js [--settle=MS] [--pairs=en-es,es-pt,uk-ru,sv-da]
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const SETTLE_MS = Number(args.settle ?? 3000);
const COLD_PAIRS = (args.pairs ?? 'en-es,es-pt,uk-ru,sv-da').split(',');
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

/** Summed RSS (MiB) of a process and all its descendants, from /proc. */
function treeRssMb(root: number): { mb: number; processes: number } {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      /* gone */
    }
  }
  let kb = 0;
  let processes = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      kb += Number(m?.[1] ?? 0);
      processes++;
    } catch {
      continue;
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return { mb: Math.round(kb / 1024), processes };
}

async function serve(env: Record<string, string>): Promise<{ port: number; pid: number; startMs: number; stop: () => Promise<void>; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tolk-lean-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const t0 = performance.now();
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, TOLK_DATA_DIR: dir, TOLK_PORT: String(port), TOLK_FREE_PORT: String(port), TOLK_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/live`)).ok) break;
    } catch {
      /* not yet */
    }
    if (child.exitCode !== null) throw new Error('server exited');
    await new Promise((r) => setTimeout(r, 50));
  }
  const startMs = Math.round(performance.now() - t0);
  return {
    port,
    pid: child.pid!,
    startMs,
    dir,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function account(dir: string): string {
  const out = execFileSync(process.execPath, [CLI, 'account', 'create', '--plan', 'pro', '--json'], { env: { ...process.env, TOLK_DATA_DIR: dir } });
  return (JSON.parse(out.toString()) as { admin_key: string }).admin_key;
}

const rows: string[] = [];
for (const [label, env] of [
  ['every pair warm at start (before: TOLK_APERTIUM_WARM_PAIRS=* TOLK_APERTIUM_MEMORY_MB=4096)', { TOLK_APERTIUM_WARM_PAIRS: '*', TOLK_APERTIUM_MEMORY_MB: '4096' }],
  ['lazy (after: the defaults)', {}],
] as const) {
  const s = await serve(env);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const idle = treeRssMb(s.pid);
  const ready = (await (await fetch(`http://127.0.0.1:${s.port}/health/ready`)).json()) as { warm_pairs: string[]; engines: { pairs: number }[] };
  let cold = '–';
  if (Object.keys(env).length === 0) {
    const key = account(s.dir);
    const times: string[] = [];
    for (const pair of COLD_PAIRS) {
      const [source, target] = pair.split('-');
      const t0 = performance.now();
      const res = await fetch(`http://127.0.0.1:${s.port}/v2/translate`, {
        method: 'POST',
        headers: { authorization: `Service-Auth-Key ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: ['The weather is nice today.'], source_lang: source!.toUpperCase(), target_lang: target!.toUpperCase() }),
      });
      const ms = Math.round(performance.now() - t0);
      times.push(`${pair} ${res.status === 200 ? `${ms} ms` : `HTTP ${res.status}`}`);
    }
    cold = times.join(', ');
  }
  rows.push(`| ${label} | ${ready.engines.reduce((n, e) => n + e.pairs, 0)} | ${ready.warm_pairs.length} | ${s.startMs} | ${idle.processes} | ${idle.mb} | ${cold} |`);
  await s.stop();
}
console.log('| start | pairs listed | pairs warm | start to listening, ms | processes | idle RSS, MiB | first request to a cold pair |');
console.log('|---|---:|---:|---:|---:|---:|---|');
for (const r of rows) console.log(r);
