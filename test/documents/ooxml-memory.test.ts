// A legitimate docx of 180,000 short paragraphs (2.7 MB, 13 MB of XML) translated in a format thread with the
// server's default heap limit, as a job is: it is done, and the process's peak resident memory stays under a bound
// (a part is read, planned and rendered a window at a time). Before, the whole part's element trees and plans were
// held, several times over: ~940 MiB above the start with a 4 GiB heap, and the default 1 GiB heap was not enough.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_FORMAT_MEMORY_MB } from '../../src/documents/document-worker.js';
import { FormatThreads } from '../../src/documents/format-threads.js';
import { floresLines } from '../helpers/flores.js';
import { MIB, sampleMemory } from '../helpers/peak-memory.js';
import { manyParagraphsDocx, unzipAll } from '../helpers/zip.js';

const PARAGRAPHS = 180_000;
/** About 40× the document's XML: a thread, its input and output, segments on both sides, a window's plans. */
const GROWTH_BOUND = 512 * MIB;

describe('docx memory', () => {
  const threads = new FormatThreads({ budgetMs: 600_000, maxHeapMb: DEFAULT_FORMAT_MEMORY_MB });
  after(() => threads.close());

  it(`translates ${PARAGRAPHS} paragraphs within ${GROWTH_BOUND / MIB} MiB of peak growth`, async (t) => {
    const input = await manyParagraphsDocx(floresLines('en'), PARAGRAPHS);
    const sampler = sampleMemory();
    const doc = await threads.extract('docx', input, { targetLang: 'es' }, new AbortController().signal);
    let output: Buffer;
    try {
      assert.equal(doc.segments.length, PARAGRAPHS);
      output = await doc.translateWith!(async (texts) => texts.map((t) => t.toUpperCase()));
    } finally {
      doc.release();
    }
    const growth = sampler.stop() - sampler.baseline;
    assert.ok(growth < GROWTH_BOUND, `peak RSS grew by ${Math.round(growth / MIB)} MiB`);
    t.diagnostic(`peak RSS growth ${Math.round(growth / MIB)} MiB for a ${input.length}-byte docx`);
    // every paragraph translated in its place, across the windows the part was read in
    const texts = async (docx: Buffer) =>
      new Map(await unzipAll(docx)).get('word/document.xml')!.toString('utf8').match(/<w:p>.*?<\/w:p>/gu)!.map((p) => p.replace(/<[^>]*>/gu, '').replace(/&lt;/gu, '<').replace(/&gt;/gu, '>').replace(/&amp;/gu, '&'));
    const [before, after] = [await texts(input), await texts(output)];
    assert.equal(after.length, PARAGRAPHS);
    assert.deepEqual(after, before.map((t) => t.toUpperCase()));
  });
});
