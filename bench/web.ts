// Web page benchmark: what the page at / costs a browser. Debian's Chromium (playwright-core) loads it from a real
// `tolk serve`-equivalent server on loopback: cold (fresh profile), then reloaded (ETag revalidation), then signed in
// up to the translator being usable (the API calls the page makes at sign-in included).
//
// Run: npm run bench:web [-- --rounds=5]
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { benchArgs } from './args.js';

const args = benchArgs();
const ROUNDS = Number(args.get('rounds') ?? 5);
const CHROMIUM = process.env.TOLK_CHROMIUM ?? '/usr/bin/chromium';
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

async function port(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port: p } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return p;
}

interface Sample {
  ms: number;
  bytes: number;
  requests: number;
}

/** Runs `step` and counts what went over the wire meanwhile (headers and bodies as received, compressed). */
async function measure(page: Page, step: () => Promise<void>): Promise<Sample> {
  const sizes: Promise<number>[] = [];
  const onFinished = (request: import('playwright-core').Request) =>
    sizes.push(request.sizes().then((s) => s.responseBodySize + s.responseHeadersSize + s.requestHeadersSize + s.requestBodySize));
  page.on('requestfinished', onFinished);
  const start = performance.now();
  await step();
  const ms = performance.now() - start;
  page.off('requestfinished', onFinished);
  const bytes = (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
  return { ms, bytes, requests: sizes.length };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-bench-web-'));
  const env = { TOLK_DATA_DIR: dataDir, TOLK_PORT: String(await port()), TOLK_FREE_PORT: String(await port()), TOLK_LOG_LEVEL: 'silent' };
  const server = await startServer(loadConfig({ ...env, TOLK_APERTIUM_PAIRS: 'en-es,es-en' }));
  const origin = `http://127.0.0.1:${env.TOLK_PORT}`;
  const created = await promisify(execFile)(process.execPath, [CLI, 'account', 'create', '--plan', 'pro', '--json'], { env: { ...process.env, ...env } });
  const key = (JSON.parse(created.stdout) as { admin_key: string }).admin_key;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const rows: Record<'cold' | 'reload' | 'signin', Sample[]> = { cold: [], reload: [], signin: [] };
  try {
    for (let round = 0; round < ROUNDS + 1; round++) {
      const context = await browser.newContext(); // a fresh profile: empty cache
      const page = await context.newPage();
      const cold = await measure(page, async () => {
        await page.goto(origin, { waitUntil: 'load' });
        await page.getByLabel('API key').waitFor();
      });
      const reload = await measure(page, async () => {
        await page.reload({ waitUntil: 'load' });
        await page.getByLabel('API key').waitFor();
      });
      const signin = await measure(page, async () => {
        await page.getByLabel('API key').fill(key);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.locator('#target-lang option').first().waitFor({ state: 'attached' });
      });
      await context.close();
      if (round === 0) continue; // the first round warms Chromium itself up
      rows.cold.push(cold);
      rows.reload.push(reload);
      rows.signin.push(signin);
    }
  } finally {
    await browser.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`\nWeb page at ${origin}/, Chromium ${browser.version()}, median of ${ROUNDS} rounds (a fresh browser profile each)\n`);
  console.log('| step | time (ms) | requests | transferred (bytes, headers included) |');
  console.log('|---|---:|---:|---:|');
  const label = { cold: 'first load, empty cache (to the sign-in form)', reload: 'reload (ETag revalidation, 304s)', signin: 'sign-in to a usable translator (API calls)' };
  for (const [name, samples] of Object.entries(rows) as [keyof typeof rows, Sample[]][]) {
    console.log(`| ${label[name]} | ${median(samples.map((s) => s.ms)).toFixed(0)} | ${median(samples.map((s) => s.requests))} | ${median(samples.map((s) => s.bytes))} |`);
  }
}

await main();
