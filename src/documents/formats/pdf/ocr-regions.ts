// Blocks of a PDF page in fonts that cannot be read back, on a page that has readable text too (a math-font
// paragraph, a heading whose font maps space to U+0002, body text without a ToUnicode map): each band of such blocks
// is cut from the rendered page, read by the recognizer and translated as an image is; its painted picture is drawn
// over the band in the output, whose own text there is removed. Other blocks reaching into a band are left out of
// what is read and are transparent in the picture, so their redrawn translations show through.
import fontkit from '@pdf-lib/fontkit';
import type { TaggedText } from '../../../markup/index.js';
import { PDFDocument, type PDFFont, type PDFPage } from 'pdf-lib';
import { canvas as canvasModule } from '../canvas.js';
import type { PixelLimits } from '../format.js';
import { flattenToRgb } from '../image/image-format.js';
import { imageParagraph, MIN_WORD_CONFIDENCE, paragraphsOf, type Box, type ImageParagraph, type ParagraphLine } from '../image/paragraphs.js';
import { readText, type PaintedText } from '../image/inline-words.js';
import { paint, planParagraphs, type PaintPlan } from '../image/text-painter.js';
import type { RecognizedWord, TextRecognizer } from '../image/text-recognizer.js';
import { fitText, fontFor } from './fonts.js';
import { bands, pixelBox } from './kept-images.js';
import type { Piece, TextBlock } from './layout.js';
import { joinPieces } from './lines.js';
import { OCR_BUDGET_MS, ocrRendering, type RecognizeOptions } from './ocr-pages.js';
import { renderPages, type PageViewport } from './page-render.js';
import { UNMAPPED } from './page-text.js';

export interface RecognizedRegion {
  page: number;
  /** The blocks it covers (they are not drawn again). */
  blocks: TextBlock[];
  /** Where the picture goes, in user space (points). */
  x: number;
  y: number;
  width: number;
  height: number;
  /** The region on the rendered page, and the boxes of other blocks reaching into it (pixels, relative to it). */
  pixels: Box;
  holes: Box[];
  texts: string[];
  /** Each paragraph as the markup layer translates it: its unsure words are empty tags (painted as their pixels). */
  units: TaggedText[];
  plans: PaintPlan[];
}

/**
 * A paragraph the recognizer read is translated when it is mostly words: three or more of three letters or more,
 * three in five of its tokens at least (a formula read as letters gives symbols, digits and one- or two-letter tokens).
 */
function hasWords(text: string): boolean {
  const tokens = text.split(/\s+/u).filter(Boolean);
  const words = tokens.filter((t) => /^\p{P}*\p{L}{3,}\p{P}*$/u.test(t)).length;
  return words >= 3 && words >= 0.6 * tokens.length;
}

/**
 * Prose in a text layer: three or more words of three letters or more holding three in five of its characters at least
 * (a formula's text is mostly symbols, digits and one-letter names; prose's short words are few characters).
 */
function isProse(text: string): boolean {
  const tokens = text.split(/\s+/u).filter(Boolean);
  const words = tokens.filter((t) => /^\p{P}*\p{L}{3,}\p{P}*$/u.test(t));
  const letters = (list: string[]) => list.reduce((n, t) => n + [...t].length, 0);
  return words.length >= 3 && letters(words) >= 0.6 * letters(tokens);
}

/**
 * Of a block's visible characters, the share read back as control characters up to which its text layer is what is
 * translated (inline math symbols in a paragraph); beyond it (body text or a heading in a font without a mapping)
 * what the recognizer read is.
 */
const LAYER_UNMAPPED_SHARE = 0.05;
const ASCENT = 0.8;
const DESCENT = 0.25;

/**
 * A mostly readable block as one paragraph to paint: its text layer's text (numbers, subscripts included, which the
 * recognizer misreads), each piece without a mapping replaced by the words the recognizer read in its place (a word
 * it is unsure of kept as its pixels); its lines' boxes in the region's pixels. Undefined when the block is not such prose.
 */
