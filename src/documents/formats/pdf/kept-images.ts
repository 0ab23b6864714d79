// Text kept as it was in a PDF (fonts that cannot be read back) has no words to write into a Word document: a
// conversion shows it as a picture of its block, rendered by pdf.js onto a canvas.
import { canvas as canvasModule } from '../canvas.js';
import type { PixelLimits } from '../format.js';
import { renderPages, type PageViewport } from './page-render.js';
import type { TextBlock } from './layout.js';
import type { PageImage } from './page-images.js';

/** Pixels per point of the pictures (144 dpi: sharp enough to read, a few hundred kilobytes per page). */
const SCALE = 2;
/** Room around a block's box (points), for accents and descenders its box leaves out. */
const MARGIN = 2;

export interface Band {
  left: number;
  right: number;
  top: number;
  bottom: number;
  /** The blocks the band holds. */
  blocks: TextBlock[];
}

/**
 * Blocks side by side merged into bands across their width and up to the room on their right: pdf.js measures glyphs
 * it cannot map unreliably, so the blocks of one line of such text may be apart and too narrow.
 */
export function bands(blocks: readonly TextBlock[]): Band[] {
  const sorted = [...blocks].sort((a, b) => b.top - a.top);
  const out: Band[] = [];
  for (const b of sorted) {
    const last = out[out.length - 1];
    if (last && b.top > last.bottom) {
      last.left = Math.min(last.left, b.left);
      last.right = Math.max(last.right, b.maxRight);
      last.bottom = Math.min(last.bottom, b.bottom);
      last.blocks.push(b);
    } else out.push({ left: b.left, right: b.maxRight, top: b.top, bottom: b.bottom, blocks: [b] });
  }
  return out;
}

/** A band's box (with MARGIN around it) on the rendered page, in whole pixels inside the canvas. */
export function pixelBox(viewport: PageViewport, b: Omit<Band, 'blocks'>, canvas: { width: number; height: number }) {
  // user space (y up) to the rendered page (y down)
  const [x0, y0] = viewport.convertToViewportPoint(b.left - MARGIN, b.top + MARGIN) as [number, number];
  const [x1, y1] = viewport.convertToViewportPoint(b.right + MARGIN, b.bottom - MARGIN) as [number, number];
  const left = Math.max(0, Math.floor(Math.min(x0, x1)));
  const top = Math.max(0, Math.floor(Math.min(y0, y1)));
  return { left, top, width: Math.min(canvas.width - left, Math.ceil(Math.abs(x1 - x0))), height: Math.min(canvas.height - top, Math.ceil(Math.abs(y1 - y0))) };
}

/**
 * Per page, pictures of the blocks listed for it (unrotated blocks only); a page pdf.js cannot render has none. A page
 * over the pixel cap is drawn at a lower resolution.
 */
export async function renderKeptBlocks(input: Buffer, blocks: readonly (readonly TextBlock[])[], limits: PixelLimits): Promise<PageImage[][]> {
  const out: PageImage[][] = blocks.map(() => []);
  if (blocks.every((b) => b.length === 0)) return out;
  const wanted = blocks.map((page) => page.filter((b) => Math.abs(b.angle) < 1e-3));
  const pages = wanted.flatMap((page, n) => (page.length > 0 ? [n] : []));
  await renderPages(input, pages, { scale: SCALE, maxPixels: limits.pagePixels, maxImagePixels: limits.imagePixels }, async (n, canvas, viewport) => {
    const scale = viewport.scale;
    const ctx = canvas.getContext('2d');
    for (const b of bands(wanted[n]!)) {
      const { left, top, width, height } = pixelBox(viewport, b, canvas);
      if (width <= 0 || height <= 0) continue;
      const crop = canvasModule().createCanvas(width, height);
      crop.getContext('2d').putImageData(ctx.getImageData(left, top, width, height), 0, 0);
      out[n]!.push({ png: await crop.encode('png'), width: width / scale, height: height / scale, top: b.top + MARGIN });
    }
  });
  return out;
}
