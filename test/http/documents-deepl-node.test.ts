// deepl-node's translateDocument against a real Tolk server on loopback: upload, status, download of a txt file.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as deepl from 'deepl-node';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount, createTestApp, type TestAccount, type TestContext, freePort } from '../helpers/harness.js';
import { unzipAll } from '../helpers/zip.js';

let ctx: TestContext;
let pro: TestAccount;
let url: string;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tolk-deepl-docs-'));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  ctx = await createTestApp({
    env: { TOLK_PORT: String(port), TOLK_FREE_PORT: String(port), TOLK_BASE_URL: url, TOLK_FREE_BASE_URL: `http://localhost:${port}`, TOLK_DATA_DIR: dir },
  });
  pro = await createAccount(ctx, { plan: 'pro' });
  await ctx.app.listen({ port, host: '127.0.0.1' });
});
after(async () => {
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('deepl-node document translation against Tolk', () => {
  it('translateDocument translates a txt file, done at the first status poll', async () => {
    const input = join(dir, 'letter.txt');
    const output = join(dir, 'letter.es.txt');
    writeFileSync(input, 'The house is big.\nThe dog sleeps in the garden.\n');
    const translator = new deepl.Translator(pro.key, { serverUrl: url });
    const started = Date.now();
    const status = await translator.translateDocument(input, output, 'en', 'es');
    // deepl-node sleeps 5 s between polls: finishing this fast means the first poll already found it done
    assert.ok(Date.now() - started < 4000, `took ${Date.now() - started} ms`);
    assert.ok(status.done());
    assert.equal(status.billedCharacters, 'The house is big.'.length + 'The dog sleeps in the garden.'.length);
    const text = readFileSync(output, 'utf8');
    assert.match(text, /casa/i);
    assert.match(text, /perro/i);
    assert.equal(text.split('\n').length, 3);
  });

  it('translateDocument translates an html file; markup, script and code stay as they were', async () => {
    const input = new URL('../../../test/fixtures/documents/sample.html', import.meta.url);
    const output = join(dir, 'sample.es.html');
    const translator = new deepl.Translator(pro.key, { serverUrl: url });
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
    const translator = new deepl.Translator(pro.key, { serverUrl: url });
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
    const translator = new deepl.Translator(pro.key, { serverUrl: url });
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
