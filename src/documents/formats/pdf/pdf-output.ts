// Writes the translated PDF with pdf-lib: the original text operators are removed from every page (and the form
// XObjects it draws), graphics and images stay, and each block's translation is drawn in its place.
import { deflateSync } from 'node:zlib';
import fontkit from '@pdf-lib/fontkit';
import {
  decodePDFRawStream,
  degrees,
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFRawStream,
  PDFRef,
  rgb,
  type PDFFont,
  type PDFImage,
  type PDFObject,
  type PDFPage,
} from 'pdf-lib';
import { DocumentFormatError } from '../format.js';
import { stripText, type UnderlineZone } from './content-stream.js';
import { fontFor, type DrawFont, type Metrics } from './fonts.js';
import { fitBlock, lower, sharedHeight } from './block-flow.js';
import { fromFrame, type TextBlock } from './layout.js';
import { lineRooms } from './line-room.js';
import type { SourceGlyphs } from './page-text.js';
import { drawSourceGlyphs, PageGlyphs, readerFontName, runs, withGlyphs, type PlacedGlyph } from './source-glyphs.js';

export const WATERMARK_TEXT = 'Translated by Tolk';

/** Loads the document for output; encrypted documents are refused (their streams cannot be rewritten). */
export async function loadPdf(input: Buffer): Promise<PDFDocument> {
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(input, { updateMetadata: false, ignoreEncryption: true });
    doc.getPages(); // walks the page tree: a broken one fails here, not at output
  } catch {
    throw new DocumentFormatError('The PDF file cannot be read: it is damaged or not a valid PDF.');
  }
  if (doc.isEncrypted) {
    throw new DocumentFormatError('The PDF file is encrypted. Remove its protection (password or permissions) and upload it again.');
  }
  return doc;
}

function decode(stream: PDFObject | undefined): Uint8Array | undefined {
  if (!(stream instanceof PDFRawStream)) return undefined;
  try {
    return decodePDFRawStream(stream).decode();
  } catch (err) {
    throw new DocumentFormatError(`The PDF file has a content stream that cannot be decoded: ${(err as Error).message}.`);
  }
}

function compressed(doc: PDFDocument, dict: PDFDict, bytes: Uint8Array): PDFRawStream {
  dict.delete(PDFName.of('DecodeParms'));
  dict.delete(PDFName.of('Length'));
  dict.set(PDFName.of('Filter'), PDFName.of('FlateDecode'));
  return PDFRawStream.of(dict, deflateSync(bytes));
}

/**
 * Removes text from a page's content (its streams are joined: an operator may span two of them) and its forms;
 * true when the page's own text was all invisible (the OCR layer over a scanned image).
 */
function stripPage(doc: PDFDocument, page: PDFPage, visited: Set<PDFRef>, zones: UnderlineZone[], keepFonts: ReadonlySet<string>, cleared: readonly UnderlineZone[]): boolean {
  const contents = page.node.Contents();
  const streams = contents instanceof PDFArray ? contents.asArray().map((r) => doc.context.lookup(r)) : [contents];
  const parts: Uint8Array[] = [];
  for (const s of streams) {
    const bytes = decode(s);
    if (bytes) parts.push(bytes, Buffer.from('\n'));
  }
  const resources = page.node.Resources();
  const keep = fontResources(doc, resources, keepFonts);
  const { x, y, width, height } = page.getCropBox();
  // text outside the visible box is kept as it is: it was not read, so it is not drawn anew
  const view = [x, y, x + width, y + height] as const;
  const stripped = parts.length > 0 ? stripText(Buffer.concat(parts), zones, keep, view, cleared) : { data: null, visible: 0, invisible: 0 };
  if (stripped.data) page.node.set(PDFName.of('Contents'), doc.context.register(compressed(doc, doc.context.obj({}), stripped.data)));
  if (resources) stripForms(doc, resources, visited, keepFonts);
  return stripped.invisible > 0 && stripped.visible === 0;
}

