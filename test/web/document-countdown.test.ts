// The time estimate of a document job counts down on the page between the server's answers (each status request is
// held for a while): Chromium against a Tolk whose engine the test holds, so the job stays unfinished until released.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
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
let answeredPolls = 0;
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
  ctx.app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'POST' && /^\/v2\/document\/[0-9A-Fa-f]{32}$/.test(req.url ?? '')) res.on('finish', () => answeredPolls++);
  });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(15_000);
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
  const answersSoFar = answeredPolls;
  assert.ok(first >= 5, `estimate ${first} s`);
  // The next answer is HOLD_MS + 1 s away; the text falls before it comes.
  await page.waitForFunction(
    (n) => Number(/about (\d+) s left/.exec(document.querySelector('.doc-state')?.textContent ?? '')?.[1]) < n,
    first,
  );
  assert.equal(answeredPolls, answersSoFar, 'counted down by the page, not by a new answer');
  engine.release();
  await page.getByRole('button', { name: 'Download long.es.txt' }).waitFor();
});
