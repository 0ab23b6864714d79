// PDF layout figures (issue 34): the layout checker's test pages (wiki-style columns with an infobox and links, a table
// of contents with leaders, a paper's first page, printer's furniture, a scanned page) translated en→es by Apertium;
// per page the text items drawn over one another in the output beyond the source's, the number tokens kept, and for
// the scanned page the function words its OCR reads. `--format=PATH` names another build's pdf.js module (the
// baseline: an older build has no text recognition).
//
// Run: npm run build --silent && node dist/bench/pdf-layout.js [--format=/other/dist/src/documents/formats/pdf.js]

import { pathToFileURL } from 'node:url';
import type { DocumentFormat } from '../src/documents/formats/format.js';
import type { TextRecognizer } from '../src/documents/formats/image/text-recognizer.js';
import { TesseractRecognizer } from '../src/documents/ocr/tesseract-recognizer.js';
import { buildPdf, type PageSpec } from '../test/documents/pdf-builder.js';
import { apertiumEnEs, checkLayout, functionWords } from '../test/documents/pdf-layout-check.js';
import { contentsPage, furniturePage, paperPage, scannedPage, wikiPage } from '../test/documents/pdf-layout-pages.js';
import { ocrPage } from '../test/documents/pdf-ocr.js';
import { benchArgs } from './args.js';

const args = benchArgs();
const modulePath = args.get('format') ?? new URL('../src/documents/formats/pdf.js', import.meta.url).pathname;
const mod = (await import(pathToFileURL(modulePath).href)) as { pdfFormat: DocumentFormat; createPdfFormat?: (r: TextRecognizer) => DocumentFormat };
const format = mod.createPdfFormat ? mod.createPdfFormat(new TesseractRecognizer()) : mod.pdfFormat;

const pages: [string, PageSpec][] = [
  ['wiki-style page', wikiPage],
  ['table of contents', contentsPage],
  ["paper's first page", paperPage],
  ['slug, colour bar, stamp', furniturePage],
  ['scanned page', await scannedPage()],
];

console.log(`| page | new overlapping pairs | number tokens kept | OCR of the output: English / Spanish function words |`);
console.log(`|---|---|---|---|`);
for (const [name, spec] of pages) {
  // each page follows a text page, so a document whose only page is scanned is not refused
  const source = await buildPdf([wikiPage, spec]);
  let output: Buffer;
  try {
    const doc = await format.extract(source, { sourceLang: 'en', targetLang: 'es' });
    output = await doc.rebuild(apertiumEnEs(doc.segments.map((s) => s.text)));
  } catch (err) {
    console.log(`| ${name} | failed: ${(err as Error).message} | | |`);
    continue;
  }
  const report = await checkLayout(source, output);
  const ocr = name === 'scanned page' ? functionWords(ocrPage(output, 2)) : undefined;
  const numbers = `${report.keptNumbers} of ${report.sourceNumbers} (${((100 * report.keptNumbers) / Math.max(1, report.sourceNumbers)).toFixed(0)} %)`;
  console.log(`| ${name} | ${report.newOverlaps[1]} | ${numbers} | ${ocr ? `${ocr.english} / ${ocr.spanish}` : ''} |`);
}
