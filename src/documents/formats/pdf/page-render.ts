// Pages rendered by pdf.js onto a canvas (@napi-rs/canvas), one at a time: pictures of kept text, pages to recognize.
// A canvas is native memory, outside the heap limit of the thread: the pixel cap of a page is what bounds it.
import type { Canvas } from '@napi-rs/canvas';
import { canvas as canvasModule } from '../canvas.js';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { openPdf } from './pdfjs.js';

export type PageViewport = ReturnType<PDFPageProxy['getViewport']>;

export interface RenderOptions {
  /** Pixels per point wanted. */
  scale: number;
  /** Pixels of one page at most: a larger page is drawn at the scale that fits. */
  maxPixels: number;
  /** A page that would have to be drawn below this scale to fit is not drawn (listed in `tooLarge`). */
  minScale?: number;
  /** Images inside the document larger than this (pixels, from their dictionaries) are not decoded. */
  maxImagePixels: number;
  /** Asked before each page is drawn with its pixel count: false ends the work (a budget for the document). */
  admit?: (page: number, pixels: number) => boolean;
}

/** The scale at most `wanted` at which a page of `width`×`height` points fits in `maxPixels` whole pixels. */
export function fittingScale(width: number, height: number, wanted: number, maxPixels: number): number {
  let scale = Math.min(wanted, Math.sqrt(maxPixels / Math.max(width * height, 1)));
  // rounding each side up may pass the cap by a row or column
  while (scale > 0 && Math.ceil(width * scale) * Math.ceil(height * scale) > maxPixels) scale *= 0.99;
  return scale;
}

/**
 * Frees a canvas's pixels now (resized to one pixel): the garbage collector does not see native memory, and pages
 * drawn one after another would otherwise pile up until it runs.
 */
export function releaseCanvas(canvas: Canvas): void {
  canvas.width = 1;
  canvas.height = 1;
}

/**
 * Renders the pages given (0-based), unrotated, at `options.scale` pixels per point or less (see RenderOptions),
 * and hands each to `use` before the next is drawn (one page's pixels are held at a time: the canvas is released
 * when `use` is done, or before by `use` itself with releaseCanvas); `use` returning 'stop'
 * ends the work. A document or page pdf.js cannot render is skipped; an error of `use` ends the work and is thrown.
 * Resolves with the pages too large to draw at `minScale`.
 */
export async function renderPages(
  input: Buffer,
  pages: readonly number[],
  options: RenderOptions,
  use: (page: number, canvas: Canvas, viewport: PageViewport) => Promise<void | 'stop'>,
): Promise<{ tooLarge: number[] }> {
  const tooLarge: number[] = [];
  if (pages.length === 0) return { tooLarge };
  let doc: PDFDocumentProxy;
  try {
    doc = await openPdf(input, options.maxImagePixels);
  } catch {
    return { tooLarge };
  }
  try {
    for (const n of pages) {
      let canvas: Canvas;
      let viewport: PageViewport;
      try {
        const page = await doc.getPage(n + 1);
        const size = page.getViewport({ scale: 1, rotation: 0 });
        const scale = fittingScale(size.width, size.height, options.scale, options.maxPixels);
        if (scale < (options.minScale ?? 0) || scale <= 0) {
          tooLarge.push(n);
          continue;
        }
        viewport = page.getViewport({ scale, rotation: 0 });
        const [width, height] = [Math.ceil(viewport.width), Math.ceil(viewport.height)];
        if (options.admit && !options.admit(n, width * height)) break;
        canvas = canvasModule().createCanvas(width, height);
        const ctx = canvas.getContext('2d');
        // white paper under the page, as a viewer shows it
        ctx.fillStyle = '#ffffff';
        ctx.fillRect(0, 0, canvas.width, canvas.height);
        await page.render({ canvasContext: ctx as unknown as CanvasRenderingContext2D, viewport, canvas: canvas as unknown as HTMLCanvasElement }).promise;
        page.cleanup();
      } catch {
        continue; // a page pdf.js cannot render
      }
      try {
        if ((await use(n, canvas, viewport)) === 'stop') break;
      } finally {
        releaseCanvas(canvas);
      }
    }
  } finally {
    await doc.destroy();
  }
  return { tooLarge };
}
