// PDF pages and images within the pixel limits: a page over the cap is read at the scale that fits (its ordinary
// text still read), refused below 108 dpi with a message naming the cap, the document's OCR pixel budget leaves the
// pages after it unread and named, and image data claiming more pixels than its dictionary is left out of drawing;
// the limits are read from the environment and checked there.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, PDFName, PDFNumber, PDFRawStream } from 'pdf-lib';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_FORMAT_MEMORY_MB } from '../../src/documents/document-worker.js';
import { DEFAULT_PIXEL_LIMITS, DocumentFormatError } from '../../src/documents/formats/format.js';
import { createPdfFormat } from '../../src/documents/formats/pdf.js';
import { withImageSizesChecked } from '../../src/documents/formats/pdf/image-sizes.js';
import { fittingScale } from '../../src/documents/formats/pdf/page-render.js';
import { TesseractRecognizer } from '../../src/documents/ocr/tesseract-recognizer.js';
import { blankPagesPdf, lyingInlineJpegPdf, lyingJpegPdf } from '../helpers/pixel-bombs.js';
import { buildPdf } from './pdf-builder.js';
import { SCANNED_TEXT, scannedPage } from './pdf-layout-pages.js';

const tesseract = new TesseractRecognizer();

/** A poster-sized page with an A4 scan of 12-point text in its top left corner, and no text layer. */
async function posterWithScan(width: number, height: number): Promise<Buffer> {
  const scan = (await scannedPage()).pictures![0]!;
  const doc = await PDFDocument.create();
  const page = doc.addPage([width, height]);
  page.drawImage(await doc.embedPng(scan.png), { x: 0, y: height - scan.height, width: scan.width, height: scan.height });
  return Buffer.from(await doc.save());
}

/** The first words of each scanned paragraph, as they must appear in what was read. */
const openings = SCANNED_TEXT.map((p) => p.split(' ').slice(0, 4).join(' '));

describe('PDF pixel limits', () => {
  it('fits a page in the cap: the scale wanted when it fits, else the largest whose whole pixels fit', () => {
    assert.equal(fittingScale(595, 842, 3, 25_000_000), 3);
    for (const side of [3000, 5000, 14_400]) {
      const scale = fittingScale(side, side, 3, 25_000_000);
      assert.ok(Math.ceil(side * scale) ** 2 <= 25_000_000, `${side} pt at ${scale}`);
      assert.ok(Math.ceil(side * scale) ** 2 > 24_000_000, `${side} pt at ${scale}: the cap is used`);
    }
  });

  it('reads a poster page (2400 × 3400 pt: 73 megapixels at 216 dpi) at the scale that fits, its 12-point text included', async () => {
    const doc = await createPdfFormat(tesseract).extract(await posterWithScan(2400, 3400), { sourceLang: 'en', targetLang: 'es' });
    assert.match(String(doc.notice), /Text recognition \(OCR\) read page 1:/u);
    const read = doc.segments.map((s) => s.text).join(' ').replace(/\s+/gu, ' ');
    for (const words of openings) assert.ok(read.includes(words), `"${words}" not in: ${read}`);
    // painted at the same scale it was read at: the output page keeps its size
    const out = await PDFDocument.load(await doc.rebuild(doc.segments.map((s) => s.text.toUpperCase())));
    assert.deepEqual(out.getPage(0).getSize(), { width: 2400, height: 3400 });
  });

  it('refuses to read a page that fits the cap only below 108 dpi, naming the cap', async () => {
    const format = createPdfFormat(tesseract, { ...DEFAULT_PIXEL_LIMITS, pagePixels: 4_000_000 });
    await assert.rejects(
      Promise.resolve(format.extract(await posterWithScan(2400, 3400), { sourceLang: 'en', targetLang: 'es' })),
      (err: Error) =>
        err instanceof DocumentFormatError && /Page 1 without a usable text layer is too large for text recognition \(more than 4 megapixels at 108 dpi\)/u.test(err.message),
    );
  });

  it("leaves the pages after the document's OCR pixel budget unread, and names them", async () => {
    const scan = await scannedPage();
    const pdf = await buildPdf([scan, scan, scan]);
    // one A4 page at 216 dpi is 4.5 megapixels
    const doc = await createPdfFormat(tesseract, { ...DEFAULT_PIXEL_LIMITS, ocrPixels: 5_000_000 }).extract(pdf, { sourceLang: 'en', targetLang: 'es' });
    assert.match(String(doc.notice), /read page 1:.*Pages 2, 3 without a usable text layer were not read \(the time or size limit/su);
    assert.ok(doc.segments.map((s) => s.text).join(' ').includes(openings[0]!));
  });

  it('writes the size a JPEG declares into the dictionary of an image that claims less, and leaves honest files alone', async () => {
    const lying = lyingJpegPdf(20_000);
    const checked = await withImageSizesChecked(lying, 25_000_000);
    const images = [...(await PDFDocument.load(checked)).context.enumerateIndirectObjects()]
      .map(([, o]) => o)
      .filter((o): o is PDFRawStream => o instanceof PDFRawStream && o.dict.lookup(PDFName.of('Subtype')) === PDFName.of('Image'));
    assert.equal(images.length, 1);
    assert.deepEqual([images[0]!.dict.lookup(PDFName.of('Width')), images[0]!.dict.lookup(PDFName.of('Height'))], [PDFNumber.of(20_000), PDFNumber.of(20_000)]);
    for (const honest of [lyingJpegPdf(100), lyingInlineJpegPdf(100), blankPagesPdf(2, 600)]) assert.equal(await withImageSizesChecked(honest, 25_000_000), honest);
  });

  it('empties, for drawing, a content stream with an inline JPEG that claims more than its dictionary', async () => {
    const checked = await PDFDocument.load(await withImageSizesChecked(lyingInlineJpegPdf(20_000), 25_000_000));
    const contents = checked.getPage(0).node.Contents();
    assert.ok(contents instanceof PDFRawStream);
    assert.equal(contents.contents.length, 0);
  });
});

describe('document limits in the configuration', () => {
  it('default to what the formats and the worker assume, and are read and checked from the environment', () => {
    const defaults = loadConfig({}).documents;
    assert.deepEqual(defaults.pixelLimits, DEFAULT_PIXEL_LIMITS);
    assert.equal(defaults.formatMemoryMb, DEFAULT_FORMAT_MEMORY_MB);
    const set = loadConfig({ TOLK_DOCUMENT_PAGE_MEGAPIXELS: '16', TOLK_DOCUMENT_IMAGE_MEGAPIXELS: '12.5', TOLK_DOCUMENT_OCR_MEGAPIXELS: '100', TOLK_DOCUMENT_MEMORY_MB: '512' }).documents;
    assert.deepEqual(set.pixelLimits, { pagePixels: 16_000_000, imagePixels: 12_500_000, ocrPixels: 100_000_000 });
    assert.equal(set.formatMemoryMb, 512);
    for (const [name, value] of [
      ['TOLK_DOCUMENT_PAGE_MEGAPIXELS', '0'],
      ['TOLK_DOCUMENT_IMAGE_MEGAPIXELS', 'big'],
      ['TOLK_DOCUMENT_OCR_MEGAPIXELS', '-5'],
      ['TOLK_DOCUMENT_MEMORY_MB', '16'],
    ] as const) {
      assert.throws(() => loadConfig({ [name]: value }), new RegExp(name, 'u'));
    }
  });
});
