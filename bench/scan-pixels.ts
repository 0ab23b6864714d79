// Unsure words of scanned PDF pages (issue 43 item 4): each scan of test/fixtures/real-documents (the scanned PDF, and
// the scan images made PDF pages at 150 dpi as img2pdf does) translated en→es by Apertium as the document worker does
// it; per page the words Tesseract was unsure of and kept inline, and how many of them keep their original pixels in
// the translated PDF page and in its docx conversion (test/documents/scan-pixels-check.ts). `--src=DIR` names another
// build's dist/src (the baseline) whose PDF format is measured instead.
//
// Run: npm run build --silent && node dist/bench/scan-pixels.js [--src=/other/dist/src]

import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { DocumentFormat } from '../src/documents/formats/format.js';
import type { TextRecognizer } from '../src/documents/formats/image/text-recognizer.js';
import { TesseractRecognizer } from '../src/documents/ocr/tesseract-recognizer.js';
import { CORPUS_DIR } from '../test/documents/real-documents.js';
import { checkScanPixels, scanPdf } from '../test/documents/scan-pixels-check.js';
import { benchArgs } from './args.js';

const src = benchArgs().get('src') ?? new URL('../src/', import.meta.url).pathname;
const { createPdfFormat } = (await import(pathToFileURL(`${src}/documents/formats/pdf.js`).href)) as { createPdfFormat: (r: TextRecognizer) => DocumentFormat };
const tesseract = new TesseractRecognizer();
const scans: [string, () => Promise<Buffer>][] = [
  ['r-intro-p14-scan.pdf', async () => readFileSync(`${CORPUS_DIR}r-intro-p14-scan.pdf`)],
  ['octave-p200-scan.png as a PDF page', () => scanPdf(readFileSync(`${CORPUS_DIR}octave-p200-scan.png`))],
  ['r-data-p25-scan.jpg as a PDF page', () => scanPdf(readFileSync(`${CORPUS_DIR}r-data-p25-scan.jpg`))],
];
console.log('| scanned page | unsure words kept inline | in a repainted paragraph | pixels kept in the PDF | pixels kept in the docx |');
console.log('|---|---|---|---|---|');
for (const [name, input] of scans) {
  const words = await checkScanPixels(createPdfFormat, await input(), tesseract);
  const repainted = words.filter((w) => w.repainted);
  const listed = repainted.map((w) => `${w.inPdf ? '✓' : '✗'}${w.text}`).join(', ');
  console.log(`| ${name} | ${words.length} | ${repainted.length}${listed ? ` (${listed})` : ''} | ${repainted.filter((w) => w.inPdf).length} | ${repainted.filter((w) => w.inDocx).length} |`);
}
