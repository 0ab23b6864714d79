// Format work in worker threads: results equal the in-process formats, markup units are translated through the main
// thread, format errors keep their message, and a job over its time budget ends in a clear error without
// stopping the threads that come after it.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FormatThreads } from '../../src/documents/format-threads.js';
import { DocumentFormatError } from '../../src/documents/formats/format.js';
import { txtFormat } from '../../src/documents/formats/txt.js';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hungCommand } from '../helpers/fake-command.js';
import { waitFor } from '../helpers/wait.js';

const never = new AbortController().signal;
const upper = async (texts: string[]) => texts.map((t) => t.toUpperCase());

describe('format threads', () => {
  const threads = new FormatThreads({ budgetMs: 60_000 });
  after(() => threads.close());

  it('extracts and rebuilds like the format itself, and reuses its thread for the next job', async () => {
    const input = Buffer.from('Hello world.\n\nThe house is big.\n');
    const local = await txtFormat.extract(input, { targetLang: 'es' });
    for (let round = 0; round < 2; round++) {
      const doc = await threads.extract('txt', input, { targetLang: 'es' }, never);
      try {
        assert.deepEqual(doc.segments, local.segments);
        assert.equal(doc.characters, local.characters);
        const translations = await upper(doc.segments.map((s) => s.text));
        assert.deepEqual(await doc.rebuild(translations), await local.rebuild(translations));
      } finally {
        doc.release();
      }
    }
  });

  it('ends a thread left idle, and starts one for the next job', async () => {
    const brief = new FormatThreads({ budgetMs: 60_000, idleMs: 50 });
    try {
      const input = Buffer.from('Hello world.\n');
      for (let round = 0; round < 2; round++) {
        const doc = await brief.extract('txt', input, { targetLang: 'es' }, never);
        assert.equal(brief.size, 1);
        assert.equal((await doc.rebuild(['Hola mundo.'])).toString('utf8'), 'Hola mundo.\n');
        doc.release();
        await waitFor('the idle thread ended', () => brief.size === 0);
      }
    } finally {
      await brief.close();
    }
  });

  it('markup documents translate their units through the caller (translateWith), tags kept', async () => {
    const doc = await threads.extract('html', Buffer.from('<p>Hello <b>world</b>.</p>'), { targetLang: 'es' }, never);
    try {
      assert.ok(doc.translateWith);
      const seen: string[] = [];
      const out = await doc.translateWith(async (texts) => {
        seen.push(...texts);
        return upper(texts);
      });
      assert.ok(seen.includes('Hello world.'), seen.join('|'));
      assert.equal(out.toString('utf8'), '<p>HELLO <b>WORLD</b>.</p>');
    } finally {
      doc.release();
    }
  });

  it('a translation failure on the main thread is the job error; a format error keeps its message', async () => {
    const doc = await threads.extract('xml', Buffer.from('<a>Hello</a>'), { targetLang: 'es' }, never);
    const boom = new Error('engine down');
    await assert.rejects(doc.translateWith!(async () => Promise.reject(boom)), (err) => err === boom);
    doc.release();
    await assert.rejects(
      threads.extract('dita', Buffer.from(`<topic>${'<p>'.repeat(70_000)}x${'</p>'.repeat(70_000)}</topic>`), { targetLang: 'es' }, never),
      (err: unknown) => err instanceof DocumentFormatError && /nested more than 512 levels deep/.test(err.message),
    );
  });

  it('a job over its time budget ends in a clear error; a cancelled job ends at once; threads after them work', async () => {
    // 1 ms: the thread cannot even load the formats in time
    const tight = new FormatThreads({ budgetMs: 1 });
    try {
      await assert.rejects(
        tight.extract('txt', Buffer.from('Hello world.'), { targetLang: 'es' }, never),
        (err: unknown) => err instanceof DocumentFormatError && /took longer than 1 ms, the limit for one document; it was stopped/.test(err.message),
      );
    } finally {
      await tight.close();
    }
    const abort = new AbortController();
    const pending = threads.extract('txt', Buffer.from('Hello world.'), { targetLang: 'es' }, abort.signal);
    abort.abort();
    await assert.rejects(pending, /cancelled/);
    const doc = await threads.extract('txt', Buffer.from('Hello world.'), { targetLang: 'es' }, never);
    assert.equal(doc.segments.length, 1);
    doc.release();
  });

  it('a cancelled job has its child processes (OCR) killed, not left behind by the terminated thread', async () => {
    // A `tesseract` that lists English and then hangs, found first on the PATH the new thread inherits.
    const hung = hungCommand(`if [ "$1" = --list-langs ]; then echo 'List of available languages (1):'; echo eng; exit 0; fi`);
    const bin = mkdtempSync(join(tmpdir(), 'tolk-bin-'));
    symlinkSync(hung.path, join(bin, 'tesseract'));
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    const ocrThreads = new FormatThreads({ budgetMs: 60_000 });
    const job = new AbortController();
    try {
      const png = readFileSync(new URL('../../../test/fixtures/documents/sample.png', import.meta.url));
      const extracting = ocrThreads.extract('png', png, { targetLang: 'es', sourceLang: 'en' }, job.signal); // starts the thread
      process.env.PATH = path;
      await hung.started();
      job.abort();
      await assert.rejects(extracting, /cancelled/);
      assert.ok(await hung.gone(), 'the hung tesseract was killed');
    } finally {
      process.env.PATH = path;
      await ocrThreads.close();
      hung.remove();
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
