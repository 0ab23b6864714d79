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
  type PDFObject,
  type PDFPage,
} from 'pdf-lib';
import { DocumentFormatError } from '../format.js';
import { stripText, stripTextOperators } from './content-stream.js';
import { fitText, fontFor, type DrawFont } from './fonts.js';
import { fromFrame, type TextBlock } from './layout.js';

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
function stripPage(doc: PDFDocument, page: PDFPage, visited: Set<PDFRef>): boolean {
  const contents = page.node.Contents();
  const streams = contents instanceof PDFArray ? contents.asArray().map((r) => doc.context.lookup(r)) : [contents];
  const parts: Uint8Array[] = [];
  for (const s of streams) {
    const bytes = decode(s);
    if (bytes) parts.push(bytes, Buffer.from('\n'));
  }
  const stripped = parts.length > 0 ? stripText(Buffer.concat(parts)) : { data: null, visible: 0, invisible: 0 };
  if (stripped.data) page.node.set(PDFName.of('Contents'), doc.context.register(compressed(doc, doc.context.obj({}), stripped.data)));
  const resources = page.node.Resources();
  if (resources) stripForms(doc, resources, visited);
  return stripped.invisible > 0 && stripped.visible === 0;
}

function stripForms(doc: PDFDocument, resources: PDFDict, visited: Set<PDFRef>): void {
  const xobjects = resources.lookupMaybe(PDFName.of('XObject'), PDFDict);
  if (!xobjects) return;
  for (const [, value] of xobjects.entries()) {
    if (!(value instanceof PDFRef) || visited.has(value)) continue;
    visited.add(value);
    const stream = doc.context.lookup(value);
    if (!(stream instanceof PDFRawStream) || stream.dict.get(PDFName.of('Subtype')) !== PDFName.of('Form')) continue;
    const bytes = decode(stream);
    const stripped = bytes ? stripTextOperators(bytes) : null;
    if (stripped) doc.context.assign(value, compressed(doc, stream.dict.clone(doc.context), stripped));
    const own = stream.dict.lookupMaybe(PDFName.of('Resources'), PDFDict);
    if (own) stripForms(doc, own, visited);
  }
}

export interface PageOutput {
  blocks: TextBlock[];
  /** Text to draw per block: its translation, or its own text for blocks that are not translated. */
  texts: string[];
  /** The page is kept as it is (its text cannot be read back, so it could not be redrawn). */
  keep?: boolean;
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
    if (pages[p]!.keep) {
      if (options.watermark) drawWatermark(page, await embed(fontFor({ family: 'sans', bold: false, italic: false })));
      continue;
    }
    const scanned = stripPage(doc, page, visited);
    const { blocks, texts } = pages[p]!;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b]!;
      const font = fontFor(block.font);
      const pdfFont = await embed(font);
      // over a scan, the translation covers the image's own text
      if (scanned && block.translatable) cover(page, block);
      if (block.translatable) drawBlock(page, pdfFont, font, block, texts[b] ?? block.text);
      else drawVerbatim(page, pdfFont, font, block);
    }
    if (options.watermark) drawWatermark(page, await embed(fontFor({ family: 'sans', bold: false, italic: false })));
  }
  return Buffer.from(await doc.save({ useObjectStreams: true }));
}

function colorOf(hex: string) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  return m ? rgb(parseInt(m[1]!, 16) / 255, parseInt(m[2]!, 16) / 255, parseInt(m[3]!, 16) / 255) : rgb(0, 0, 0);
}

/** Fonts set per page: pdf-lib adds a font resource on every setFont, so it is called only when the font changes. */
const currentFont = new WeakMap<PDFPage, PDFFont>();

function drawLine(page: PDFPage, font: PDFFont, color: string, angle: number, u: number, v: number, text: string, size: number): void {
  const { x, y } = fromFrame(angle, u, v);
  if (currentFont.get(page) !== font) {
    page.setFont(font);
    currentFont.set(page, font);
  }
  page.drawText(text, { x, y, size, color: colorOf(color), rotate: degrees((angle * 180) / Math.PI) });
}

/** The translation wrapped in the block's box (grown into free room when needed), shrunk until it fits. */
function drawBlock(page: PDFPage, pdfFont: PDFFont, font: DrawFont, block: TextBlock, translation: string): void {
  const text = font.metrics.drawable(translation.replace(/\s+/gu, ' ').trim());
  if (text === '') return;
  const width = (block.lines.length > 1 ? block.right - block.left : block.maxRight - block.left) + 0.01;
  const fitted = fitText(text, font.metrics, block.size, block.lineGap, width, block.top - block.maxBottom, block.lines.length === 1);
  let v = block.top - 0.8 * fitted.size;
  for (const line of fitted.lines) {
    const w = font.metrics.measure(line) * fitted.size;
    const u = block.align === 'right' ? block.right - w : block.align === 'center' ? (block.left + block.right - w) / 2 : block.left;
    drawLine(page, pdfFont, block.color, block.angle, u, v, line, fitted.size);
    v -= fitted.lineGap;
  }
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

/** Numbers, bullets and symbols go back where they were. */
function drawVerbatim(page: PDFPage, pdfFont: PDFFont, font: DrawFont, block: TextBlock): void {
  for (const line of block.lines) {
    const text = font.metrics.drawable(line.text);
    if (text.trim() !== '') drawLine(page, pdfFont, block.color, block.angle, line.u0, line.v, text, line.size);
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