/** Names under which `resources` lists the fonts named (as pdf.js names them, see readerFontName) in `fonts`. */
function fontResources(doc: PDFDocument, resources: PDFDict | undefined, fonts: ReadonlySet<string>): Set<string> {
  const names = new Set<string>();
  const dict = fonts.size > 0 ? resources?.lookupMaybe(PDFName.of('Font'), PDFDict) : undefined;
  for (const [key, value] of dict?.entries() ?? []) {
    const font = doc.context.lookup(value);
    const name = font instanceof PDFDict ? readerFontName(font) : undefined;
    if (name !== undefined && fonts.has(name)) names.add(key.decodeText());
  }
  return names;
}

function stripForms(doc: PDFDocument, resources: PDFDict, visited: Set<PDFRef>, keepFonts: ReadonlySet<string>): void {
  const xobjects = resources.lookupMaybe(PDFName.of('XObject'), PDFDict);
  if (!xobjects) return;
  for (const [, value] of xobjects.entries()) {
    if (!(value instanceof PDFRef) || visited.has(value)) continue;
    visited.add(value);
    const stream = doc.context.lookup(value);
    if (!(stream instanceof PDFRawStream) || stream.dict.get(PDFName.of('Subtype')) !== PDFName.of('Form')) continue;
    const bytes = decode(stream);
    const own = stream.dict.lookupMaybe(PDFName.of('Resources'), PDFDict);
    const stripped = bytes ? stripText(bytes, [], fontResources(doc, own ?? resources, keepFonts)).data : null;
    if (stripped) doc.context.assign(value, compressed(doc, stream.dict.clone(doc.context), stripped));
    if (own) stripForms(doc, own, visited, keepFonts);
  }
}

export interface PageOutput {
  blocks: TextBlock[];
  /** Text to draw per block: its translation, or its own text for blocks that are not translated. */
  texts: string[];
  /** The page is kept as it is (its text cannot be read back, so it could not be redrawn). */
  keep?: boolean;
  /** Fonts (PDF names) whose text cannot be read back: their text stays in the page's content as it is. */
  keepFonts?: ReadonlySet<string>;
  /** Per block: kept as it is (it holds text in one of keepFonts); its other pieces are drawn back. */
  kept?: readonly boolean[];
  /** Areas (user space) a picture of their text read by recognition covers: text there goes, in keepFonts too. */
  cleared?: readonly UnderlineZone[];
  /** The page read by text recognition, painted with its translation (JPEG): it becomes the page's whole content. */
  picture?: Buffer;
  /** The glyphs its text reads as private-use characters: drawn again from their own fonts. */
  glyphs?: SourceGlyphs;
}

export interface OutputOptions {
  watermark?: boolean;
}

/** The translated document: text removed, blocks drawn, optionally a watermark on each page. */
export async function writeTranslatedPdf(doc: PDFDocument, pages: PageOutput[], options: OutputOptions): Promise<Buffer> {
  try {
    return await write(doc, pages, options);
  } catch (err) {
    if (err instanceof DocumentFormatError || !isPdfLibError(err)) throw err;
    throw new DocumentFormatError('The PDF file is damaged and cannot be rewritten.');
  }
}

/** pdf-lib reports damaged objects with its own error classes (and plain Errors from its parser). */
function isPdfLibError(err: unknown): boolean {
  return err instanceof Error && /pdf-lib/.test(err.stack ?? '');
}