function layerParagraph(block: TextBlock, toPixels: (b: { left: number; right: number; top: number; bottom: number }) => Box, words: readonly RecognizedWord[]): ImageParagraph | undefined {
  const visible = block.text.replace(/\s/gu, '').length;
  if ((block.text.match(UNMAPPED)?.length ?? 0) > LAYER_UNMAPPED_SHARE * visible) return undefined;
  const read = (b: Box) => words.filter((w) => w.text.trim() !== '' && centreIn(w, b));
  const lines = block.lines.map((l): ParagraphLine => {
    const pieces: ParagraphLine['pieces'][number][] = [];
    // pieces of the text layer are joined as the layout joins them, up to a word kept as its pixels
    let run: Piece[] = [];
    const flush = () => {
      if (run.length > 0) pieces.push(joinPieces(run));
      run = [];
    };
    for (const p of l.pieces) {
      if (p.text.search(UNMAPPED) < 0) {
        run.push(p);
        continue;
      }
      const got = read(toPixels({ left: p.u, right: p.u + p.width, top: p.v + ASCENT * p.size, bottom: p.v - DESCENT * p.size }));
      if (got.every((w) => w.confidence >= MIN_WORD_CONFIDENCE)) {
        run.push({ ...p, text: got.map((w) => w.text.trim()).join(' ') });
        continue;
      }
      flush();
      for (const w of got) pieces.push(w.confidence >= MIN_WORD_CONFIDENCE ? w.text.trim() : { unsure: { ...w, text: w.text.trim() } });
    }
    flush();
    const box = toPixels({ left: l.u0, right: l.u1, top: Math.max(...l.pieces.map((p) => p.v + ASCENT * p.size)), bottom: Math.min(...l.pieces.map((p) => p.v - DESCENT * p.size)) });
    return { box, pieces: pieces.filter((p) => p !== '') };
  });
  // The whole block is replaced, so each line is erased in full.
  const paragraph = imageParagraph(lines, lines.map((l) => l.box), toPixels({ left: 0, right: 0, top: block.size, bottom: 0 }).height);
  return isProse(paragraph.text) ? paragraph : undefined;
}

const centreIn = (w: Box, b: Box) => w.left + w.width / 2 >= b.left && w.left + w.width / 2 <= b.left + b.width && w.top + w.height / 2 >= b.top && w.top + w.height / 2 <= b.top + b.height;

const NUMBER = /\d[\d.,]*/gu;
/** Whether every number token of `source` (as a multiset) is among those of `read`. */
function numbersRead(source: string, read: string): boolean {
  const seen = new Map<string, number>();
  for (const n of read.match(NUMBER) ?? []) seen.set(n, (seen.get(n) ?? 0) + 1);
  return (source.match(NUMBER) ?? []).every((n) => {
    const left = seen.get(n) ?? 0;
    seen.set(n, left - 1);
    return left > 0;
  });
}

const overlap = (a: Box, b: Box) => a.left < b.left + b.width && b.left < a.left + a.width && a.top < b.top + b.height && b.top < a.top + a.height;

