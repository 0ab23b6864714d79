// Translate benchmark: Tolk's /v2/translate vs the raw warm Apertium pipeline (the limit) vs apertium-apy (the peer), en→es.
// The bare Fastify variant (bench/bare-fastify-server.ts) shows what any Fastify server over this engine can reach.
//
// Run: npm run bench:translate [-- --duration=3000 --only=engine,engine-off,engine-relay,apy,tolk,bare] [--baseline=OTHER_BUILT_CHECKOUT]
//   [--http-processes=2]: `tolk serve` with TOLK_HTTP_PROCESSES=2 too, beside the one-process `tolk`
//   [--cpu-prof-dir=DIR]: each server process (`tolk serve`, the bare route) writes a V8 CPU profile (.cpuprofile) into DIR when it stops
// Each request carries one sentence; every cell runs for --duration ms after a short warm-up.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { ApertiumEngine } from '../src/engines/apertium/index.js';
import { hasWrk, runWrk, type WrkTarget } from './wrk.js';
import { floresLines } from '../test/helpers/flores.js';
import { benchArgs } from './args.js';
import { fmt, freePort, percentile, post, processCpuMs, SHORT, v2TranslateClient, type Row, type Translate } from './translate-helpers.js';

interface Variant {
  name: string;
  translate: Translate;
  /** HTTP variants: driven by wrk from outside the server's process when --client=wrk. */
  http?: WrkTarget;
  /** CPU ms used so far by the engine's child processes (the Apertium stages), where the bench can see them. */
  stageCpuMs?: () => number;
  /** CPU ms used so far by the server's own process (HTTP variants in their own process; all its threads). */
  serverCpuMs?: () => number;
  close(): Promise<void>;
}

const args = benchArgs();
const DURATION_MS = Number(args.get('duration') ?? 3000);
/** Every variant runs this long under the cell's load before it is measured, so each is measured JIT-warm. */
const WARMUP_MS = Number(args.get('warmup') ?? 5000);
/** Rounds per cell, alternating the order of the variants; the median round is reported. */
const ROUNDS = Number(args.get('rounds') ?? 3);
const ONLY = new Set((args.get('only') ?? 'engine,apy,tolk,bare').split(','));
const TEXTS = new Set((args.get('texts') ?? 'short,flores').split(','));
/** Engine options under test (default: the engine's defaults). */
const ENGINE_OPTS = {
  pairs: ['en-es'],
  // the same modes Tolk reads (a bundle on a machine without Apertium installed: scripts/device-bench.sh)
  ...(process.env.TOLK_APERTIUM_MODES_DIR ? { modesDir: process.env.TOLK_APERTIUM_MODES_DIR } : {}),
  ...(args.has('inflight') ? { maxInFlightPerPipeline: Number(args.get('inflight')) } : {}),
  ...(args.has('pipelines') ? { maxPipelinesPerPair: Number(args.get('pipelines')) } : {}),
};
/** `--concurrency=8,32,64`: the concurrent mode at each of these client counts (default 8). */
const CONCURRENCIES = (args.get('concurrency') ?? '8').split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
/** Keep-alive sockets per client: enough for the largest concurrency. */
const CONCURRENCY = Math.max(...CONCURRENCIES);
const WANTED_MODES = args.get('modes') ?? 'sequential,concurrent';
const MODES: string[] = [
  ...(WANTED_MODES.includes('sequential') ? ['sequential'] : []),
  ...(WANTED_MODES.includes('concurrent') ? CONCURRENCIES.map((n) => `${n} concurrent`) : []),
];
/** The mode the summary ratios are read at: the first concurrency asked for. */
const SUMMARY_MODE = `${CONCURRENCIES[0]} concurrent`;
const WARMUP = 20;
/** wrk (default when installed): HTTP load from a separate C process, servers in their own processes; node: in-process keep-alive client. */
const CLIENT = args.get('client') ?? (hasWrk() ? 'wrk' : 'node');

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

/** The bench's request to Tolk: one sentence, English to Spanish. */
const tolkBody = (text: string) => JSON.stringify({ text: [text], source_lang: 'EN', target_lang: 'ES' });

function loadFlores(): string[] {
  return floresLines('en').map((s) => s.trim());
}

