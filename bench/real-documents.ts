// Real-document figures (issue 43): every file of test/fixtures/real-documents translated en→es by Apertium and
// measured by the layout checker (test/documents/real-documents.ts), a row per page or image. `--src=DIR` names another
// build's dist/src (the baseline) whose PDF and image formats are measured instead; `--only=SUBSTRING` picks files.
//
// Run: npm run build --silent && node dist/bench/real-documents.js [--src=/other/dist/src] [--only=acmart]

import { pathToFileURL } from 'node:url';
import type { DocumentFormat } from '../src/documents/formats/format.js';
import type { TextRecognizer } from '../src/documents/formats/image/text-recognizer.js';
import { TesseractRecognizer } from '../src/documents/ocr/tesseract-recognizer.js';
import { corpusFiles, figuresTable, measureFile } from '../test/documents/real-documents.js';
import { benchArgs } from './args.js';

const args = benchArgs();
const src = args.get('src') ?? new URL('../src/', import.meta.url).pathname;
const load = async <T>(path: string) => (await import(pathToFileURL(`${src}/${path}`).href)) as T;
const { createPdfFormat } = await load<{ createPdfFormat: (r: TextRecognizer) => DocumentFormat }>('documents/formats/pdf.js');
const { createImageFormat } = await load<{ createImageFormat: (t: 'png' | 'jpeg', r: TextRecognizer) => DocumentFormat }>('documents/formats/image/image-format.js');
const tesseract = new TesseractRecognizer();
const formats = { pdf: createPdfFormat(tesseract), png: createImageFormat('png', tesseract), jpeg: createImageFormat('jpeg', tesseract) };

const only = args.get('only');
const figures = [];
for (const file of corpusFiles().filter((f) => !only || f.includes(only))) {
  const started = Date.now();
  figures.push(await measureFile(file, formats, tesseract));
  console.error(`${file}: ${((Date.now() - started) / 1000).toFixed(1)} s; ${figures.at(-1)!.examples.slice(0, 8).join('; ')}`);
}
console.log(figuresTable(figures));
