// Pages rendered by pdf.js onto a canvas (@napi-rs/canvas), one at a time: pictures of kept text, pages to recognize.
import { createCanvas, type Canvas } from '@napi-rs/canvas';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { openPdf } from './pdfjs.js';

export type PageViewport = ReturnType<PDFPageProxy['getViewport']>;

/**
 * Renders the pages given (0-based) at `scale` pixels per point, unrotated, and hands each to `use` before the
 * next is drawn (one page's pixels are held at a time); `use` returning 'stop' ends the work. A document or page
 * pdf.js cannot render is skipped; an error of `use` ends the work and is thrown.
 */
export async function renderPages(
  input: Buffer,
  pages: readonly number[],
  scale: number,
  use: (page: number, canvas: Canvas, viewport: PageViewport) => Promise<void | 'stop'>,
): Promise<void> {
  if (pages.length === 0) return;
  let doc: PDFDocumentProxy;
  try {
    doc = await openPdf(input);
  } catch {
    return;
  }
  try {
    for (const n of pages) {
      let canvas: Canvas;
      let viewport: PageViewport;
      try {
        const page = await doc.getPage(n + 1);
        viewport = page.getViewport({ scale, rotation: 0 });
        canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
        const ctx = canvas.getContext('2d');
        // white paper under the page, as a viewer shows it
        ctx.fillStyle = '#ffffff';
        ctx.fillRect(0, 0, canvas.width, canvas.height);
        await page.render({ canvasContext: ctx as unknown as CanvasRenderingContext2D, viewport, canvas: canvas as unknown as HTMLCanvasElement }).promise;
        page.cleanup();
      } catch {
        continue; // a page pdf.js cannot render
      }
      if ((await use(n, canvas, viewport)) === 'stop') break;
    }
  } finally {
    await doc.destroy();
  }
}
