// Test helper: PDFs made as word processors make them, with real fonts (DejaVu from fonts-dejavu-core, embedded and
// subset by pdf-lib + fontkit): wrapped or justified paragraphs, links, tables; a font can lose its character
// mapping (/ToUnicode removed), as in papers whose text cannot be read back; glyphs can be shown by code in fonts
// whose text reads as private-use characters (TeX's old-style digits, a word processor's symbol-font bullet).
import { readFileSync } from 'node:fs';
import fontkit from '@pdf-lib/fontkit';
import { beginText, degrees, endText, moveText, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRef, rgb, setFontAndSize, showText, type PDFFont, type PDFPage } from 'pdf-lib';

const DEJAVU = '/usr/share/fonts/truetype/dejavu/';
export type FontName = 'sans' | 'serif' | 'mono' | 'bold';
const FILES: Record<FontName, string> = { sans: 'DejaVuSans.ttf', serif: 'DejaVuSerif.ttf', mono: 'DejaVuSansMono.ttf', bold: 'DejaVuSans-Bold.ttf' };

export interface Paragraph {
  text: string;
  font?: FontName;
  size?: number;
  /** Lines stretched to both margins (the last one left as it is). */
  justify?: boolean;
  /** Words (exact substrings of `text`) drawn blue and underlined, as a link. */
  links?: string[];
  /** Superscript marks drawn after the given words (author affiliations): word → mark. */
  superscripts?: Record<string, string>;
  /** This paragraph alone is drawn in a font whose character mapping is removed. */
  unmapped?: boolean;
  /** Drawn at this place (first line's top left, points from the page's bottom left) in a column this wide, outside the flow. */
  at?: { x: number; y: number; width?: number };
  /** Each line turned by this many degrees about its start (vertical margin notes, stamps). */
  rotate?: number;
}

