// Reads a PDF's pages and positioned text with pdf.js (legacy build: runs in Node with its in-process fake worker).
import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { openPdf, pdfjs, type PdfJs } from './pdfjs.js';
import { DocumentFormatError } from '../format.js';
import { styleOfFontName } from './fonts.js';
import type { TextPiece } from './layout.js';

/** Characters pdf.js gives for glyphs of a font without a usable character mapping. */
export const UNMAPPED = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFD]/gu;

export interface PageText {
  /** The visible page box [x0, y0, x1, y1] in user space. */
  view: [number, number, number, number];
  pieces: TextPiece[];
  /** Per private-use character of the page's text, the source glyphs it stands for (one per font). */
  glyphs: SourceGlyphs;
}

/**
 * A glyph the text reads as a private-use character: it has no Unicode meaning (TeX's old-style digits and brace
 * pieces, a symbol font's bullet), so only its own font can show it again, by its character code.
 */
export interface SourceGlyph {
  /** The PDF font's name as pieces carry it (TextPiece.fontName). */
  fontName: string;
  code: number;
  /** Advance in em (text space units per unit of font size). */
  advance: number;
}

export type SourceGlyphs = ReadonlyMap<string, readonly SourceGlyph[]>;

/** Private-use characters: what pdf.js gives for glyph names that Unicode has no character for. */
export const PRIVATE_USE = /\p{Co}/u;

interface PdfjsTextItem {
  str: string;
  transform: number[];
  width: number;
  fontName: string;
}

export interface ReadLimits {
  maxPages: number;
  maxCharacters: number;
}

/** Every page's text pieces; unreadable, encrypted or oversized documents throw a DocumentFormatError. */
export async function readPageTexts(input: Buffer, limits: ReadLimits): Promise<PageText[]> {
  const { OPS } = await pdfjs();
  let doc: PDFDocumentProxy;
  try {
    // images are not needed for text; a tiny limit makes pdf.js skip decoding them
    doc = await openPdf(input, 1);
  } catch (err) {
    const name = (err as Error)?.name;
    if (name === 'PasswordException') throw new DocumentFormatError('The PDF file is password-protected. Remove the password and upload it again.');
    throw new DocumentFormatError('The PDF file cannot be read: it is damaged or not a valid PDF.');
  }
  try {
    if (doc.numPages > limits.maxPages) {
      throw new DocumentFormatError(`The PDF file has ${doc.numPages} pages; at most ${limits.maxPages} pages can be translated.`);
    }
    const pages: PageText[] = [];
    let characters = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const items = content.items.filter((i): i is PdfjsTextItem & typeof i => 'str' in i && i.str.trim() !== '');
      // font names (for bold, italic, serif) reach the main thread with the operator list only; it also has colours
      const fontNames = new Map<string, string | undefined>();
      const fontName = (id: string) => {
        if (!fontNames.has(id)) fontNames.set(id, page.commonObjs.has(id) ? (page.commonObjs.get(id) as { name?: string })?.name : undefined);
        return fontNames.get(id);
      };
      const fontMatrix = (id: string) => (page.commonObjs.has(id) ? (page.commonObjs.get(id) as { fontMatrix?: number[] })?.fontMatrix : undefined);
      const shown = items.length > 0 ? readShownText(OPS, await page.getOperatorList(), fontName, fontMatrix) : undefined;
      const colors = shown?.colors;
      const pieces = items.map((i): TextPiece => {
        const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = i.transform;
        characters += i.str.length;
        const color = colors?.next(i.str);
        return {
          text: i.str,
          x: e,
          y: f,
          angle: Math.atan2(b, a),
          size: Math.hypot(c, d),
          width: i.width,
          font: styleOfFontName(fontName(i.fontName)),
          ...(fontName(i.fontName) !== undefined ? { fontName: fontName(i.fontName)! } : {}),
          ...(color ? { color } : {}),
        };
      });
      if (characters > limits.maxCharacters) {
        throw new DocumentFormatError(`The PDF file has more than ${limits.maxCharacters} characters of text; split it into smaller files.`);
      }
      const [x0 = 0, y0 = 0, x1 = 612, y1 = 792] = page.view;
      pages.push({ view: [Math.min(x0, x1), Math.min(y0, y1), Math.max(x0, x1), Math.max(y0, y1)], pieces, glyphs: shown?.glyphs ?? new Map() });
      page.cleanup();
    }
    return pages;
  } catch (err) {
    if (err instanceof DocumentFormatError) throw err;
    throw new DocumentFormatError('The PDF file is damaged: its pages cannot be read.');
  } finally {
    await doc.destroy();
  }
}

