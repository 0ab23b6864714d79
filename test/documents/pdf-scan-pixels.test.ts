// A real scanned PDF page (test/fixtures/real-documents/r-intro-p14-scan.pdf, no text layer) translated as the document
// worker does it, by real Tesseract and Apertium: a word the recognizer was unsure of (and misread) keeps its own
// pixels in the translated page, in the PDF and in its docx conversion, instead of being painted as it was read.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { DEFAULT_PIXEL_LIMITS } from '../../src/documents/formats/format.js';
import { createPdfFormat } from '../../src/documents/formats/pdf.js';
import { paragraphsOf, type Box, type ImageParagraph } from '../../src/documents/formats/image/paragraphs.js';
import type { RecognizedWord, RgbImage, TextRecognizer } from '../../src/documents/formats/image/text-recognizer.js';
import { ocrRendering } from '../../src/documents/formats/pdf/ocr-pages.js';
import { renderPages } from '../../src/documents/formats/pdf/page-render.js';
import { TesseractRecognizer } from '../../src/documents/ocr/tesseract-recognizer.js';
import { unzipAll } from '../helpers/zip.js';
import { apertiumEnEs } from './pdf-layout-check.js';
import { CORPUS_DIR } from './real-documents.js';

interface Image {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

const rgba = ({ width, height, rgb }: RgbImage): Image => {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0, j = 0; j < rgb.length; i += 4, j += 3) data.set([rgb[j]!, rgb[j + 1]!, rgb[j + 2]!, 255], i);
  return { width, height, data };
};

/** Page 1 of a PDF drawn as recognition draws it (the scale the page was read and painted at). */
async function pagePixels(pdf: Buffer): Promise<Image> {
  let image: Image | undefined;
  await renderPages(pdf, [0], ocrRendering(DEFAULT_PIXEL_LIMITS), async (_n, canvas) => {
    image = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
  });
  assert.ok(image, 'the page is drawn');
  return image;
}

/** Where the pixels of `box` in `a` appear in `b` (each channel within `tolerance`), searched near the same rows. */
function findCrop(a: Image, box: Box, b: Image, tolerance: number): { left: number; top: number } | undefined {
  const equalAt = (left: number, top: number) => {
    for (let y = 0; y < box.height; y++) {
      for (let x = 0; x < box.width; x++) {
        const [i, j] = [((box.top + y) * a.width + box.left + x) * 4, ((top + y) * b.width + left + x) * 4];
        if ([0, 1, 2].some((c) => Math.abs(a.data[i + c]! - b.data[j + c]!) > tolerance)) return false;
      }
    }
    return true;
  };
  for (let top = Math.max(0, box.top - box.height); top <= Math.min(b.height - box.height, box.top + box.height); top++) {
    for (let left = 0; left <= b.width - box.width; left++) if (equalAt(left, top)) return { left, top };
  }
  return undefined;
}

/** Share of the pixels of `area` that differ (any channel by more than 48) between two images of one size. */
function changedShare(a: Image, b: Image, area: Box): number {
  let n = 0;
  for (let y = area.top; y < area.top + area.height; y++) {
    for (let x = area.left; x < area.left + area.width; x++) {
      const i = (y * a.width + x) * 4;
      if ([0, 1, 2].some((c) => Math.abs(a.data[i + c]! - b.data[i + c]!) > 48)) n++;
    }
  }
  return n / (area.width * area.height);
}

describe('a scanned PDF page: unsure words keep their pixels', () => {
  it('a misread word the recognizer was unsure of is found unchanged in the translated page (PDF and docx)', async () => {
    const tesseract = new TesseractRecognizer();
    let source: Image | undefined;
    let words: RecognizedWord[] = [];
    // real OCR, watched: what the page looked like to the recognizer and what it read
    const recognizer: TextRecognizer = {
      async recognize(image, language, signal) {
        source = rgba(image);
        words = await tesseract.recognize(image, language, signal);
        return words;
      },
    };
    const input = readFileSync(`${CORPUS_DIR}r-intro-p14-scan.pdf`);
    const doc = await createPdfFormat(recognizer).extract(input, { sourceLang: 'en', targetLang: 'es' });
    assert.ok(source, 'the page was read by the recognizer');
    // the unsure words kept inline in a paragraph, and the paragraph they stand in
    const unsure = paragraphsOf(words, source).flatMap((p: ImageParagraph) => p.inline.map((w) => ({ w, p })));
    assert.ok(unsure.length > 0, `Tesseract was unsure of no word inline: ${words.map((w) => `${w.text}:${Math.round(w.confidence)}`).join(' ')}`);
    // as the document worker translates: through the markup layer where the format offers it
    const translate = (as?: string) =>
      doc.translateWith
        ? doc.translateWith(async (texts) => apertiumEnEs(texts), as)
        : as === undefined
          ? doc.rebuild(apertiumEnEs(doc.segments.map((s) => s.text)))
          : doc.rebuildAs!(as, apertiumEnEs(doc.segments.map((s) => s.text)));
    const pdfPage = await pagePixels(await translate());
    const docx = new Map(await unzipAll(await translate('docx')));
    const pictures = [...docx].filter(([name]) => /^word\/media\/.*\.png$/u.test(name));
    assert.equal(pictures.length, 1, [...docx.keys()].join(', '));
    const image = await loadImage(pictures[0]![1]);
    const c = createCanvas(image.width, image.height);
    c.getContext('2d').drawImage(image, 0, 0);
    const docxPage = c.getContext('2d').getImageData(0, 0, image.width, image.height);
    for (const { w, p } of unsure) {
      const what = `"${w.text}" in "${p.text.slice(0, 60)}…"`;
      // its paragraph was translated and painted anew, not left as it was
      assert.ok(changedShare(source, pdfPage, p.lines[0]!) > 0.02, `${what}: its paragraph's first line is unchanged`);
      // the PDF's page picture is a JPEG: its pixels are close, not equal; the docx's is a PNG
      assert.ok(findCrop(source, w.box, pdfPage, 64), `${what}: its pixels are not in the translated PDF page`);
      assert.ok(findCrop(source, w.box, docxPage, 8), `${what}: its pixels are not in the docx's page picture`);
    }
  });
});
