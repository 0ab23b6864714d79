// Glyphs that the text layer reads as private-use characters (TeX's old-style digits and brace pieces, a symbol font's
// bullet) have no Unicode meaning a substitute face could show: in a line drawn anew they are drawn from the source's
// own font, by their character code, between the runs drawn in DejaVu, so a reader sees what the source showed.
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFRawStream, PDFRef, beginText, endText, popGraphicsState, pushGraphicsState, rotateAndSkewTextRadiansAndTranslate, setFillingColor, setFontAndSize, showText, type Color, type PDFDocument, type PDFPage } from 'pdf-lib';
import type { Metrics } from './fonts.js';
import type { SourceGlyphs } from './page-text.js';

/** A source glyph ready to draw on a page: the font resource naming its font there, its code as shown, its advance. */
export interface PlacedGlyph {
  resource: PDFName;
  hex: string;
  advance: number;
}

/**
 * A font's name as pdf.js reports it: its BaseFont, but for a Type3 font (which has none) its descriptor's FontName,
 * else "Type3" (TeX's bitmap fonts): a kept Type3 font must stay in the content, or its glyphs go unseen; for a
 * composite (Type0) font its descendant's BaseFont (the Type0's own has the CMap's name appended).
 */
export function readerFontName(font: PDFDict): string | undefined {
  const subtype = font.lookup(PDFName.of('Subtype'));
  const descendant = subtype === PDFName.of('Type0') ? font.lookupMaybe(PDFName.of('DescendantFonts'), PDFArray)?.lookup(0) : undefined;
  const name =
    subtype === PDFName.of('Type3')
      ? (font.lookupMaybe(PDFName.of('FontDescriptor'), PDFDict)?.lookup(PDFName.of('FontName')) ?? PDFName.of('Type3'))
      : (descendant instanceof PDFDict ? descendant : font).lookup(PDFName.of('BaseFont'));
  return name instanceof PDFName ? name.decodeText() : undefined;
}

/** A code as the font's show operators take it: one byte for simple fonts, two for Identity-encoded CID fonts. */
function codeHex(font: PDFDict, code: number): string | undefined {
  if (font.lookup(PDFName.of('Subtype')) === PDFName.of('Type0')) {
    const encoding = font.lookup(PDFName.of('Encoding'));
    const identity = encoding === PDFName.of('Identity-H') || encoding === PDFName.of('Identity-V');
    return identity && code < 0x10000 ? code.toString(16).padStart(4, '0') : undefined;
  }
  return code < 0x100 ? code.toString(16).padStart(2, '0') : undefined;
}

/** The source glyphs of one page, placed on demand (each font once under a resource name of its own). */
export class PageGlyphs {
  private fonts?: Map<string, PDFRef>;
  private readonly resources = new Map<string, PDFName>();

  constructor(
    private readonly doc: PDFDocument,
    private readonly page: PDFPage,
    private readonly glyphs: SourceGlyphs,
  ) {}

  /** The glyphs a text holds that can be drawn again, in the fonts of `preferred` (a block's pieces) first. */
  placed(text: string, preferred: ReadonlySet<string>): Map<string, PlacedGlyph> {
    const out = new Map<string, PlacedGlyph>();
    for (const ch of new Set(text)) {
      const candidates = [...(this.glyphs.get(ch) ?? [])].sort((a, b) => Number(preferred.has(b.fontName)) - Number(preferred.has(a.fontName)));
      for (const g of candidates) {
        const placed = this.place(g.fontName, g.code, g.advance);
        if (placed) {
          out.set(ch, placed);
          break;
        }
      }
    }
    return out;
  }

  private place(fontName: string, code: number, advance: number): PlacedGlyph | undefined {
    const ref = this.pageFonts().get(fontName);
    const font = ref && this.doc.context.lookup(ref);
    const hex = font instanceof PDFDict ? codeHex(font, code) : undefined;
    if (!ref || hex === undefined) return undefined;
    let resource = this.resources.get(fontName);
    if (!resource) {
      resource = this.page.node.newFontDictionary('TolkSource', ref);
      this.resources.set(fontName, resource);
    }
    return { resource, hex, advance };
  }

  /** The page's fonts (its own and its forms', as references) by the name pdf.js gives them. */
  private pageFonts(): Map<string, PDFRef> {
    if (this.fonts) return this.fonts;
    const fonts = new Map<string, PDFRef>();
    const seen = new Set<PDFDict>();
    const walk = (resources: PDFDict | undefined) => {
      if (!resources || seen.has(resources)) return;
      seen.add(resources);
      for (const [, value] of resources.lookupMaybe(PDFName.of('Font'), PDFDict)?.entries() ?? []) {
        const font = value instanceof PDFRef ? this.doc.context.lookup(value) : undefined;
        const name = font instanceof PDFDict ? readerFontName(font) : undefined;
        if (name !== undefined && !fonts.has(name)) fonts.set(name, value as PDFRef);
      }
      for (const [, value] of resources.lookupMaybe(PDFName.of('XObject'), PDFDict)?.entries() ?? []) {
        const form = this.doc.context.lookup(value);
        if (form instanceof PDFRawStream) walk(form.dict.lookupMaybe(PDFName.of('Resources'), PDFDict));
      }
    };
    walk(this.page.node.Resources());
    this.fonts = fonts;
    return fonts;
  }
}

/** Advances of a face with the source glyphs a text holds. */
export function withGlyphs(base: Metrics, glyphs: ReadonlyMap<string, PlacedGlyph>): Metrics {
  if (glyphs.size === 0) return base;
  const advance = (cp: number) => glyphs.get(String.fromCodePoint(cp))?.advance ?? base.advance(cp);
  return {
    advance,
    measure(text: string) {
      let w = 0;
      for (const ch of text) w += advance(ch.codePointAt(0)!);
      return w;
    },
  };
}

/** A text cut into runs: those of source glyphs and those drawn in the face. */
export function runs(text: string, glyphs: ReadonlyMap<string, PlacedGlyph>): { text: string; source: boolean }[] {
  const out: { text: string; source: boolean }[] = [];
  for (const ch of text) {
    const source = glyphs.has(ch);
    const last = out[out.length - 1];
    if (last && last.source === source) last.text += ch;
    else out.push({ text: ch, source });
  }
  return out;
}

/** Source glyphs drawn from (x, y) along `angle` (radians), each in its own font. */
export function drawSourceGlyphs(page: PDFPage, text: string, glyphs: ReadonlyMap<string, PlacedGlyph>, color: Color, angle: number, x: number, y: number, size: number): void {
  const ops = [pushGraphicsState(), setFillingColor(color), beginText()];
  let at = 0;
  let font: PDFName | undefined;
  for (const ch of text) {
    const g = glyphs.get(ch)!;
    if (g.resource !== font) ops.push(setFontAndSize(g.resource, size));
    font = g.resource;
    ops.push(rotateAndSkewTextRadiansAndTranslate(angle, 0, 0, x + at * Math.cos(angle), y + at * Math.sin(angle)), showText(PDFHexString.of(g.hex)));
    at += g.advance * size;
  }
  ops.push(endText(), popGraphicsState());
  page.pushOperators(...ops);
}