async function write(doc: PDFDocument, pages: PageOutput[], options: OutputOptions): Promise<Buffer> {
  const pdfPages = doc.getPages();
  if (pdfPages.length !== pages.length) throw new DocumentFormatError('The PDF file is damaged: its page tree is inconsistent.');
  doc.registerFontkit(fontkit);
  const embedded = new Map<string, PDFFont>();
  const embed = async (font: DrawFont) => {
    let f = embedded.get(font.key);
    if (!f) {
      f = await doc.embedFont(font.bytes, { subset: true });
      embedded.set(font.key, f);
    }
    return f;
  };
  const visited = new Set<PDFRef>();
  for (let p = 0; p < pages.length; p++) {
    const page = pdfPages[p]!;
    const picture = pages[p]!.picture;
    if (picture) {
      drawPicturePage(doc, page, await doc.embedJpg(picture));
      if (options.watermark) drawWatermark(page, await embed(fontFor({ family: 'sans', bold: false, italic: false })));
      continue;
    }
    if (pages[p]!.keep) {
      if (options.watermark) drawWatermark(page, await embed(fontFor({ family: 'sans', bold: false, italic: false })));
      continue;
    }
    const { blocks, texts, kept } = pages[p]!;
    const keepFonts = pages[p]!.keepFonts ?? new Set<string>();
    const scanned = stripPage(doc, page, visited, underlineZones(blocks, texts), keepFonts, pages[p]!.cleared ?? []);
    const drawn: DrawnLine[] = [];
    const sourceGlyphs = new PageGlyphs(doc, page, pages[p]!.glyphs ?? new Map());
    // leaders last: they give way to the titles beside them
    const order = [...blocks.keys()].sort((a, b) => Number(blocks[a]!.leader ?? false) - Number(blocks[b]!.leader ?? false));
    const translated = (b: number) => blocks[b]!.translatable && !kept?.[b] && (texts[b] ?? blocks[b]!.text) !== blocks[b]!.text;
    // paragraphs of one flow pushed down by the translation of the one above them, and by how much
    const lowered = new Map<TextBlock, number>();
    const indexOf = new Map(blocks.map((b, n) => [b, n]));
    for (const b of order) {
      const block = blocks[b]!;
      const font = fontFor(block.font);
      // over a scan, the translation covers the image's own text
      if (scanned && block.translatable) cover(page, block);
      // a block the engine left as it was (names, marks) is drawn back piece by piece, superscripts included
      const text = texts[b] ?? block.text;
      const isTranslated = translated(b);
      const glyphs = sourceGlyphs.placed(isTranslated ? text : block.text, new Set(block.lines.flatMap((l) => l.pieces.map((piece) => piece.fontName ?? ''))));
      const face: Face = { font, pdfFont: await embed(font), glyphs, metrics: withGlyphs(font.metrics, glyphs) };
      if (isTranslated) {
        const next = block.next ? (indexOf.get(block.next) ?? -1) : -1;
        const flow = next >= 0 && translated(next) ? block.next : undefined;
        const down = lowered.get(block) ?? 0;
        const moved = lower(block, down);
        // with the next paragraph of its flow, it takes one size at which both fit in the room of the two
        const lines = drawBlock(page, face, flow ? { ...moved, maxBottom: moved.top - sharedHeight(face.metrics, moved, drawableIn(face, text.replace(/\s+/gu, ' ').trim()), lower(flow, down), texts[next]!) } : moved, text);
        drawn.push(...lines);
        const last = lines[lines.length - 1];
        if (flow && last) lowered.set(flow, Math.max(0, flow.lines[0]!.v - (last.v - (block.lineGap * last.size) / block.size)));
      }
      else if (block.leader) drawLeader(page, face, block, drawn);
      else drawVerbatim(page, face, block, keepFonts);
    }
    if (options.watermark) drawWatermark(page, await embed(fontFor({ family: 'sans', bold: false, italic: false })));
  }
  return Buffer.from(await doc.save({ useObjectStreams: true }));
}

/** The page's content replaced by one picture of it, across its visible box (its text layer goes with the old content). */
function drawPicturePage(doc: PDFDocument, page: PDFPage, image: PDFImage): void {
  page.node.set(PDFName.of('Contents'), doc.context.obj([]));
  const { x, y, width, height } = page.getCropBox();
  currentFont.delete(page);
  page.drawImage(image, { x, y, width, height });
}

