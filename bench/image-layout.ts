// Image layout figures (issue 34): self-made screenshots and a table (test/documents/image-layout-images.ts) run
// through the PNG format with real Tesseract and a fixed engine; per image the words that were not replaced (the
// source's words outside every translated segment) whose pixels changed in the output, and the tokens with digits
// (identifiers, numbers) still read in the output or left untouched. `--format=PATH` names another build's
// image-format.js module (the baseline).
//
// Run: npm run build --silent && node dist/bench/image-layout.js [--format=/other/dist/src/documents/formats/image/image-format.js]

import { pathToFileURL } from 'node:url';
import type { DocumentFormat } from '../src/documents/formats/format.js';
import type { TextRecognizer } from '../src/documents/formats/image/text-recognizer.js';
import { TesseractRecognizer } from '../src/documents/ocr/tesseract-recognizer.js';
import { blanks, checkImageLayout } from '../test/documents/image-layout-check.js';
import { screenshotBesideShortWord, screenshotWithIdentifiers, shortCellTable, type LayoutImage } from '../test/documents/image-layout-images.js';
import { benchArgs } from './args.js';

const args = benchArgs();
const modulePath = args.get('format') ?? new URL('../src/documents/formats/image/image-format.js', import.meta.url).pathname;
const mod = (await import(pathToFileURL(modulePath).href)) as { createImageFormat: (type: 'png', r: TextRecognizer) => DocumentFormat };
const tesseract = new TesseractRecognizer();
const format = mod.createImageFormat('png', tesseract);

const images: [string, LayoutImage][] = [
  ['UI row: long translation beside a short word', screenshotBesideShortWord()],
  ['table of short cells', shortCellTable()],
  ['screenshot with identifiers and a vertical stamp', screenshotWithIdentifiers()],
];

console.log('| image | untranslated words painted over | tokens with digits kept |');
console.log('|---|---|---|');
for (const [name, image] of images) {
  const doc = await format.extract(image.png, { sourceLang: 'en', targetLang: 'es' });
  const sources = doc.segments.map((s) => s.text);
  const translations = sources.map(image.translate);
  const erasedOnly = await (await format.extract(image.png, { sourceLang: 'en', targetLang: 'es' })).rebuild(blanks(sources, translations));
  const r = await checkImageLayout(tesseract, image.png, await doc.rebuild(translations), erasedOnly, sources, translations);
  const painted = r.paintedOver.length ? ` (${r.paintedOver.map((w) => w.text).join(', ')})` : '';
  console.log(`| ${name} | ${r.paintedOver.length} of ${r.untranslated.length}${painted} | ${r.keptDigitTokens} of ${r.digitTokens} |`);
}
