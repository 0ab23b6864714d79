// Pages without a usable text layer (scans, text in fonts that cannot be read back): each is rendered by pdf.js,
// read by the recognizer, and translated as an image is: paragraph by paragraph, painted over a cleaned background
// (the image formats' painter); the painted picture becomes the page. Pages are rendered again to be painted, so no
// page's pixels are held between the two steps.
import type { Canvas } from '@napi-rs/canvas';
import type { TaggedText } from '../../../markup/index.js';
import type { PixelLimits } from '../format.js';
import { flattenToRgb } from '../image/image-format.js';
import { paragraphsOf } from '../image/paragraphs.js';
import type { PaintedText } from '../image/inline-words.js';
import { paint, planParagraphs, type PaintPlan } from '../image/text-painter.js';
import type { TextRecognizer } from '../image/text-recognizer.js';
import { releaseCanvas, renderPages, type RenderOptions } from './page-render.js';

/** Pixels per point a page is read and painted at (216 dpi: Tesseract reads 9-point text reliably). */
const OCR_SCALE = 3;
/**
 * The least a page over the pixel cap is read at (108 dpi: 10-point text is still read); a page that fits only
 * below it is not read at all, since its text would come out as noise.
 */
export const MIN_OCR_SCALE = 1.5;

export interface RecognizedPage {
  /** Page index (0-based). */
  page: number;
  /** Size in points of the page box it shows. */
  width: number;
  height: number;
  texts: string[];
  /** Each paragraph as the markup layer translates it: its unsure words are empty tags (painted as their pixels). */
  units: TaggedText[];
  plans: PaintPlan[];
}

export interface RecognizeOptions {
  language: string | undefined;
  signal?: AbortSignal;
  limits: PixelLimits;
}

/**
 * How long pages are read in all: the rest are kept as they are (and named), so a long scan finishes within the
 * format's time budget (two minutes by default) with its first pages translated rather than failing whole.
 */
export const OCR_BUDGET_MS = 60_000;

export interface Recognition {
  pages: RecognizedPage[];
  /** Pages not read: the time or the pixels for recognition in one document ran out before them. */
  unread: number[];
  /** Pages not read: over the pixel cap of a page even at MIN_OCR_SCALE. */
  tooLarge: number[];
}

/** How recognized pages are drawn, to read them and again to paint them (the same scale each time). */
export const ocrRendering = (limits: PixelLimits): RenderOptions => ({
  scale: OCR_SCALE,
  minScale: MIN_OCR_SCALE,
  maxPixels: limits.pagePixels,
  maxImagePixels: limits.imagePixels,
});

/** The pages given, read by the recognizer; pages where it finds no text are left out. */
export async function recognizePages(input: Buffer, pages: readonly number[], recognizer: TextRecognizer, options: RecognizeOptions): Promise<Recognition> {
  const out: RecognizedPage[] = [];
  const started = Date.now();
  const unread = new Set(pages);
  let pixelsLeft = options.limits.ocrPixels;
  const admit = (_page: number, pixels: number) => {
    if (Date.now() - started > OCR_BUDGET_MS || pixels > pixelsLeft) return false;
    pixelsLeft -= pixels;
    return true;
  };
  const { tooLarge } = await renderPages(input, pages, { ...ocrRendering(options.limits), admit }, async (page, canvas, viewport) => {
    unread.delete(page);
    const ctx = canvas.getContext('2d');
    const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height);
    const [width, height] = [canvas.width, canvas.height];
    releaseCanvas(canvas); // the copy is what is read
    const words = await recognizer.recognize(flattenToRgb(pixels), options.language, options.signal);
    const paragraphs = paragraphsOf(words, pixels);
    if (paragraphs.length === 0) return;
    out.push({
      page,
      width: width / viewport.scale,
      height: height / viewport.scale,
      texts: paragraphs.map((p) => p.text),
      units: paragraphs.map((p) => p.unit),
      plans: planParagraphs(pixels, paragraphs, words),
    });
  });
  for (const n of tooLarge) unread.delete(n);
  return { pages: out, unread: [...unread], tooLarge };
}

/** JPEG quality of a painted page in a PDF: a scan's grain makes a lossless page several megabytes. */
const PAGE_JPEG_QUALITY = 85;

/**
 * Each recognized page rendered again with its paragraphs' translations painted over their text: JPEG for a PDF
 * page, PNG for a picture in a Word document. `translations` are the pages' paragraphs in order, page after page.
 */
export async function paintPages(
  input: Buffer,
  pages: readonly RecognizedPage[],
  translations: readonly PaintedText[],
  as: 'jpeg' | 'png',
  limits: PixelLimits,
): Promise<Map<number, Buffer>> {
  const byPage = new Map<number, { page: RecognizedPage; translations: readonly PaintedText[] }>();
  let at = 0;
  for (const page of pages) {
    byPage.set(page.page, { page, translations: page.texts.map((t, k) => translations[at + k] ?? t) });
    at += page.texts.length;
  }
  const out = new Map<number, Buffer>();
  await renderPages(input, [...byPage.keys()], ocrRendering(limits), async (n, canvas: Canvas) => {
    const { page, translations: texts } = byPage.get(n)!;
    paint(canvas.getContext('2d'), page.plans, texts);
    out.set(n, as === 'jpeg' ? await canvas.encode('jpeg', PAGE_JPEG_QUALITY) : await canvas.encode('png'));
  });
  return out;
}

const listed = (pages: readonly number[]) => (pages.length > 20 ? `${pages.slice(0, 20).join(', ')} and ${pages.length - 20} more` : pages.join(', '));

/**
 * Says which pages (1-based) were read by text recognition, which were not for lack of time or pixels, and which
 * are too large to read (`pagePixels` is the cap of one page).
 */
export function ocrNotice(read: readonly number[], unread: readonly number[], tooLarge: readonly number[] = [], pagePixels = 0): string {
  const done = read.length > 0 ? `Text recognition (OCR) read ${read.length === 1 ? 'page' : 'pages'} ${listed(read)}: they have no usable text layer, and their translation is painted into the page's picture.` : '';
  const left = unread.length > 0 ? `${unread.length === 1 ? 'Page' : 'Pages'} ${listed(unread)} without a usable text layer were not read (the time or size limit for text recognition in one document) and are kept as they are.` : '';
  const large =
    tooLarge.length > 0
      ? `${tooLarge.length === 1 ? 'Page' : 'Pages'} ${listed(tooLarge)} without a usable text layer ${tooLarge.length === 1 ? 'is' : 'are'} too large for text recognition (more than ${pagePixels / 1_000_000} megapixels at ${MIN_OCR_SCALE * 72} dpi) and ${tooLarge.length === 1 ? 'was' : 'were'} not read.`
      : '';
  return [done, left, large].filter(Boolean).join(' ');
}
