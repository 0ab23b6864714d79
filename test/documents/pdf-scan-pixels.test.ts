// A real scanned PDF page (test/fixtures/real-documents/r-intro-p14-scan.pdf, no text layer) translated as the document
// worker does it, by real Tesseract and Apertium: a word the recognizer was unsure of (and misread) keeps its own
// pixels in the translated page, in the PDF and in its docx conversion, instead of being painted as it was read.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createPdfFormat } from '../../src/documents/formats/pdf.js';
import { TesseractRecognizer } from '../../src/documents/ocr/tesseract-recognizer.js';
import { CORPUS_DIR } from './real-documents.js';
import { checkScanPixels } from './scan-pixels-check.js';

describe('a scanned PDF page: unsure words keep their pixels', () => {
  it('a misread word the recognizer was unsure of is found unchanged in the translated page (PDF and docx)', async () => {
    const unsure = await checkScanPixels(createPdfFormat, readFileSync(`${CORPUS_DIR}r-intro-p14-scan.pdf`), new TesseractRecognizer());
    assert.ok(unsure.length > 0, 'Tesseract was unsure of no word inline on the page');
    for (const w of unsure) {
      const what = `"${w.text}" in "${w.paragraph}…"`;
      assert.ok(w.repainted, `${what}: its paragraph was not painted anew`);
      assert.ok(w.inPdf, `${what}: its pixels are not in the translated PDF page`);
      assert.ok(w.inDocx, `${what}: its pixels are not in the docx's page picture`);
    }
  });
});
