// Test helper: a scanned PDF translated as the document worker does it (through the markup layer where the format
// offers translateWith, else rebuild), by real Tesseract and Apertium; for each word the recognizer was unsure of and
// kept inline in a paragraph, whether its original pixels are found in the translated page. Shared by
// test/documents/pdf-scan-pixels.test.ts and bench/scan-pixels.ts.
import { PDFDocument } from 'pdf-lib';
import { DEFAULT_PIXEL_LIMITS, type DocumentFormat } from '../../src/documents/formats/format.js';
import { paragraphsOf, type Box } from '../../src/documents/formats/image/paragraphs.js';
import type { RecognizedWord, RgbImage, TextRecognizer } from '../../src/documents/formats/image/text-recognizer.js';
import { ocrRendering } from '../../src/documents/formats/pdf/ocr-pages.js';
import { renderPages } from '../../src/documents/formats/pdf/page-render.js';
import { unzipAll } from '../helpers/zip.js';
import { decodeImage, findCrop } from './image-layout-check.js';
import { apertiumEnEs } from './pdf-layout-check.js';

interface Image {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

export interface UnsureWord {
  /** As the recognizer read it, and the start of its paragraph. */
  text: string;
  paragraph: string;
  /** Its paragraph's first line changed in the PDF output (the paragraph was translated and painted anew). */
  repainted: boolean;
  /** Its pixels found in the translated PDF page, up to three lines away (within 64 per channel: the page picture is a JPEG). */
  inPdf: boolean;
  /** Its pixels found in the docx conversion's page picture (a PNG: within 8 per channel). */
  inDocx: boolean;
}

/** A scan image as a PDF page without a text layer, at `dpi` (what img2pdf makes of it). */
export async function scanPdf(image: Buffer, dpi = 150): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const embedded = image[0] === 0x89 ? await doc.embedPng(image) : await doc.embedJpg(image);
  const [width, height] = [(embedded.width * 72) / dpi, (embedded.height * 72) / dpi];
  doc.addPage([width, height]).drawImage(embedded, { x: 0, y: 0, width, height });
  return Buffer.from(await doc.save());
}

/** Page 1 of a scanned PDF translated en→es (PDF and docx), and what became of its unsure words' pixels. */
export async function checkScanPixels(createPdfFormat: (r: TextRecognizer) => DocumentFormat, input: Buffer, tesseract: TextRecognizer): Promise<UnsureWord[]> {
  let source: Image | undefined;
  let words: RecognizedWord[] = [];
  // real OCR, watched: what the page looked like to the recognizer and what it read
  const recognizer: TextRecognizer = {
    async recognize(image, language, signal) {
      source ??= rgba(image);
      const read = await tesseract.recognize(image, language, signal);
      if (words.length === 0) words = read;
      return read;
    },
  };
  const doc = await createPdfFormat(recognizer).extract(input, { sourceLang: 'en', targetLang: 'es' });
  if (!source) throw new Error('the page was not read by the recognizer');
  const texts = () => apertiumEnEs(doc.segments.map((s) => s.text));
  const translate = (as?: string) =>
    doc.translateWith ? doc.translateWith(async (t) => apertiumEnEs(t), as) : as === undefined ? doc.rebuild(texts()) : doc.rebuildAs!(as, texts());
  const pdfPage = await pagePixels(await translate());
  const pictures = (await unzipAll(await translate('docx'))).filter(([name]) => /^word\/media\/.*\.png$/u.test(name));
  if (pictures.length !== 1) throw new Error(`the docx has ${pictures.length} page pictures`);
  const docxPage = await decodeImage(pictures[0]![1]);
  const page = source;
  return paragraphsOf(words, page).flatMap((p) =>
    p.inline.map((w) => ({
      text: w.text,
      paragraph: p.text.slice(0, 60),
      repainted: changedShare(page, pdfPage, p.lines[0]!) > 0.02,
      // a translation's lines wrap elsewhere: the word may have moved to a line above or below
      inPdf: findCrop(page, w.box, pdfPage, 64, 3 * w.line.height) !== undefined,
      inDocx: findCrop(page, w.box, docxPage, 8, 3 * w.line.height) !== undefined,
    })),
  );
}

function rgba({ width, height, rgb }: RgbImage): Image {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0, j = 0; j < rgb.length; i += 4, j += 3) data.set([rgb[j]!, rgb[j + 1]!, rgb[j + 2]!, 255], i);
  return { width, height, data };
}

/** Page 1 of a PDF drawn as recognition draws it (the scale the page was read and painted at). */
async function pagePixels(pdf: Buffer): Promise<Image> {
  let image: Image | undefined;
  await renderPages(pdf, [0], ocrRendering(DEFAULT_PIXEL_LIMITS), async (_n, canvas) => {
    image = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
  });
  if (!image) throw new Error('the translated page could not be drawn');
  return image;
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
