// Lean start: resident memory of a freshly started `tolk serve` (the Node process and every Apertium stage it
// started), idle, with every installed pair, for the old start (every pair probed and kept warm) and the new one
// (nothing started until used); then the time of the first request to a cold pair, and of the first text without a
// source language (the detector's thread starts on it), with the longest wait of a `/health/live` polled every 10 ms
// meanwhile (what the detector's start holds the event loop for). --baseline=DIR starts another built checkout (e.g.
// /work/main) with the defaults too, in the same run; --no-warm leaves out the every-pair-warm start (a minute and
// 4 GiB); --detector-loads adds each checkout with the other TOLK_DETECTOR_LOAD (start, first-use).
// Usage: node dist/bench/lean-start.js [--settle=MS] [--pairs=en-es,es-pt,uk-ru,sv-da] [--baseline=DIR] [--no-warm]
//   [--detector-loads]
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { treeRssMb } from './process-memory.js';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const SETTLE_MS = Number(args.settle ?? 3000);
const COLD_PAIRS = (args.pairs ?? 'en-es,es-pt,uk-ru,sv-da').split(',');
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const cliOf = (root: string) => join(root, 'dist', 'src', 'cli.js');

async function serve(cli: string, env: Record<string, string>): Promise<{ port: number; pid: number; startMs: number; stop: () => Promise<void>; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tolk-lean-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const t0 = performance.now();
  const child = spawn(process.execPath, [cli, 'serve'], {
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

function account(cli: string, dir: string): string {
  const out = execFileSync(process.execPath, [cli, 'account', 'create', '--plan', 'pro', '--json'], { env: { ...process.env, TOLK_DATA_DIR: dir } });
  return (JSON.parse(out.toString()) as { admin_key: string }).admin_key;
}

async function translateMs(port: number, key: string, body: Record<string, unknown>): Promise<string> {
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/v2/translate`, {
    method: 'POST',
    headers: { authorization: `Service-Auth-Key ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: ['The weather is nice today.'], ...body }),
  });
  const ms = Math.round(performance.now() - t0);
  return res.status === 200 ? `${ms} ms` : `HTTP ${res.status}`;
}

/** What `work` returns, and the longest a `/health/live` polled every 10 ms meanwhile waited for its answer. */
async function longestWaitDuring<T>(port: number, work: Promise<T>): Promise<[T, number]> {
  let done = false;
  let longest = 0;
  const polls = (async () => {
    while (!done) {
      const t0 = performance.now();
      await fetch(`http://127.0.0.1:${port}/health/live`);
      longest = Math.max(longest, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const result = await work;
  done = true;
  await polls;
  return [result, Math.round(longest)];
}

interface Start {
  label: string;
  cli: string;
  env: Record<string, string>;
  /** Sends the cold-pair and detection requests (not for the every-pair-warm start). */
  requests: boolean;
}
const starts: Start[] = [];
if (!('no-warm' in args)) {
  starts.push({ label: 'every pair warm at start (before: TOLK_APERTIUM_WARM_PAIRS=* TOLK_APERTIUM_MEMORY_MB=4096)', cli: CLI, env: { TOLK_APERTIUM_WARM_PAIRS: '*', TOLK_APERTIUM_MEMORY_MB: '4096' }, requests: false });
}
for (const [name, cli] of [...(args.baseline ? [[`baseline ${args.baseline}`, cliOf(args.baseline)]] : []), ['this checkout', CLI]] as [string, string][]) {
  starts.push({ label: `lazy (the defaults), ${name}`, cli, env: {}, requests: true });
  if ('detector-loads' in args) {
    for (const load of ['start', 'first-use']) {
      starts.push({ label: `lazy, TOLK_DETECTOR_LOAD=${load}, ${name}`, cli, env: { TOLK_DETECTOR_LOAD: load }, requests: true });
    }
  }
}

const rows: string[] = [];
for (const { label, cli, env, requests } of starts) {
  const s = await serve(cli, env);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const idle = treeRssMb(s.pid);
  const ready = (await (await fetch(`http://127.0.0.1:${s.port}/health/ready`)).json()) as { warm_pairs: string[]; engines: { pairs: number }[] };
  let cold = '–';
  let detection = '–';
  let held = '–';
  if (requests) {
    const key = account(cli, s.dir);
    const times: string[] = [];
    for (const pair of COLD_PAIRS) {
      const [source, target] = pair.split('-');
      times.push(`${pair} ${await translateMs(s.port, key, { source_lang: source!.toUpperCase(), target_lang: target!.toUpperCase() })}`);
    }
    cold = times.join(', ');
    // en-es is warm by now: what this adds is the detection (and, lazily, starting the detector)
    const [first, longest] = await longestWaitDuring(s.port, translateMs(s.port, key, { target_lang: 'ES' }));
    detection = `${first}, then ${await translateMs(s.port, key, { target_lang: 'ES' })}`;
    held = String(longest);
  }
  const after = treeRssMb(s.pid);
  rows.push(`| ${label} | ${ready.engines.reduce((n, e) => n + e.pairs, 0)} | ${ready.warm_pairs.length} | ${s.startMs} | ${idle.processes} | ${idle.mb} | ${cold} | ${detection} | ${held} | ${after.mb} |`);
  await s.stop();
}
console.log('| start | pairs listed | pairs warm | start to listening, ms | processes | idle RSS, MiB | first request to a cold pair | first two texts without source_lang (en-es) | longest /health/live during the first, ms | RSS after these, MiB |');
console.log('|---|---:|---:|---:|---:|---:|---|---|---:|---:|');
for (const r of rows) console.log(r);
