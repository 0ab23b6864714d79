// Every image filter goes through the one pixel budget before decoding: JBIG2 images whose segments declare a
// 100000 × 100000 page and region, and CCITT fax images whose parameters declare 10^9 columns, each under a
// kilobyte with a dictionary saying 100 × 100, are left out of drawing (their declared size written into the copy's
// dictionary, where pdf.js's own check skips them) instead of decoded. Run in a format thread, as a job is; the
// process's peak resident memory is asserted, not only the outcome. Before this check the JBIG2 file held the thread
// past 60 s at 640 MiB and rising, the CCITT one at 1.8 GiB.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, PDFName, PDFNumber, PDFRawStream } from 'pdf-lib';
import { FormatThreads } from '../../src/documents/format-threads.js';
import { DEFAULT_PIXEL_LIMITS, DocumentFormatError } from '../../src/documents/formats/format.js';
import { withImageSizesChecked } from '../../src/documents/formats/pdf/image-sizes.js';
import { MIB, sampleMemory } from '../helpers/peak-memory.js';
import { ccittPdf, inlineCcittPdf, jbig2Pdf } from '../helpers/pixel-bombs.js';

/** Far below what decoding any of these files would take (gigabytes), above a thread drawing one blank A4 page. */
const GROWTH_BOUND = 400 * MIB;
const BUDGET = DEFAULT_PIXEL_LIMITS.imagePixels;

const hostile: [name: string, pdf: Buffer][] = [
  ['JBIG2, segments declaring 100000 × 100000', jbig2Pdf(100, 100_000)],
  ['CCITT, 10^9 columns and rows', ccittPdf(100, 1e9, 1e9)],
  ['CCITT, 10^8 columns, one row', ccittPdf(100, 1e8, 1)],
  ['inline CCITT, 10^9 columns', inlineCcittPdf(1e9)],
];

/** The image dictionaries' Width and Height in a checked copy. */
async function imageSizes(pdf: Buffer): Promise<[unknown, unknown][]> {
  return [...(await PDFDocument.load(pdf)).context.enumerateIndirectObjects()]
    .map(([, o]) => o)
    .filter((o): o is PDFRawStream => o instanceof PDFRawStream && o.dict.lookup(PDFName.of('Subtype')) === PDFName.of('Image'))
    .map((o) => [o.dict.lookup(PDFName.of('Width')), o.dict.lookup(PDFName.of('Height'))]);
}

describe('PDF images of every filter within the pixel budget', () => {
  const threads = new FormatThreads({ budgetMs: 60_000, maxHeapMb: 512, limits: DEFAULT_PIXEL_LIMITS });
  after(() => threads.close());

  it('writes the size JBIG2 segments and CCITT parameters declare into the dictionary, and leaves honest files alone', async () => {
    assert.deepEqual(await imageSizes(await withImageSizesChecked(jbig2Pdf(100, 100_000), BUDGET)), [[PDFNumber.of(100_000), PDFNumber.of(100_000)]]);
    assert.deepEqual(await imageSizes(await withImageSizesChecked(ccittPdf(100, 1e9, 0), BUDGET)), [[PDFNumber.of(1e9), PDFNumber.of(100)]]);
    const inline = await PDFDocument.load(await withImageSizesChecked(inlineCcittPdf(1e9), BUDGET));
    assert.equal((inline.getPage(0).node.Contents() as PDFRawStream).contents.length, 0);
    // honest sizes within the budget are not touched
    for (const honest of [jbig2Pdf(100, 100), ccittPdf(1728, 1728, 2200), ccittPdf(100, 1728, 0), inlineCcittPdf(1728)]) {
      assert.equal(await withImageSizesChecked(honest, BUDGET), honest);
    }
  });

  for (const [name, pdf] of hostile) {
    it(`${name} (${pdf.length} bytes): not decoded, a clear outcome, bounded memory`, async () => {
      assert.ok(pdf.length < 1024);
      const sampler = sampleMemory();
      await assert.rejects(
        threads.extract('pdf', pdf, { sourceLang: 'en', targetLang: 'es' }, new AbortController().signal),
        (err: Error) => err instanceof DocumentFormatError && /has no text to translate/u.test(err.message),
      );
      const growth = sampler.stop() - sampler.baseline;
      assert.ok(growth < GROWTH_BOUND, `${name}: peak RSS grew by ${Math.round(growth / MIB)} MiB`);
    });
  }
});
