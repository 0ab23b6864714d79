// Issue 43 item 5: text outside a page's visible area (its CropBox: a printer's slug, a running head cropped away) is
// kept in the page as it was, neither removed nor redrawn. A real page (test/fixtures/real-documents/octave.pdf) is
// cropped below its running head, translated en→es, and read back with the crop box opened to the whole sheet.
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument } from 'pdf-lib';
import { pdfFormat } from '../../src/documents/formats/pdf.js';
import { apertiumEnEs, pageBoxes } from './pdf-layout-check.js';
import { CORPUS_DIR } from './real-documents.js';

/** The first page's text items above `y`, read with the crop box set to the media box. */
async function textAbove(pdf: Buffer, y: number): Promise<string[]> {
  const doc = await PDFDocument.load(pdf);
  const page = doc.getPage(0);
  const media = page.getMediaBox();
  page.setCropBox(media.x, media.y, media.width, media.height);
  const [first] = await pageBoxes(Buffer.from(await doc.save()));
  return first!.items.filter((i) => i.y0 > y).map((i) => i.text);
}

describe('PDF text outside the visible area', () => {
  it('is kept where it was, untranslated, while the visible text is translated', async () => {
    const doc = await PDFDocument.load(readFileSync(`${CORPUS_DIR}octave.pdf`));
    const page = doc.getPage(0);
    const cropTop = 720; // the running head "184 … GNU Octave (version 7.3.0)" has its baseline at y ≈ 734
    page.setCropBox(0, 0, page.getMediaBox().width, cropTop);
    const source = Buffer.from(await doc.save());
    const head = await textAbove(source, cropTop);
    assert.deepEqual(head.sort(), ['184', 'GNU Octave (version 7.3.0)']);

    const extracted = await pdfFormat.extract(source, { sourceLang: 'en', targetLang: 'es' });
    assert.ok(extracted.segments.every((s) => !s.text.includes('GNU Octave (version')), 'the cropped-away head is not a segment');
    const output = await extracted.rebuild(apertiumEnEs(extracted.segments.map((s) => s.text)));
    assert.deepEqual((await textAbove(output, cropTop)).sort(), head);
    const [visible] = await pageBoxes(output);
    assert.ok(visible!.items.some((i) => /\bdeclaración\b/u.test(i.text)), 'the visible text is translated');
  });
});
