// Translate benchmark: Tolk's /v2/translate vs the raw warm Apertium pipeline (the limit) vs apertium-apy (the peer), en→es.
//
// Run: npm run bench:translate [-- --duration=3000 --only=engine,apy,tolk]
// Each request carries one sentence; every cell runs for --duration ms after a short warm-up.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApertiumEngine } from '../src/engines/apertium/index.js';

type Translate = (text: string) => Promise<string>;

interface Variant {
  name: string;
  translate: Translate;
  close(): Promise<void>;
}

interface Row {
  variant: string;
  mode: string;
  kind: string;
  requests: number;
  seconds: number;
  p50: number;
  p95: number;
}

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k!, v ?? 'true'] as const;
  }),
);
const DURATION_MS = Number(args.get('duration') ?? 3000);
const ONLY = new Set((args.get('only') ?? 'engine,apy,tolk').split(','));
const CONCURRENCY = 8;
const WARMUP = 20;

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const floresPath = path.resolve(repoRoot, '..', 'shared', 'data', 'flores-dev', 'flores-dev.en');

const SHORT = [
  'The house is big.',
  'Where is the train station?',
  'I have two dogs and a cat.',
  'Thank you very much.',
  'The weather is nice today.',
  'Can you help me, please?',
  'She reads a book every week.',
  'We are going to the beach tomorrow.',
];

function loadFlores(): string[] {
  return readFileSync(floresPath, 'utf8').split('\n').map((s) => s.trim()).filter(Boolean);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(variant: Variant, mode: 'sequential' | '8 concurrent', kind: string, texts: string[]): Promise<Row> {
  for (let i = 0; i < WARMUP; i++) await variant.translate(texts[i % texts.length]!);
  const workers = mode === 'sequential' ? 1 : CONCURRENCY;
  const latencies: number[] = [];
  let next = 0;
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
  latencies.sort((a, b) => a - b);
  return { variant: variant.name, mode, kind, requests: latencies.length, seconds, p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
}

/** (a) The engine itself, no HTTP: the ceiling for Tolk. */
async function engineVariant(): Promise<Variant> {
  const engine = new ApertiumEngine({ pairs: ['en-es'] });
  await engine.start();
  return {
    name: 'apertium pipeline (no HTTP)',
    translate: async (text) => (await engine.translate({ source: 'en', target: 'es' }, [text], {}))[0]!,
    close: () => engine.close(),
  };
}

/** (b) apertium-apy from Debian, serving the same modes on a loopback port. */
async function apyVariant(): Promise<Variant> {
  const port = await freePort();
  const child: ChildProcess = spawn('apertium-apy', ['-p', String(port), '-j', '1', '/usr/share/apertium/modes'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-2000)));
  const base = `http://127.0.0.1:${port}`;
  const translate: Translate = async (text) => {
    const res = await fetch(`${base}/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ langpair: 'eng|spa', q: text, markUnknown: 'no' }).toString(),
    });
    if (!res.ok) throw new Error(`apertium-apy ${res.status}: ${await res.text()}`);
    const body = (await res.json()) as { responseData?: { translatedText?: string } };
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
    close: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** (c) Tolk over HTTP: buildServices + buildApp on a loopback port, one pro account, POST /v2/translate. */
async function tolkVariant(): Promise<Variant> {
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
    TOLK_LOG_LEVEL: 'warn',
  });
  const services = await buildServices(config, { engineOverride: [new ApertiumEngine({ pairs: ['en-es'] })] });
  const { adminKey } = await services.accounts.createAccount({ plan: 'pro', name: 'bench', characterLimit: null });
  const app = await buildApp({ config, services, logger: false });
  await app.listen({ host: '127.0.0.1', port });
  const url = `http://127.0.0.1:${port}/v2/translate`;
  const translate: Translate = async (text) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `DeepL-Auth-Key ${adminKey}` },
      body: JSON.stringify({ text: [text], source_lang: 'EN', target_lang: 'ES' }),
    });
    if (!res.ok) throw new Error(`tolk ${res.status}: ${await res.text()}`);
    const body = (await res.json()) as { translations: { text: string }[] };
    return body.translations[0]?.text ?? '';
  };
  return {
    name: 'tolk /v2/translate (HTTP)',
    translate,
    close: async () => {
      await app.close();
      await services.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function fmt(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '-';
}

async function main(): Promise<void> {
  const flores = loadFlores();
  const kinds: [string, string[]][] = [
    ['short', SHORT],
    [`FLORES (${flores.length})`, flores],
  ];
  const builders: [string, () => Promise<Variant>][] = [
    ['engine', engineVariant],
    ['tolk', tolkVariant],
    ['apy', apyVariant],
  ];
  const rows: Row[] = [];
  for (const [key, build] of builders) {
    if (!ONLY.has(key)) continue;
    let variant: Variant;
    try {
      variant = await build();
    } catch (err) {
      console.error(`skipping ${key}: ${(err as Error).message}`);
      continue;
    }
    try {
      for (const mode of ['sequential', '8 concurrent'] as const) {
        for (const [kind, texts] of kinds) {
          const row = await measure(variant, mode, kind, texts);
          rows.push(row);
          console.error(`${row.variant} | ${mode} | ${kind}: ${fmt(row.requests / row.seconds)} req/s`);
        }
      }
    } finally {
      await variant.close();
    }
  }
  console.log(`\nen→es, one sentence per request, ${DURATION_MS} ms per cell, ${CONCURRENCY} concurrent clients in the concurrent mode\n`);
  console.log('| variant | mode | text | requests/s | sentences/s | p50 ms | p95 ms |');
  console.log('|---|---|---|---:|---:|---:|---:|');
  for (const r of rows) {
    const rps = r.requests / r.seconds;
    console.log(`| ${r.variant} | ${r.mode} | ${r.kind} | ${fmt(rps, 0)} | ${fmt(rps, 0)} | ${fmt(r.p50, 2)} | ${fmt(r.p95, 2)} |`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
