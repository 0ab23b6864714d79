// Pages without a usable text layer (scans, text in fonts that cannot be read back): each is rendered by pdf.js,
// read by the recognizer, and translated as an image is: paragraph by paragraph, painted over a cleaned background
// (the image formats' painter); the painted picture becomes the page.
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { flattenToRgb } from '../image/image-format.js';
import { paragraphsOf } from '../image/paragraphs.js';
import { paint, planParagraph, type PaintPlan } from '../image/text-painter.js';
import type { TextRecognizer } from '../image/text-recognizer.js';
import { renderPages } from './page-render.js';

/** Pixels per point a page is read and painted at (216 dpi: Tesseract reads 9-point text reliably). */
const OCR_SCALE = 3;

export interface RecognizedPage {
  /** Page index (0-based). */
  page: number;
  /** The page as rendered (PNG), painted over at rebuild. */
  rendered: Buffer;
  /** Size in points of the page box it shows. */
  width: number;
  height: number;
  texts: string[];
  plans: PaintPlan[];
}

export interface RecognizeOptions {
  language: string | undefined;
  signal?: AbortSignal;
}

/** The pages given, read by the recognizer; pages where it finds no text are left out. */
export async function recognizePages(input: Buffer, pages: readonly number[], recognizer: TextRecognizer, options: RecognizeOptions): Promise<RecognizedPage[]> {
  const out: RecognizedPage[] = [];
  await renderPages(input, pages, OCR_SCALE, async (page, canvas) => {
    const ctx = canvas.getContext('2d');
    const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height);
    const paragraphs = paragraphsOf(await recognizer.recognize(flattenToRgb(pixels), options.language, options.signal));
    if (paragraphs.length === 0) return;
    out.push({
      page,
      rendered: await canvas.encode('png'),
      width: canvas.width / OCR_SCALE,
      height: canvas.height / OCR_SCALE,
      texts: paragraphs.map((p) => p.text),
      plans: paragraphs.map((p) => planParagraph(pixels, p)),
    });
  });
  return out;
}

/** The page's picture with each paragraph's translation painted over its text (PNG). */
export async function paintPage(page: RecognizedPage, translations: readonly string[]): Promise<Buffer> {
  const image = await loadImage(page.rendered);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  paint(ctx, page.plans, translations);
  return canvas.encode('png');
}

/** Says which pages were read by text recognition. */
export function ocrNotice(pages: readonly number[]): string {
  const shown = pages.length > 20 ? `${pages.slice(0, 20).join(', ')} and ${pages.length - 20} more` : pages.join(', ');
  return `Text recognition (OCR) read ${pages.length === 1 ? 'page' : 'pages'} ${shown}: they have no usable text layer, and their translation is painted into the page's picture.`;
}