/** How far ahead an item's first character is looked for when the two sequences disagree (normalisation, spaces). */
const RESYNC_WINDOW = 200;

/**
 * What the operator list tells of the shown text: the fill colour of each text item (the operator list shows glyphs
 * in the same order as the text content, with the fill colour in effect; pdf.js turns gray and CMYK into "#rrggbb";
 * items are matched to glyphs by their characters), and the glyphs read as private-use characters.
 */
function readShownText(
  OPS: PdfJs['OPS'],
  list: { fnArray: number[]; argsArray: unknown[] },
  fontName: (id: string) => string | undefined,
  fontMatrix: (id: string) => number[] | undefined,
): { colors: { next(str: string): string | undefined }; glyphs: SourceGlyphs } {
  const SHOW_TEXT_OPS = new Set<number>([OPS.showText, OPS.showSpacedText, OPS.nextLineShowText, OPS.nextLineSetSpacingShowText]);
  const chars: string[] = [];
  const colors: string[] = [];
  const glyphs = new Map<string, SourceGlyph[]>();
  let color = '#000000';
  let font: string | undefined;
  const saved: string[] = [];
  for (let k = 0; k < list.fnArray.length; k++) {
    const fn = list.fnArray[k]!;
    const args = list.argsArray[k] as unknown[] | null;
    if (fn === OPS.save) saved.push(color);
    else if (fn === OPS.restore) color = saved.pop() ?? color;
    else if (fn === OPS.setFillRGBColor && typeof args?.[0] === 'string') color = args[0];
    else if (fn === OPS.setFont && typeof args?.[0] === 'string') font = args[0];
    else if (SHOW_TEXT_OPS.has(fn) && Array.isArray(args?.[0])) {
      for (const glyph of args[0] as unknown[]) {
        const { unicode, originalCharCode, width } = (glyph ?? {}) as { unicode?: unknown; originalCharCode?: unknown; width?: unknown };
        if (typeof unicode !== 'string') continue;
        if (font !== undefined && [...unicode].length === 1 && PRIVATE_USE.test(unicode) && typeof originalCharCode === 'number' && typeof width === 'number') {
          addGlyph(glyphs, unicode, fontName(font), originalCharCode, width * (fontMatrix(font)?.[0] ?? 0.001));
        }
        for (const ch of unicode.normalize('NFKC')) {
          if (/\s/u.test(ch)) continue;
          chars.push(ch);
          colors.push(color);
        }
      }
    }
  }
  return { colors: colorCursor(chars, colors), glyphs };
}

function addGlyph(glyphs: Map<string, SourceGlyph[]>, char: string, fontName: string | undefined, code: number, advance: number): void {
  if (fontName === undefined || !(advance > 0)) return;
  const list = glyphs.get(char) ?? [];
  if (!list.some((g) => g.fontName === fontName)) list.push({ fontName, code, advance });
  glyphs.set(char, list);
}

/** Each text item's colour, looked up in order among the glyphs' characters. */
function colorCursor(chars: readonly string[], colors: readonly string[]): { next(str: string): string | undefined } {
  let at = 0;
  return {
    next(str: string) {
      const wanted = [...str.normalize('NFKC')].filter((ch) => !/\s/u.test(ch));
      if (wanted.length === 0) return undefined;
      for (let k = at; k < Math.min(chars.length, at + RESYNC_WINDOW); k++) {
        if (chars[k] === wanted[0]) {
          at = k + wanted.length;
          return colors[k];
        }
      }
      return undefined;
    },
  };
}