/** --cpu-prof-dir=DIR: a server process writes a V8 CPU profile there when it exits (NODE_OPTIONS refuses --cpu-prof). */
function profileArgs(): string[] {
  const dir = args.get('cpu-prof-dir');
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(dir)}`] : [];
}

async function measure(variant: Variant, mode: string, kind: string, texts: string[], warm: boolean): Promise<Row> {
  for (let i = 0; i < WARMUP; i++) await variant.translate(texts[i % texts.length]!);
  const workers = mode === 'sequential' ? 1 : Number.parseInt(mode, 10);
  const warmupMs = warm ? WARMUP_MS : 0;
  if (CLIENT === 'wrk' && variant.http) {
    if (warmupMs > 0) await runWrk(variant.http, texts, workers, warmupMs);
    const server0 = variant.serverCpuMs?.() ?? NaN;
    const r = await runWrk(variant.http, texts, workers, DURATION_MS);
    if (r.errors > 0) throw new Error(`${variant.name}: ${r.errors} non-2xx responses under load`);
    // wrk counts only the requests answered in its window; the server's CPU over the same window, per request
    const cpuMsPerRequest = ((variant.serverCpuMs?.() ?? NaN) - server0) / r.requests;
    return { variant: `${variant.name} [wrk]`, mode, kind, requests: r.requests, seconds: r.seconds, p50: r.p50, p95: NaN, p99: r.p99, cpuMsPerRequest, stageCpuMsPerRequest: NaN };
  }
  let next = 0;
  const warmEnd = performance.now() + warmupMs;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < warmEnd) await variant.translate(texts[next++ % texts.length]!);
    }),
  );
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  const server0 = variant.serverCpuMs?.() ?? NaN;
  const stage0 = variant.stageCpuMs?.() ?? NaN;
  const start = performance.now();
  const end = start + DURATION_MS;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < end) {
        const text = texts[next++ % texts.length]!;
        const t0 = performance.now();
        const out = await variant.translate(text);
        latencies.push(performance.now() - t0);
        if (!out) throw new Error(`${variant.name}: empty translation for ${JSON.stringify(text)}`);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // a server in its own process: its CPU (not the client's); in this process: both together
  const cpuMsPerRequest = (variant.serverCpuMs ? variant.serverCpuMs() - server0 : (cpu.user + cpu.system) / 1000) / latencies.length;
  const stageCpuMsPerRequest = ((variant.stageCpuMs?.() ?? NaN) - stage0) / latencies.length;
  latencies.sort((a, b) => a - b);
  return {
    variant: variant.name,
    mode,
    kind,
    requests: latencies.length,
    seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    cpuMsPerRequest,
    stageCpuMsPerRequest,
  };
}

/**
 * (a) The engine itself, no HTTP: the ceiling for Tolk. `reset` (--only=engine-off / engine-relay) runs it with another
 * way of keeping the tagger stateless, or none: what determinism costs, measured in the same run.
 */
async function engineVariant(reset?: 'off' | 'relay'): Promise<Variant> {
  const engine = new ApertiumEngine({ ...ENGINE_OPTS, ...(reset ? { taggerReset: reset } : {}) });
  await engine.start();
  return {
    name: reset ? `engine, tagger reset ${reset} (no HTTP)` : `apertium pipeline (no HTTP, tagger ${engine.taggerReset.kind})`,
    translate: async (text) => (await engine.translate({ source: 'en', target: 'es' }, [text], {}))[0]!,
    stageCpuMs: () => processCpuMs(engine.childPids('en-es')),
    close: () => engine.close(),
  };
}

/**
 * (d) The floor of any Fastify server over this engine: bench/bare-fastify-server.ts in its own process, one route that
 * parses the JSON body, calls the engine and serializes the answer (no auth, segmentation, billing or logging).
 */
async function bareFastifyVariant(): Promise<Variant> {
  const port = await freePort();
  const script = path.resolve(repoRoot, 'dist', 'bench', 'bare-fastify-server.js');
  const child: ChildProcess = spawn(process.execPath, [...profileArgs(), script, String(port), JSON.stringify(ENGINE_OPTS)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-2000)));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`bare Fastify server exited ${code}: ${log}`)));
  });
  const url = new URL(`http://127.0.0.1:${port}/v2/translate`);
  const headers = { 'content-type': 'application/json' };
  const bodyFor = (text: string) => JSON.stringify({ text: [text] });
  const { translate, agent } = v2TranslateClient('bare Fastify', url, headers, bodyFor, CONCURRENCY);
  return {
    name: 'bare Fastify route over the engine (HTTP, own process)',
    translate,
    http: { url: url.toString(), headers, bodyFor },
    serverCpuMs: () => processCpuMs([child.pid!]),
    close: async () => {
      agent.destroy();
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** (b) apertium-apy from Debian, serving the same modes on a loopback port. */
async function apyVariant(): Promise<Variant> {
  const port = await freePort();
  const child: ChildProcess = spawn('apertium-apy', ['-p', String(port), '-j', '1', '/usr/share/apertium/modes'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-2000)));
  const base = `http://127.0.0.1:${port}`;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const url = new URL(`${base}/translate`);
  const translate: Translate = async (text) => {
    const res = await post(agent, url, { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ langpair: 'eng|spa', q: text, markUnknown: 'no' }).toString());
    if (res.status !== 200) throw new Error(`apertium-apy ${res.status}: ${res.body}`);
    const body = JSON.parse(res.body) as { responseData?: { translatedText?: string } };
    return body.responseData?.translatedText ?? '';
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/listPairs`)).ok) break;
    } catch {
      // not up yet
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`apertium-apy did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await translate('Warm up the pipeline.');
  return {
    name: 'apertium-apy (HTTP)',
    translate,
    http: {
      url: url.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      bodyFor: (text) => new URLSearchParams({ langpair: 'eng|spa', q: text, markUnknown: 'no' }).toString(),
    },
    close: async () => {
      agent.destroy();
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/**
 * (c) Tolk over HTTP: buildServices + buildApp on a loopback port with the production logger (pino at info, one
 * "request completed" line per request, written synchronously to a file), one pro account, POST /v2/translate.
 */
async function tolkVariant(): Promise<Variant> {
  // --tolk-in-process (node client only): Tolk built inside the bench process, e.g. for `node --cpu-prof`
  return CLIENT === 'node' && args.has('tolk-in-process') ? tolkInProcessVariant() : tolkProcessVariant();
}

/**
 * (c, as deployed) `tolk serve` in its own process with its production defaults, one pro account made by the CLI.
 * `root`: another built checkout, for the --baseline variant (A/B of two commits in one run).
 */
async function tolkProcessVariant(root = repoRoot, name = 'tolk /v2/translate (HTTP, own process)', settings: Record<string, string> = {}): Promise<Variant> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tolk-bench-'));
  const port = await freePort();
  const cli = path.resolve(root, 'dist', 'src', 'cli.js');
  const env = {
    ...process.env,
    TOLK_DATA_DIR: dir,
    TOLK_HOST: '127.0.0.1',
    TOLK_PORT: String(port),
    TOLK_FREE_PORT: String(await freePort()),
    TOLK_RATE_LIMIT_PER_MINUTE: '100000000',
    TOLK_APERTIUM_PAIRS: 'en-es',
    ...(ENGINE_OPTS.maxPipelinesPerPair !== undefined ? { TOLK_APERTIUM_PIPELINES_PER_PAIR: String(ENGINE_OPTS.maxPipelinesPerPair) } : {}),
    ...settings,
  };
  const created = await new Promise<string>((resolve, reject) => {
    const c = spawn(process.execPath, [cli, 'account', 'create', '--plan', 'pro', '--character-limit', 'unlimited', '--json'], { env });
    let out = '';
    c.stdout.on('data', (d: Buffer) => (out += d));
    c.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`account create exited ${code}`))));
  });
  const adminKey = (JSON.parse(created) as { admin_key: string }).admin_key;
  const child: ChildProcess = spawn(process.execPath, [...profileArgs(), cli, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-2000)));
  const url = new URL(`http://127.0.0.1:${port}/v2/translate`);
  const headers = { 'content-type': 'application/json', authorization: `DeepL-Auth-Key ${adminKey}` };
  const { translate, agent } = v2TranslateClient('tolk', url, headers, tolkBody, CONCURRENCY);
  // several HTTP processes start one after the migrations, each with its engines: slower on a loaded machine
  const deadline = Date.now() + 30_000 * Number(settings.TOLK_HTTP_PROCESSES ?? 1);
  for (;;) {
    try {
      await translate('Warm up.');
      break;
    } catch {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`tolk did not start: ${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    name,
    translate,
    http: { url: url.toString(), headers, bodyFor: tolkBody },
    // the server's Node processes: `tolk serve` and, with TOLK_HTTP_PROCESSES > 1, the HTTP processes it forked
    serverCpuMs: () => processCpuMs([child.pid!, ...nodeChildren(child.pid!)]),
    close: async () => {
      agent.destroy();
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** (c, in-process) Tolk built in this process, driven by an in-process keep-alive client (--client=node). */
async function tolkInProcessVariant(): Promise<Variant> {
  const { loadConfig } = await import('../src/config.js');
  const { buildServices } = await import('../src/services.js');
  const { buildApp } = await import('../src/app.js');
  const dir = mkdtempSync(path.join(tmpdir(), 'tolk-bench-'));
  const port = await freePort();
  const config = loadConfig({
    TOLK_DATABASE_URL: path.join(dir, 'tolk.db'),
    TOLK_HOST: '127.0.0.1',
    TOLK_PORT: String(port),
    TOLK_FREE_PORT: String(await freePort()),
    TOLK_RATE_LIMIT_PER_MINUTE: '100000000',
  });
  const logFile = path.join(dir, 'tolk.log');
  const logger = pino({ level: config.logLevel }, pino.destination({ dest: logFile, sync: true }));
  const services = await buildServices(config, { logger, engineOverride: [new ApertiumEngine(ENGINE_OPTS)] });
  const { adminKey } = await services.accounts.createAccount({ plan: 'pro', name: 'bench', characterLimit: null });
  const app = await buildApp({ config, services, loggerInstance: logger });
  await app.listen({ host: '127.0.0.1', port });
  const url = new URL(`http://127.0.0.1:${port}/v2/translate`);
  const headers = { 'content-type': 'application/json', authorization: `DeepL-Auth-Key ${adminKey}` };
  const { translate, agent } = v2TranslateClient('tolk', url, headers, tolkBody, CONCURRENCY);
  return {
    name: 'tolk /v2/translate (HTTP)',
    translate,
    close: async () => {
      agent.destroy();
      await app.close();
      await services.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The Node.js processes `pid` started (its HTTP processes; not the Apertium stages they run). */
function nodeChildren(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`)
      .flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number))
      .filter((child) => {
        try {
          return readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0')[0] === process.execPath;
        } catch {
          return false;
        }
      });
  } catch {
    return [];
  }
}

/** Median of the rows' request rates (rows of one variant and cell over the rounds). */
function medianRow(rows: Row[]): Row {
  const sorted = [...rows].sort((a, b) => a.requests / a.seconds - b.requests / b.seconds);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const flores = loadFlores();
  const kinds: [string, string[]][] = [];
  if (TEXTS.has('short')) kinds.push(['short', SHORT]);
  if (TEXTS.has('flores')) kinds.push([`FLORES (${flores.length})`, flores]);
  const builders: [string, () => Promise<Variant>][] = [
    ['engine', () => engineVariant()],
    ['engine-off', () => engineVariant('off')],
    ['engine-relay', () => engineVariant('relay')],
    ['tolk', tolkVariant],
    ['bare', bareFastifyVariant],
    ['apy', apyVariant],
  ];
  // --baseline=DIR: `tolk serve` of another built checkout (e.g. a git worktree of main) beside this one's.
  const baseline = args.get('baseline');
  if (baseline) builders.push(['baseline', () => tolkProcessVariant(path.resolve(baseline), `baseline tolk at ${baseline} (HTTP, own process)`)]);
  // --http-processes=2,4: `tolk serve` with TOLK_HTTP_PROCESSES at each count beside the plain `tolk` variant
  for (const n of (args.get('http-processes') ?? '').split(',').filter(Boolean)) {
    builders.push([`tolk-${n}`, () => tolkProcessVariant(repoRoot, `tolk /v2/translate, ${n} HTTP processes (own processes)`, { TOLK_HTTP_PROCESSES: n })]);
  }
  // Every variant lives for the whole run (idle pipelines cost no CPU), so rounds can alternate between them: load
  // from other work on the machine then hits every variant alike, and the median of the rounds is reported.
  const variants: Variant[] = [];
  // A variant named by --only, --baseline or --http-processes that does not start fails the run (after the tables):
  // a missing row must not pass for a result. Without --only, an absent apertium-apy is only skipped.
  const missing: string[] = [];
  for (const [key, build] of builders) {
    if (!ONLY.has(key) && key !== 'baseline' && !key.startsWith('tolk-')) continue;
    try {
      variants.push(await build());
    } catch (err) {
      console.error(`skipping ${key}: ${(err as Error).message}`);
      if (args.has('only') || key === 'baseline' || key.startsWith('tolk-')) missing.push(key);
    }
  }
  if (missing.length > 0) process.exitCode = 1;
  const rows: Row[] = [];
  try {
    for (const mode of MODES) {
      for (const [kind, texts] of kinds) {
        const perVariant = new Map<Variant, Row[]>(variants.map((v) => [v, []]));
        for (let round = 0; round < ROUNDS; round++) {
          const order = round % 2 === 0 ? variants : [...variants].reverse();
          for (const variant of order) {
            const row = await measure(variant, mode, kind, texts, round === 0);
            perVariant.get(variant)!.push(row);
            console.error(`round ${round + 1} | ${row.variant} | ${mode} | ${kind}: ${fmt(row.requests / row.seconds)} req/s, node CPU ${fmt(row.cpuMsPerRequest, 3)} ms/req, stages ${fmt(row.stageCpuMsPerRequest, 3)} ms/req`);
          }
        }
        for (const v of variants) {
          const rounds = perVariant.get(v)!;
          // stage CPU per request is steadier than requests/s under load: its own median over the rounds
          const cpu = rounds.map((r) => r.stageCpuMsPerRequest).sort((a, b) => a - b);
          const server = rounds.map((r) => r.cpuMsPerRequest).sort((a, b) => a - b);
          rows.push({ ...medianRow(rounds), stageCpuMsPerRequest: cpu[Math.floor(cpu.length / 2)] ?? NaN, cpuMsPerRequest: server[Math.floor(server.length / 2)] ?? NaN });
        }
      }
    }
  } finally {
    for (const v of variants) await v.close();
  }
  console.log(`\nen→es, one sentence per request, ${DURATION_MS} ms per cell after ${WARMUP_MS} ms of warm-up, median of ${ROUNDS} alternating rounds, ${CONCURRENCIES.join(', ')} concurrent clients in the concurrent mode\n`);
  console.log(`HTTP client: ${CLIENT}\n`);
  console.log('| variant | mode | text | requests/s | sentences/s | p50 ms | p99 ms | node CPU ms/req (server process under wrk) | stage CPU ms/req |');
  console.log('|---|---|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const rps = r.requests / r.seconds;
    console.log(`| ${r.variant} | ${r.mode} | ${r.kind} | ${fmt(rps, 0)} | ${fmt(rps, 0)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.cpuMsPerRequest, 3)} | ${fmt(r.stageCpuMsPerRequest, 3)} |`);
  }
  const rate = (variant: string, mode: string, kind: string) => {
    const r = rows.find((x) => x.variant.startsWith(variant) && x.mode === mode && x.kind === kind);
    return r ? r.requests / r.seconds : NaN;
  };
  for (const [kind] of kinds) {
    const engine = rate('apertium pipeline', SUMMARY_MODE, kind);
    const tolk = rate('tolk', SUMMARY_MODE, kind);
    const apy = rate('apertium-apy', SUMMARY_MODE, kind);
    const bare = rate('bare Fastify', SUMMARY_MODE, kind);
    for (const mode of MODES) {
      const raw = rate('apertium pipeline', mode, kind);
      const off = rate('engine, tagger reset off', mode, kind);
      const relay = rate('engine, tagger reset relay', mode, kind);
      if (Number.isFinite(off)) console.log(`\n${mode}, ${kind}: engine/engine without tagger reset = ${fmt(raw / off, 3)}, relay/without = ${fmt(relay / off, 3)}`);
    }
    for (const mode of MODES.filter((m) => m !== 'sequential')) {
      const ratio = (a: string, b: string) => fmt(rate(a, mode, kind) / rate(b, mode, kind), 2);
      console.log(`${mode}, ${kind}: tolk/raw = ${ratio('tolk', 'apertium pipeline')}, tolk/bare Fastify = ${ratio('tolk', 'bare Fastify')}, bare Fastify/raw = ${ratio('bare Fastify', 'apertium pipeline')}`);
    }
    console.log(`\n${SUMMARY_MODE}, ${kind}: tolk/raw = ${fmt(tolk / engine, 2)}, tolk/apy = ${fmt(tolk / apy, 1)}x, bare Fastify/raw = ${fmt(bare / engine, 2)}, tolk/bare Fastify = ${fmt(tolk / bare, 2)}`);
    const base = rate('baseline tolk', SUMMARY_MODE, kind);
    if (Number.isFinite(base)) console.log(`${SUMMARY_MODE}, ${kind}: baseline tolk/bare Fastify = ${fmt(base / bare, 2)}, tolk/baseline = ${fmt(tolk / base, 2)}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
