// The time estimate of a document job counts down on the page between the server's answers (each status request is
// held for a while): Chromium against a Tolk whose engine the test holds, so the job stays unfinished until released.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { GatedEngine } from '../helpers/gated-engine.js';
import { createAccount, createTestApp, freePort, type TestContext } from '../helpers/harness.js';

const CHROMIUM = process.env.TOLK_CHROMIUM ?? '/usr/bin/chromium';
/** How long the server holds a status request here: the page polls a second after each answer. */
const HOLD_MS = 2000;

const engine = new GatedEngine();
let ctx: TestContext;
let browser: Browser;
let page: Page;
let origin: string;
let key: string;
/** seconds_remaining of every status answer the page has received. */
const answeredEstimates: number[] = [];
const dir = mkdtempSync(join(tmpdir(), 'tolk-countdown-'));

before(async () => {
  if (!existsSync(CHROMIUM)) return;
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  ctx = await createTestApp({
    engines: [engine],
    documents: { statusWaitMs: HOLD_MS },
    env: { TOLK_PORT: String(port), TOLK_BASE_URL: origin, TOLK_FREE_BASE_URL: origin, TOLK_DATA_DIR: dir },
  });
  key = (await createAccount(ctx, { plan: 'pro' })).key;
  await ctx.app.listen({ port, host: '127.0.0.1' });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(15_000);
  page.on('response', async (res) => {
    if (res.request().method() !== 'POST' || !/\/v2\/document\/[0-9A-Fa-f]{32}$/.test(res.url())) return;
    const body = (await res.json().catch(() => ({}))) as { seconds_remaining?: number };
    if (body.seconds_remaining !== undefined) answeredEstimates.push(body.seconds_remaining);
  });
});
after(async () => {
  engine.release();
  await browser?.close();
  await ctx?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('counts the estimate down each second between held status answers', { skip: !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}` }, async () => {
  await page.goto(origin);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Documents', exact: true }).click();
  // ~210 kB of text: the server estimates about 11 s before the first chunk is translated (it never is, until released).
  const file = join(dir, 'long.txt');
  writeFileSync(file, 'The dog sleeps in the garden.\n'.repeat(7000));
  await page.locator('#doc-file').setInputFiles(file);
  const state = page.locator('.doc', { hasText: 'long.txt' }).locator('.doc-state');
  const secondsLeft = async () => Number(/about (\d+) s left/.exec((await state.textContent()) ?? '')?.[1] ?? NaN);
  await state.filter({ hasText: /about \d+ s left/ }).waitFor();
  const first = await secondsLeft();
  assert.ok(first >= 5, `estimate ${first} s`);
  // Until the first chunk is translated (never, until released) every answer carries the same estimate: a number
  // below all of them was counted down by the page. Read whenever it comes, so a slow machine cannot race it.
  await page.waitForFunction(
    (n) => Number(/about (\d+) s left/.exec(document.querySelector('.doc-state')?.textContent ?? '')?.[1]) < n,
    first,
  );
  const shown = await secondsLeft();
  assert.ok(answeredEstimates.length > 0, 'the page received an estimate');
  assert.ok(shown < Math.min(...answeredEstimates), `shown ${shown} s, answered ${answeredEstimates.join(', ')} s`);
  engine.release();
  await page.getByRole('button', { name: 'Download long.es.txt' }).waitFor();
});
