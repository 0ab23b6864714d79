// deepl-node's translateDocument against a real Tolk server on loopback: upload, status, download of a txt file.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as deepl from 'deepl-node';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount, createTestApp, type TestAccount, type TestContext, freePort } from '../helpers/harness.js';
import { unzipAll } from '../helpers/zip.js';
import { countStatusPolls } from '../helpers/documents.js';
import { HUNG_TEST_MS } from '../helpers/wait.js';

let ctx: TestContext;
let pro: TestAccount;
let url: string;
let dir: string;
let polls: Map<string, number>;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tolk-deepl-docs-'));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  ctx = await createTestApp({
    env: { TOLK_PORT: String(port), TOLK_FREE_PORT: String(port), TOLK_BASE_URL: url, TOLK_FREE_BASE_URL: `http://localhost:${port}`, TOLK_DATA_DIR: dir },
    // "done at the first poll" must not race the machine's speed: a status request waits for its job however long it
    // takes; and idle workers never poll, so the job is only found because its upload woke them
    documents: { statusWaitMs: HUNG_TEST_MS, pollIntervalMs: 3_600_000 },
  });
  polls = countStatusPolls(ctx);
  pro = await createAccount(ctx, { plan: 'pro' });
  await ctx.app.listen({ port, host: '127.0.0.1' });
});
after(async () => {
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('deepl-node document translation against Tolk', () => {
  // a regression makes deepl-node poll forever: the timeout ends it
  it('translateDocument translates a txt file, done at the first status poll', { timeout: 3 * HUNG_TEST_MS }, async () => {
    const input = join(dir, 'letter.txt');
    const output = join(dir, 'letter.es.txt');
    writeFileSync(input, 'The house is big.\nThe dog sleeps in the garden.\n');
    // its requests may last as long as the server holds a status request (else the client retries: a second poll)
    const translator = new deepl.Translator(pro.key, { serverUrl: url, minTimeout: 2 * HUNG_TEST_MS });
    const pollsBefore = [...polls.values()].reduce((a, b) => a + b, 0);
    const status = await translator.translateDocument(input, output, 'en', 'es');
    assert.ok(status.done());
    // the status request waited for the job to end: deepl-node did not have to sleep 5 s and ask again
    assert.equal([...polls.values()].reduce((a, b) => a + b, 0), pollsBefore + 1);
    assert.equal(status.billedCharacters, 'The house is big.'.length + 'The dog sleeps in the garden.'.length);
    const text = readFileSync(output, 'utf8');
    assert.match(text, /casa/i);
    assert.match(text, /perro/i);
    assert.equal(text.split('\n').length, 3);
  });

  it('translateDocument translates an html file; markup, script and code stay as they were', async () => {
    const input = new URL('../../../test/fixtures/documents/sample.html', import.meta.url);
    const output = join(dir, 'sample.es.html');
    const translator = new deepl.Translator(pro.key, { serverUrl: url, minTimeout: 2 * HUNG_TEST_MS });
    const status = await translator.translateDocument(readFileSync(input), output, 'en', 'es', { filename: 'sample.html' });
    assert.ok(status.done());
    const html = readFileSync(output, 'utf8');
    assert.match(html, /<html lang="es">/);
    assert.match(html, /<h1>[^<]*perro[^<]*jard[ií]n[^<]*<\/h1>/i);
    assert.match(html, /<b>roj[oa]<\/b>/);
    assert.ok(html.includes('<script>var house = "The house is big";</script>'), 'script untouched');
    assert.ok(html.includes('<code>The house is big</code>'), 'code untouched');
  });

  it('translateDocument translates a docx file; the result is a Word package in Spanish', async () => {
    const input = new URL('../../../test/fixtures/documents/sample.docx', import.meta.url);
    const output = join(dir, 'sample.es.docx');
    const translator = new deepl.Translator(pro.key, { serverUrl: url, minTimeout: 2 * HUNG_TEST_MS });
    const status = await translator.translateDocument(readFileSync(input), output, 'en', 'es', { filename: 'sample.docx' });
    assert.ok(status.done());
    assert.equal(status.billedCharacters, 50_000);
    const parts = new Map(await unzipAll(readFileSync(output)));
    const text = [...parts.get('word/document.xml')!.toString('utf8').matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]).join(' ');
    assert.match(text, /gato/i);
    assert.match(text, /perro/i);
    assert.doesNotMatch(text, /\bdog\b/);
  });

  it('reports an error status and an unsupported file type through the client’s errors', async () => {
    const same = join(dir, 'same.txt');
    writeFileSync(same, 'The house is big.');
    const translator = new deepl.Translator(pro.key, { serverUrl: url, minTimeout: 2 * HUNG_TEST_MS });
    await assert.rejects(translator.translateDocument(same, join(dir, 'same.out.txt'), 'en', 'en-US'), (err: Error) =>
      err instanceof deepl.DocumentTranslationError && /Source and target language are equal/.test(err.message),
    );
    const exe = join(dir, 'tool.exe');
    writeFileSync(exe, 'MZ');
    await assert.rejects(translator.translateDocument(exe, join(dir, 'tool.out.exe'), 'en', 'es'), (err: Error) =>
      err instanceof deepl.DocumentTranslationError && /Invalid file data/.test(err.message),
    );
  });
});