interface Planned {
  page: number;
  blocks: TextBlock[];
  pixels: Box;
  holes: Box[];
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Each band of `wanted[n]` (unrotated blocks) with its place on the page rendered for recognition. */
function planRegions(viewport: PageViewport, canvas: { width: number; height: number }, page: number, wanted: readonly TextBlock[], others: readonly TextBlock[]): Planned[] {
  return bands(wanted.filter((b) => Math.abs(b.angle) < 1e-3)).flatMap((band) => {
    const pixels = pixelBox(viewport, band, canvas);
    if (pixels.width <= 0 || pixels.height <= 0) return [];
    const holes = others.flatMap((o) => {
      const h = pixelBox(viewport, { left: o.left, right: o.right, top: o.top, bottom: o.bottom }, canvas);
      const left = Math.max(h.left, pixels.left);
      const top = Math.max(h.top, pixels.top);
      const right = Math.min(h.left + h.width, pixels.left + pixels.width);
      const bottom = Math.min(h.top + h.height, pixels.top + pixels.height);
      return right > left && bottom > top ? [{ left: left - pixels.left, top: top - pixels.top, width: right - left, height: bottom - top }] : [];
    });
    const [x0, y0] = viewport.convertToPdfPoint(pixels.left, pixels.top + pixels.height) as [number, number];
    const [x1, y1] = viewport.convertToPdfPoint(pixels.left + pixels.width, pixels.top) as [number, number];
    return [{ page, blocks: band.blocks, pixels, holes, x: Math.min(x0, x1), y: Math.min(y0, y1), width: Math.abs(x1 - x0), height: Math.abs(y1 - y0) }];
  });
}

/**
 * The regions of the blocks listed per page (`wanted`), read by the recognizer; `others` are the page's blocks that
 * are drawn anew. A region where it reads no words is left out (its blocks stay as they are). Regions share the
 * time budget of text recognition in one document, counted from `startedAt` (pages read first use it too).
 */
export async function recognizeRegions(
  input: Buffer,
  wanted: ReadonlyMap<number, { blocks: TextBlock[]; others: TextBlock[] }>,
  recognizer: TextRecognizer,
  options: RecognizeOptions & { startedAt: number },
): Promise<RecognizedRegion[]> {
  const out: RecognizedRegion[] = [];
  const started = options.startedAt;
  let pixelsLeft = options.limits.ocrPixels;
  await renderPages(input, [...wanted.keys()], ocrRendering(options.limits), async (page, canvas, viewport) => {
    const ctx = canvas.getContext('2d');
    for (const region of planRegions(viewport, canvas, page, wanted.get(page)!.blocks, wanted.get(page)!.others)) {
      const size = region.pixels.width * region.pixels.height;
      if (Date.now() - started > OCR_BUDGET_MS || size > pixelsLeft) return 'stop';
      pixelsLeft -= size;
      const pixels = ctx.getImageData(region.pixels.left, region.pixels.top, region.pixels.width, region.pixels.height);
      // the room a translation may grow into ends at other blocks' text: planned on the page as it is
      const asDrawn = ctx.getImageData(region.pixels.left, region.pixels.top, region.pixels.width, region.pixels.height);
      // other blocks' text is not read here: blanked to white
      for (const h of region.holes) for (let y = h.top; y < h.top + h.height; y++) pixels.data.fill(255, (y * pixels.width + h.left) * 4, (y * pixels.width + h.left + h.width) * 4);
      const words = await recognizer.recognize(flattenToRgb(pixels), options.language, options.signal);
      const read = paragraphsOf(words, pixels).filter((p) => hasWords(p.text));
      const boxes = new Map(region.blocks.map((b) => {
        const box = pixelBox(viewport, b, canvas);
        return [b, { ...box, left: box.left - region.pixels.left, top: box.top - region.pixels.top }] as const;
      }));
      // a mostly readable block is translated from its text layer; the others from what was read in them
      const toPixels = (b: { left: number; right: number; top: number; bottom: number }): Box => {
        const [x0, y0] = viewport.convertToViewportPoint(b.left, b.top) as [number, number];
        const [x1, y1] = viewport.convertToViewportPoint(b.right, b.bottom) as [number, number];
        const [left, top] = [Math.floor(Math.min(x0, x1)) - region.pixels.left, Math.floor(Math.min(y0, y1)) - region.pixels.top];
        return { left, top, width: Math.ceil(Math.max(x0, x1)) - region.pixels.left - left, height: Math.ceil(Math.max(y0, y1)) - region.pixels.top - top };
      };
      const layer = new Map(region.blocks.flatMap((b) => {
        const p = layerParagraph(b, toPixels, words);
        return p ? [[b, p] as const] : [];
      }));
      const within = (b: TextBlock) => read.filter((p) => overlap(p.box, boxes.get(b)!));
      // a block is replaced by what was read only when every number its text layer shows was read too (subscripts
      // and exponents often are not); a paragraph reaching into a block left as it is, or translated from its text
      // layer, is not painted
      const lost = region.blocks.filter((b) => !layer.has(b) && !numbersRead(b.text, within(b).map((p) => p.text).join(' ')));
      const ocrRead = read.filter((p) => ![...lost, ...layer.keys()].some((b) => overlap(p.box, boxes.get(b)!)));
      const paragraphs = [...ocrRead, ...layer.values()];
      // a block with no paragraph read in it (a formula beside the text) stays as it is, in the text layer too
      const blocks = region.blocks.filter((b) => layer.has(b) || ocrRead.some((p) => overlap(p.box, boxes.get(b)!)));
      // words read in a block translated from its text layer are its own, not ink to keep clear of
      const others = words.filter((w) => ![...layer.values()].some((p) => centreIn(w, p.box)));
      if (blocks.length > 0) out.push({ ...region, blocks, texts: paragraphs.map((p) => p.text), units: paragraphs.map((p) => p.unit), plans: planParagraphs(asDrawn, paragraphs, others) });
    }
  });
  return out;
}

/** Each region's picture (PNG, other blocks' boxes transparent) with its paragraphs' translations painted over their text. */
export async function paintRegions(input: Buffer, regions: readonly RecognizedRegion[], translations: readonly PaintedText[], limits: PixelLimits): Promise<Map<RecognizedRegion, Buffer>> {
  const out = new Map<RecognizedRegion, Buffer>();
  const texts = new Map<RecognizedRegion, readonly PaintedText[]>();
  let at = 0;
  for (const r of regions) {
    texts.set(r, r.texts.map((t, k) => translations[at + k] ?? t));
    at += r.texts.length;
  }
  const pages = [...new Set(regions.map((r) => r.page))];
  await renderPages(input, pages, ocrRendering(limits), async (page, canvas) => {
    for (const r of regions.filter((x) => x.page === page)) {
      const crop = canvasModule().createCanvas(r.pixels.width, r.pixels.height);
      const ctx = crop.getContext('2d');
      ctx.putImageData(canvas.getContext('2d').getImageData(r.pixels.left, r.pixels.top, r.pixels.width, r.pixels.height), 0, 0);
      for (const h of r.holes) ctx.clearRect(h.left, h.top, h.width, h.height);
      paint(ctx, r.plans, texts.get(r)!);
      out.set(r, await crop.encode('png'));
    }
  });
  return out;
}

/** Says on which pages (0-based in `regions`) text in fonts that cannot be read back was read and translated. */
export function regionNotice(regions: readonly RecognizedRegion[]): string {
  const pages = [...new Set(regions.map((r) => r.page + 1))];
  const shown = pages.length > 20 ? `${pages.slice(0, 20).join(', ')} and ${pages.length - 20} more` : pages.join(', ');
  return `Text in fonts that cannot be read back was read by text recognition (OCR) on ${pages.length === 1 ? 'page' : 'pages'} ${shown}: its translation is painted in its place.`;
}

/**
 * The written PDF with each region's picture drawn over its place and, under it, its translations as invisible text
 * (opacity 0, in each paragraph's place): the page's words can still be searched, selected and copied.
 */
export async function drawRegions(
  pdf: Buffer,
  regions: readonly RecognizedRegion[],
  translations: readonly PaintedText[],
  pictures: ReadonlyMap<RecognizedRegion, Buffer>,
): Promise<Buffer> {
  if (pictures.size === 0) return pdf;
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  doc.registerFontkit(fontkit);
  const face = fontFor({ family: 'sans', bold: false, italic: false });
  const font = await doc.embedFont(face.bytes, { subset: true });
  const pages = doc.getPages();
  let at = 0;
  for (const r of regions) {
    const texts = r.texts.map((t, k) => translations[at + k] ?? t);
    at += r.texts.length;
    const png = pictures.get(r);
    const page = pages[r.page];
    if (!png || !page) continue;
    texts.forEach((t, k) => drawInvisible(page, font, face, areaOf(r, r.plans[k]!), readText(t, r.plans[k]!.inline)));
    page.drawImage(await doc.embedPng(png), { x: r.x, y: r.y, width: r.width, height: r.height });
  }
  return Buffer.from(await doc.save({ useObjectStreams: true }));
}

/** A paragraph's area in user space (points): left and top edges, width and height. */
function areaOf(r: RecognizedRegion, plan: PaintPlan) {
  const scale = r.width / r.pixels.width;
  return { left: r.x + plan.area.left * scale, top: r.y + r.height - plan.area.top * scale, width: plan.area.width * scale, height: plan.area.height * scale, size: plan.fontPx * scale };
}

/** A paragraph's translation as invisible text wrapped in its area. */
function drawInvisible(page: PDFPage, font: PDFFont, face: ReturnType<typeof fontFor>, area: ReturnType<typeof areaOf>, translation: string): void {
  const text = face.metrics.drawable(translation.replace(/\s+/gu, ' ').trim());
  if (text === '') return;
  const fitted = fitText(text, face.metrics, area.size, 1.2 * area.size, () => [area.width], area.height);
  fitted.lines.forEach((line, n) => page.drawText(line, { x: area.left, y: area.top - 0.8 * fitted.size - n * fitted.lineGap, size: fitted.size, font, opacity: 0 }));
}
