// Pages without a usable text layer (scans, text in fonts that cannot be read back): each is rendered by pdf.js,
// read by the recognizer, and translated as an image is: paragraph by paragraph, painted over a cleaned background
// (the image formats' painter); the painted picture becomes the page. Pages are rendered again to be painted, so no
// page's pixels are held between the two steps.
import type { Canvas } from '@napi-rs/canvas';
import { flattenToRgb } from '../image/image-format.js';
import { paragraphsOf } from '../image/paragraphs.js';
import { paint, planParagraphs, type PaintPlan } from '../image/text-painter.js';
import type { TextRecognizer } from '../image/text-recognizer.js';
import { renderPages } from './page-render.js';

/** Pixels per point a page is read and painted at (216 dpi: Tesseract reads 9-point text reliably). */
const OCR_SCALE = 3;

export interface RecognizedPage {
  /** Page index (0-based). */
  page: number;
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

/**
 * How long pages are read in all: the rest are kept as they are (and named), so a long scan finishes within the
 * format's time budget (two minutes by default) with its first pages translated rather than failing whole.
 */
const OCR_BUDGET_MS = 60_000;

export interface Recognition {
  pages: RecognizedPage[];
  /** Pages not read: the time for recognition ran out before them. */
  unread: number[];
}

/** The pages given, read by the recognizer; pages where it finds no text are left out. */
export async function recognizePages(input: Buffer, pages: readonly number[], recognizer: TextRecognizer, options: RecognizeOptions): Promise<Recognition> {
  const out: RecognizedPage[] = [];
  const started = Date.now();
  const unread = new Set(pages);
  await renderPages(input, pages, OCR_SCALE, async (page, canvas) => {
    if (Date.now() - started > OCR_BUDGET_MS) return 'stop';
    unread.delete(page);
    const ctx = canvas.getContext('2d');
    const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height);
    const words = await recognizer.recognize(flattenToRgb(pixels), options.language, options.signal);
    const paragraphs = paragraphsOf(words, pixels);
    if (paragraphs.length === 0) return;
    out.push({
      page,
      width: canvas.width / OCR_SCALE,
      height: canvas.height / OCR_SCALE,
      texts: paragraphs.map((p) => p.text),
      plans: planParagraphs(pixels, paragraphs, words),
    });
  });
  return { pages: out, unread: [...unread] };
}

/** JPEG quality of a painted page in a PDF: a scan's grain makes a lossless page several megabytes. */
const PAGE_JPEG_QUALITY = 85;

/**
 * Each recognized page rendered again with its paragraphs' translations painted over their text: JPEG for a PDF
 * page, PNG for a picture in a Word document. `translations` are the pages' texts in order, page after page.
 */
export async function paintPages(input: Buffer, pages: readonly RecognizedPage[], translations: readonly string[], as: 'jpeg' | 'png'): Promise<Map<number, Buffer>> {
  const byPage = new Map<number, { page: RecognizedPage; translations: readonly string[] }>();
  let at = 0;
  for (const page of pages) {
    byPage.set(page.page, { page, translations: page.texts.map((t, k) => translations[at + k] ?? t) });
    at += page.texts.length;
  }
  const out = new Map<number, Buffer>();
  await renderPages(input, [...byPage.keys()], OCR_SCALE, async (n, canvas: Canvas) => {
    const { page, translations: texts } = byPage.get(n)!;
    paint(canvas.getContext('2d'), page.plans, texts);
    out.set(n, as === 'jpeg' ? await canvas.encode('jpeg', PAGE_JPEG_QUALITY) : await canvas.encode('png'));
  });
  return out;
}

const listed = (pages: readonly number[]) => (pages.length > 20 ? `${pages.slice(0, 20).join(', ')} and ${pages.length - 20} more` : pages.join(', '));

/** Says which pages (1-based) were read by text recognition, and which were not for lack of time. */
export function ocrNotice(read: readonly number[], unread: readonly number[]): string {
  const done = read.length > 0 ? `Text recognition (OCR) read ${read.length === 1 ? 'page' : 'pages'} ${listed(read)}: they have no usable text layer, and their translation is painted into the page's picture.` : '';
  const left = unread.length > 0 ? `${unread.length === 1 ? 'Page' : 'Pages'} ${listed(unread)} without a usable text layer were not read (time limit for text recognition) and are kept as they are.` : '';
  return [done, left].filter(Boolean).join(' ');
}
