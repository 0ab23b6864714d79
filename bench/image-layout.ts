// Image layout figures (issue 34): self-made screenshots and a table (test/documents/image-layout-images.ts) run
// through the PNG format with real Tesseract and a fixed engine; per image the words that were not replaced (the
// source's words outside every translated segment) whose pixels changed in the output, and the tokens with digits
// (identifiers, numbers) still read in the output or left untouched. `--format=PATH` names another build's
// image-format.js module (the baseline).
//
// Run: npm run build --silent && node dist/bench/image-layout.js [--format=/other/dist/src/documents/formats/image/image-format.js]

import { createCanvas, loadImage } from '@napi-rs/canvas';
import { pathToFileURL } from 'node:url';
import type { DocumentFormat } from '../src/documents/formats/format.js';
import type { Box } from '../src/documents/formats/image/paragraphs.js';
import type { RecognizedWord, RgbImage, TextRecognizer } from '../src/documents/formats/image/text-recognizer.js';
import { TesseractRecognizer } from '../src/documents/ocr/tesseract-recognizer.js';
import { screenshotBesideShortWord, screenshotWithIdentifiers, shortCellTable, type LayoutImage } from '../test/documents/image-layout-images.js';
import { benchArgs } from './args.js';

const args = benchArgs();
const modulePath = args.get('format') ?? new URL('../src/documents/formats/image/image-format.js', import.meta.url).pathname;
const mod = (await import(pathToFileURL(modulePath).href)) as { createImageFormat: (type: 'png', r: TextRecognizer) => DocumentFormat };
const tesseract = new TesseractRecognizer();
const format = mod.createImageFormat('png', tesseract);

async function decode(png: Buffer): Promise<{ width: number; height: number; data: Uint8ClampedArray; rgb: RgbImage }> {
  const img = await loadImage(png);
  const ctx = createCanvas(img.width, img.height).getContext('2d');
  ctx.drawImage(img, 0, 0);
  const { data } = ctx.getImageData(0, 0, img.width, img.height);
  const rgb = Buffer.alloc(img.width * img.height * 3);
  for (let i = 0, j = 0; i < data.length; i += 4, j += 3) rgb.set(data.subarray(i, i + 3), j);
  return { width: img.width, height: img.height, data, rgb: { width: img.width, height: img.height, rgb } };
}

/** Whether any pixel of the box (grown by one) differs by more than 48 in a channel. */
function touched(a: { width: number; data: Uint8ClampedArray }, b: { data: Uint8ClampedArray }, box: Box): boolean {
  for (let y = box.top - 1; y <= box.top + box.height; y++) {
    for (let x = box.left - 1; x <= box.left + box.width; x++) {
      const i = (y * a.width + x) * 4;
      if ([0, 1, 2].some((c) => Math.abs(a.data[i + c]! - b.data[i + c]!) > 48)) return true;
    }
  }
  return false;
}

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
  const out = await doc.rebuild(translations);
  const [before, after] = [await decode(image.png), await decode(out)];
  const replaced = new Set(sources.flatMap((s, i) => (translations[i] === s ? [] : s.split(' '))));
  const source = (await tesseract.recognize(before.rgb, 'en')).filter((w) => /[\p{L}\p{N}]/u.test(w.text) && w.confidence >= 60);
  const untranslated = source.filter((w) => !replaced.has(w.text));
  const paintedOver = untranslated.filter((w) => touched(before, after, w));
  const digits = (ws: RecognizedWord[]) => ws.filter((w) => /\d/u.test(w.text) && w.height < w.width);
  const read = new Set(digits(await tesseract.recognize(after.rgb, 'es')).map((w) => w.text));
  const tokens = digits(source);
  const kept = tokens.filter((w) => read.has(w.text) || !touched(before, after, w));
  console.log(`| ${name} | ${paintedOver.length} of ${untranslated.length}${paintedOver.length ? ` (${paintedOver.map((w) => w.text).join(', ')})` : ''} | ${kept.length} of ${tokens.length} |`);
}
