// The layout checker on pages with the features that used to go wrong: after translation no text item lies over
// another where the source had none, and the source's numbers are still there.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPdfFormat, pdfFormat } from '../../src/documents/formats/pdf.js';
import { TesseractRecognizer } from '../../src/documents/ocr/tesseract-recognizer.js';
import { buildPdf, type PageSpec } from './pdf-builder.js';
import { apertiumEnEs, checkLayout, functionWords, longer, overlappingPairs, textBoxes } from './pdf-layout-check.js';
import { contentsPage, furniturePage, paperPage, SCANNED_TEXT, scannedPage, wikiPage } from './pdf-layout-pages.js';
import { ocrPage } from './pdf-ocr.js';
import { unzipAll } from '../helpers/zip.js';

async function translate(spec: PageSpec) {
  const source = await buildPdf([spec]);
  const doc = await pdfFormat.extract(source, { targetLang: 'es' });
  const output = await doc.rebuild(doc.segments.map((s) => longer(s.text)));
  return { source, output, segments: doc.segments.map((s) => s.text), report: await checkLayout(source, output) };
}

const PAGES: [string, PageSpec][] = [
  ['a wiki-style page with two columns, an infobox and links', wikiPage],
  ['a table of contents with leaders and page numbers', contentsPage],
  ["a paper's first page with superscripted affiliations", paperPage],
  ['a page with a slug line, a colour-bar strip and a vertical stamp', furniturePage],
];

describe('PDF layout checker', () => {
  it('finds text drawn over text, and no overlap on the source pages', async () => {
    const source = await buildPdf(PAGES.map(([, spec]) => spec));
    for (const [n, items] of (await textBoxes(source)).entries()) assert.deepEqual(overlappingPairs(items), [], `source page ${n + 1}`);
    const box = { x0: 0, y0: 0, x1: 40, y1: 10 };
    assert.equal(overlappingPairs([{ text: 'a', ...box }, { text: 'b', ...box, x0: 30, x1: 70, y0: 3, y1: 13 }]).length, 1);
    // touching neighbours on a line and a superscript after its word are not overlaps
    assert.equal(overlappingPairs([{ text: 'a', ...box }, { text: '1', x0: 40, x1: 44, y0: 6, y1: 12 }, { text: 'b', ...box, x0: 44, x1: 60 }]).length, 0);
  });

  for (const [name, spec] of PAGES) {
    it(`${name}: no new overlaps, numbers kept`, async () => {
      const { report, source, output } = await translate(spec);
      assert.deepEqual(report.newOverlaps, [0], report.examples.join('; '));
      // turned text stays turned
      const angles = async (pdf: Buffer) => new Set((await textBoxes(pdf))[0]!.map((i) => i.angle));
      assert.deepEqual(await angles(output), await angles(source));
      assert.ok(report.keptNumbers >= 0.95 * report.sourceNumbers, `${report.keptNumbers} of ${report.sourceNumbers} number tokens kept`);
    });
  }

  it("a paper's affiliations are one segment each, not one run", async () => {
    const { segments } = await translate(paperPage);
    assert.ok(segments.includes('1 School of the River, Stillwater 4410, Northland'), segments.join(' | '));
    assert.ok(segments.includes('2 Institute of the Coast, Harbour Road 17, Eastport'), segments.join(' | '));
  });

  it('a scanned page (no text layer) is read by OCR, translated and named in the notice; its text pages stay text', async () => {
    const source = await buildPdf([paperPage, await scannedPage()]);
    const doc = await createPdfFormat(new TesseractRecognizer()).extract(source, { sourceLang: 'en', targetLang: 'es' });
    assert.match(String(doc.notice), /Text recognition \(OCR\) read page 2:/u);
    const sent = doc.segments.map((s) => s.text).join(' ');
    for (const p of SCANNED_TEXT) assert.ok(sent.replace(/\s+/gu, ' ').includes(p.split(' ').slice(0, 4).join(' ')), sent);
    const output = await doc.rebuild(apertiumEnEs(doc.segments.map((s) => s.text)));
    const read = functionWords(ocrPage(output, 2));
    assert.ok(read.spanish >= 10 && read.english <= 2, JSON.stringify(read));
    const [textPage, scanPage] = await textBoxes(output);
    assert.ok(textPage!.length > 20 && scanPage!.length === 0, 'the text page is drawn as text, the scanned one as its picture');
    const report = await checkLayout(source, output);
    assert.deepEqual(report.newOverlaps, [0, 0], report.examples.join('; '));
    // a Word conversion shows the recognized page as its painted picture
    const names = (await unzipAll(await doc.rebuildAs!('docx', apertiumEnEs(doc.segments.map((s) => s.text))))).map(([name]) => name);
    assert.ok(names.some((name) => /^word\/media\/.+\.png$/u.test(name)), names.join(' '));
  });
});