/** A picture (PNG) at a place on the page, outside the flow: a scanned page is one covering the whole page. */
export interface Picture {
  png: Buffer;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Table {
  rows: string[][];
  columnWidth: number;
  /** Row height in points (cells are 10 pt text); 18 unless given. */
  rowHeight?: number;
  /** Cell borders drawn (a grid); true unless given. */
  borders?: boolean;
}

/**
 * Glyphs shown by code at a place (outside the flow), in a font (not embedded) whose text pdf.js reads as private-use characters:
 * 'cmmi10' is SIstyle-2.3a.pdf's (texlive-science-doc) math italic, whose codes 0x30-0x39 are the old-style digits
 * (glyph names zerooldstyle…nineoldstyle, 500/1000 em wide, no /ToUnicode); 'symbol' is a word processor's Symbol
 * font whose /ToUnicode maps its bullet 0xB7 to U+F0B7.
 */
export interface GlyphRun {
  font: 'cmmi10' | 'symbol';
  x: number;
  y: number;
  size: number;
  codes: number[];
}

export interface PageSpec {
  /** Drawn in this order (the order a reader's text layer follows). */
  items: (Paragraph | Table | GlyphRun)[];
  /** Pictures painted first, under the text. */
  pictures?: Picture[];
  /** The page's text is drawn in a font whose character mapping is removed (it cannot be read back). */
  unmapped?: boolean;
}

export const PAGE = { width: 595, height: 842, margin: 60 };
const LINE = 1.35;

interface Fonts {
  get(name: FontName, unmapped: boolean): Promise<PDFFont>;
}

/** Builds the document; the fonts of `unmapped` pages lose their /ToUnicode afterwards. */
export async function buildPdf(pages: PageSpec[]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const cache = new Map<string, PDFFont>();
  /** Object numbers of the fonts to strip (kept by the save and load). */
  const unmappedRefs = new Set<number>();
  const fonts: Fonts = {
    async get(name, unmapped) {
      const key = `${name}${unmapped ? '-unmapped' : ''}`;
      let f = cache.get(key);
      if (!f) {
        // a second embedding of the same file is a separate font, so only the unmapped one loses its mapping
        f = await doc.embedFont(readFileSync(DEJAVU + FILES[name]), { subset: true });
        cache.set(key, f);
        if (unmapped) unmappedRefs.add(f.ref.objectNumber);
      }
      return f;
    },
  };
  for (const spec of pages) {
    const page = doc.addPage([PAGE.width, PAGE.height]);
    let y = PAGE.height - PAGE.margin;
    for (const p of spec.pictures ?? []) page.drawImage(await doc.embedPng(p.png), { x: p.x, y: p.y, width: p.width, height: p.height });
    for (const item of spec.items) {
      if ('codes' in item) {
        drawGlyphs(doc, page, item);
        continue;
      }
      if ('text' in item && item.at) {
        await drawParagraph(page, fonts, item, item.at.y, spec.unmapped === true || item.unmapped === true);
        continue;
      }
      y = 'rows' in item ? await drawTable(page, fonts, item, y, spec.unmapped === true) : await drawParagraph(page, fonts, item, y, spec.unmapped === true || item.unmapped === true);
      y -= 14;
    }
  }
  const bytes = await doc.save({ useObjectStreams: false });
  if (unmappedRefs.size === 0) return Buffer.from(bytes);
  const again = await PDFDocument.load(bytes);
  for (const [ref, obj] of again.context.enumerateIndirectObjects()) {
    if (obj instanceof PDFDict && unmappedRefs.has(ref.objectNumber)) obj.delete(PDFName.of('ToUnicode'));
  }
  return Buffer.from(await again.save({ useObjectStreams: false }));
}

const OLDSTYLE = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'].map((d) => PDFName.of(`${d}oldstyle`));

function glyphFont(doc: PDFDocument, font: GlyphRun['font']): PDFRef {
  if (font === 'cmmi10') {
    return doc.context.register(doc.context.obj({
      Type: 'Font', Subtype: 'Type1', BaseFont: 'XXERTP+CMMI10', FirstChar: 48, LastChar: 57, Widths: Array(10).fill(500),
      Encoding: { Type: 'Encoding', Differences: [48, ...OLDSTYLE] },
    }));
  }
  const cmap = `/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Symbol-UCS def /CMapType 2 def
1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <B7> <F0B7> endbfchar endcmap CMapName currentdict /CMap defineresource pop end end`;
  return doc.context.register(doc.context.obj({
    Type: 'Font', Subtype: 'TrueType', BaseFont: 'Symbol', FirstChar: 183, LastChar: 183, Widths: [460],
    ToUnicode: doc.context.register(doc.context.stream(cmap)),
  }));
}

function drawGlyphs(doc: PDFDocument, page: PDFPage, run: GlyphRun): void {
  const name = page.node.newFontDictionary(run.font, glyphFont(doc, run.font));
  const hex = run.codes.map((c) => c.toString(16).padStart(2, '0')).join('');
  page.pushOperators(beginText(), setFontAndSize(name, run.size), moveText(run.x, run.y), showText(PDFHexString.of(hex)), endText());
}

/** Splits a paragraph into lines no wider than the text column. */
export function wrap(text: string, font: PDFFont, size: number, width: number): string[][] {
  const lines: string[][] = [];
  let line: string[] = [];
  for (const word of text.split(/\s+/u).filter(Boolean)) {
    const next = [...line, word].join(' ');
    if (line.length > 0 && font.widthOfTextAtSize(next, size) > width) {
      lines.push(line);
      line = [word];
    } else line.push(word);
  }
  if (line.length > 0) lines.push(line);
  return lines;
}

async function drawParagraph(page: PDFPage, fonts: Fonts, p: Paragraph, top: number, unmapped: boolean): Promise<number> {
  const font = await fonts.get(p.font ?? 'serif', unmapped);
  const size = p.size ?? 11;
  const left = p.at?.x ?? PAGE.margin;
  const width = p.at?.width ?? PAGE.width - 2 * PAGE.margin;
  const lines = wrap(p.text, font, size, width);
  const rotate = degrees(p.rotate ?? 0);
  const links = new Set((p.links ?? []).flatMap((l) => l.split(' ')));
  let y = top - size;
  lines.forEach((words, n) => {
    const natural = font.widthOfTextAtSize(words.join(' '), size);
    const last = n === lines.length - 1;
    const gap = font.widthOfTextAtSize(' ', size) + (p.justify && !last && words.length > 1 ? (width - natural) / (words.length - 1) : 0);
    let x = left;
    if (p.rotate) {
      // a turned line is drawn whole, from its start, as stamps and margin notes are
      page.drawText(words.join(' '), { x, y, size, font, rotate });
      y -= size * LINE;
      return;
    }
    for (const word of words) {
      const w = font.widthOfTextAtSize(word, size);
      const link = links.has(word.replace(/[.,;:]$/u, ''));
      page.drawText(word, { x, y, size, font, color: link ? rgb(0, 0, 0.8) : rgb(0, 0, 0) });
      if (link) page.drawLine({ start: { x, y: y - 1.5 }, end: { x: x + w, y: y - 1.5 }, thickness: 0.6, color: rgb(0, 0, 0.8) });
      const mark = p.superscripts?.[word.replace(/[.,;:]$/u, '')];
      if (mark) page.drawText(mark, { x: x + w + 0.5, y: y + size * 0.4, size: size * 0.6, font, color: rgb(0, 0, 0) });
      x += w + gap + (mark ? 0.5 + font.widthOfTextAtSize(mark, size * 0.6) : 0);
    }
    y -= size * LINE;
  });
  return y + size * LINE - size * 0.3;
}

async function drawTable(page: PDFPage, fonts: Fonts, t: Table, top: number, unmapped: boolean): Promise<number> {
  const font = await fonts.get('sans', unmapped);
  const size = 10;
  const rowHeight = t.rowHeight ?? 18;
  let y = top;
  for (const row of t.rows) {
    row.forEach((cell, c) => {
      const x = PAGE.margin + c * t.columnWidth;
      if (t.borders !== false) page.drawRectangle({ x, y: y - rowHeight, width: t.columnWidth, height: rowHeight, borderWidth: 0.5, borderColor: rgb(0, 0, 0) });
      page.drawText(cell, { x: x + 4, y: y - rowHeight + 5, size, font });
    });
    y -= rowHeight;
  }
  return y;
}

/** The words of a text, lower case (letters and digits), for word-share counts. */
export const wordsOf = (s: string): string[] => (s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** A PDF file of these objects written by hand (object 1 the catalog), for pages whose operators a test sets itself. */
export function pdfOfObjects(objs: readonly string[]): Buffer {
  let out = '%PDF-1.4\n';
  const offsets = objs.map((o, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  return Buffer.from(`${out}trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`, 'latin1');
}
