// A document status request is held until the document is done or a few seconds have passed (issue 36): deepl-node
// sleeps 5 s after a poll that is not done, so the hold must be long, and end within the client's own 5 s timeout.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import * as deepl from 'deepl-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STATUS_HOLD_MS } from '../../src/documents/document-service.js';
import { countStatusPolls } from '../helpers/documents.js';
import { GatedEngine } from '../helpers/gated-engine.js';
import { createAccount, createTestApp, freePort, type TestContext } from '../helpers/harness.js';
import { waitFor, HUNG_TEST_MS } from '../helpers/wait.js';

const engine = new GatedEngine();
let ctx: TestContext;
let dir: string;
let translator: deepl.Translator;
let polls: Map<string, number>;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tolk-status-hold-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // the service's default hold: no documents option
  ctx = await createTestApp({ engines: [engine], env: { TOLK_PORT: String(port), TOLK_BASE_URL: url, TOLK_FREE_BASE_URL: url, TOLK_DATA_DIR: dir } });
  const pro = await createAccount(ctx, { plan: 'pro' });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  polls = countStatusPolls(ctx);
  // the client's defaults: a 5 s request timeout; no retry would hide a timed-out status request
  translator = new deepl.Translator(pro.key, { serverUrl: url, maxRetries: 0, minTimeout: 2 * HUNG_TEST_MS });
});
after(async () => {
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });
});

it('holds a status request a few seconds, within the client timeout, and answers as soon as the document is done', async () => {
  const handle = await translator.uploadDocument(Buffer.from('The dog sleeps.\n'), 'en', 'es', { filename: 'dog.txt' });
  const started = Date.now();
  const unfinished = await translator.getDocumentStatus(handle);
  const held = Date.now() - started;
  assert.ok(!unfinished.done() && unfinished.ok(), unfinished.status);
  assert.ok(held >= STATUS_HOLD_MS - 50 && STATUS_HOLD_MS >= 3000, `held ${held} ms`);

  const second = translator.getDocumentStatus(handle);
  await waitFor('the second status request is in', () => polls.get(handle.documentId.toUpperCase()) === 2);
  engine.release();
  const done = await second;
  // answered `done` by the held request itself: the client needs no further poll after a 5 s sleep
  assert.ok(done.done(), done.status);
});