/** Under each line of the blocks drawn anew (unrotated), where its underlines are: they go with the old text. */
function underlineZones(blocks: TextBlock[], texts: string[]): UnderlineZone[] {
  const zones: UnderlineZone[] = [];
  blocks.forEach((b, n) => {
    if (!b.translatable || (texts[n] ?? b.text) === b.text || Math.abs(b.angle) > 1e-3) return;
    for (const l of b.lines) zones.push({ x0: l.u0 - 2, x1: l.u1 + 2, y0: l.v - 0.3 * l.size, y1: l.v + 0.05 * l.size });
  });
  return zones;
}

function colorOf(hex: string) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  return m ? rgb(parseInt(m[1]!, 16) / 255, parseInt(m[2]!, 16) / 255, parseInt(m[3]!, 16) / 255) : rgb(0, 0, 0);
}

/** Fonts set per page: pdf-lib adds a font resource on every setFont, so it is called only when the font changes. */
const currentFont = new WeakMap<PDFPage, PDFFont>();

/** What a block is drawn in: a DejaVu face, and the source glyphs its text holds (drawn from their own fonts). */
interface Face {
  font: DrawFont;
  pdfFont: PDFFont;
  glyphs: ReadonlyMap<string, PlacedGlyph>;
  /** Advances of both. */
  metrics: Metrics;
}

/** The text with what the face cannot draw replaced, the source glyphs kept. */
const drawableIn = (face: Face, text: string) => face.font.metrics.drawable(text, new Set(face.glyphs.keys()));

function drawLine(page: PDFPage, face: Face, color: string, angle: number, u: number, v: number, text: string, size: number): void {
  let at = u;
  for (const run of face.glyphs.size > 0 ? runs(text, face.glyphs) : [{ text, source: false }]) {
    const { x, y } = fromFrame(angle, at, v);
    if (run.source) drawSourceGlyphs(page, run.text, face.glyphs, colorOf(color), angle, x, y, size);
    else {
      if (currentFont.get(page) !== face.pdfFont) {
        page.setFont(face.pdfFont);
        currentFont.set(page, face.pdfFont);
      }
      page.drawText(run.text, { x, y, size, color: colorOf(color), rotate: degrees((angle * 180) / Math.PI) });
    }
    at += face.metrics.measure(run.text) * size;
  }
}

/** A line of translation as drawn: its baseline and where it ends (in the block's frame). */
interface DrawnLine {
  angle: number;
  v: number;
  u1: number;
  size: number;
}

/**
 * The translation wrapped in the block's box (grown into free room when needed), shrunk until it fits; each line
 * starts where the source line at its height started and keeps within that line's room.
 */
function drawBlock(page: PDFPage, face: Face, block: TextBlock, translation: string): DrawnLine[] {
  const text = drawableIn(face, translation.replace(/\s+/gu, ' ').trim());
  if (text === '') return [];
  const drawn: DrawnLine[] = [];
  const { fitted, rooms } = fitBlock(face.metrics, block, text);
  let v = block.top - 0.8 * fitted.size;
  fitted.lines.forEach((line, n) => {
    const { start, width } = rooms[Math.min(n, rooms.length - 1)]!;
    const w = face.metrics.measure(line) * fitted.size;
    const u = block.align === 'right' ? block.right - w : block.align === 'center' ? (block.left + block.right - w) / 2 : start;
    const spread = block.align === 'justify' && n < fitted.lines.length - 1;
    // (a line too narrow for the next word stays empty)
    if (line !== '') {
      if (spread) drawJustified(page, face, block, start, v, line, fitted.size, width);
      else drawLine(page, face, block.color, block.angle, u, v, line, fitted.size);
      drawn.push({ angle: block.angle, v, u1: spread ? start + width : u + w, size: fitted.size });
    }
    v -= fitted.lineGap;
  });
  return drawn;
}

/** A dot leader drawn from where the title beside it now ends (at least a space after it) to its own end. */
function drawLeader(page: PDFPage, face: Face, block: TextBlock, drawn: readonly DrawnLine[]): void {
  for (const line of block.lines) {
    let start = line.u0;
    for (const d of drawn) {
      if (d.angle === block.angle && Math.abs(d.v - line.v) < 0.6 * line.size && d.u1 < line.u1) start = Math.max(start, d.u1 + 0.3 * line.size);
    }
    const text = line.pieces.map((p) => p.text).join(' ').replace(/\s+/gu, ' ').trim();
    const perChar = (line.u1 - line.u0) / Math.max(1, text.length);
    const kept = text.slice(Math.max(0, text.length - Math.floor((line.u1 - start) / perChar))).trim();
    if (kept === '') continue;
    const natural = face.metrics.measure(kept) * line.size;
    const size = Math.min(line.size, (line.size * kept.length * perChar) / Math.max(natural, 1e-6));
    drawLine(page, face, block.color, block.angle, line.u1 - face.metrics.measure(kept) * size, line.v, kept, size);
  }
}

/** A line of a justified paragraph spread across its room: its words drawn apart, evenly spaced. */
function drawJustified(page: PDFPage, face: Face, block: TextBlock, start: number, v: number, line: string, size: number, width: number): void {
  const words = line.split(' ');
  const widths = words.map((w) => face.metrics.measure(w) * size);
  const gap = words.length > 1 ? (width - 0.01 - widths.reduce((a, b) => a + b, 0)) / (words.length - 1) : 0;
  let u = start;
  words.forEach((word, k) => {
    drawLine(page, face, block.color, block.angle, u, v, word, size);
    u += widths[k]! + gap;
  });
}

function cover(page: PDFPage, block: TextBlock): void {
  const { x, y } = fromFrame(block.angle, block.left, block.bottom);
  page.drawRectangle({
    x,
    y,
    width: block.right - block.left,
    height: block.top - block.bottom,
    color: rgb(1, 1, 1),
    rotate: degrees((block.angle * 180) / Math.PI),
  });
}

/** Numbers, bullets, symbols and text left as it was go back where they were, each piece at its place and size. */
function drawVerbatim(page: PDFPage, face: Face, block: TextBlock, keptFonts: ReadonlySet<string>): void {
  for (const line of block.lines) {
    for (const piece of line.pieces) {
      // text in a kept font is still in the content stream
      if (keptFonts.has(piece.fontName ?? '')) continue;
      const text = drawableIn(face, piece.text);
      if (text.trim() === '') continue;
      // the substitute face may be wider than the source's: shrunk to the piece's width, it cannot run into its neighbours
      const natural = face.metrics.measure(text) * piece.size;
      // (to half its size at most: a narrower piece is a width the PDF got wrong, not a condensed face)
      const size = natural > piece.width + 0.5 ? Math.max(0.5, piece.width / natural) * piece.size : piece.size;
      drawLine(page, face, piece.color ?? block.color, block.angle, piece.u, piece.v, text, size);
    }
  }
}

/** A small grey note in the bottom left margin as the page is displayed (its /Rotate taken into account). */
function drawWatermark(page: PDFPage, font: PDFFont): void {
  const { x: x0, y: y0, width, height } = page.getCropBox();
  const x1 = x0 + width;
  const y1 = y0 + height;
  const m = 10;
  const rotation = ((page.getRotation().angle % 360) + 360) % 360;
  const at =
    rotation === 90 ? { x: x1 - m, y: y0 + m } : rotation === 180 ? { x: x1 - m, y: y1 - m } : rotation === 270 ? { x: x0 + m, y: y1 - m } : { x: x0 + m, y: y0 + m };
  currentFont.delete(page);
  page.drawText(WATERMARK_TEXT, { ...at, size: 7, font, color: rgb(0.45, 0.45, 0.45), rotate: degrees(rotation) });
}
