// The fonts translations are drawn with (DejaVu, which covers Latin, Greek and Cyrillic) and fast text measurement:
// advances are read once per code point from the font's metrics, since pdf-lib's own measuring lays out every call.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fontkit from '@pdf-lib/fontkit';
import type { FontStyle } from './layout.js';

const FONT_DIR = '/usr/share/fonts/truetype/dejavu';

/** DejaVu files per style; fonts-dejavu-core has the regular and bold ones, the italics come with fonts-dejavu-extra. */
const FILES: Record<string, string> = {
  'sans': 'DejaVuSans.ttf',
  'sans-bold': 'DejaVuSans-Bold.ttf',
  'sans-italic': 'DejaVuSans-Oblique.ttf',
  'sans-bold-italic': 'DejaVuSans-BoldOblique.ttf',
  'serif': 'DejaVuSerif.ttf',
  'serif-bold': 'DejaVuSerif-Bold.ttf',
  'serif-italic': 'DejaVuSerif-Italic.ttf',
  'serif-bold-italic': 'DejaVuSerif-BoldItalic.ttf',
  'mono': 'DejaVuSansMono.ttf',
  'mono-bold': 'DejaVuSansMono-Bold.ttf',
  'mono-italic': 'DejaVuSansMono-Oblique.ttf',
  'mono-bold-italic': 'DejaVuSansMono-BoldOblique.ttf',
};

export interface DrawFont {
  /** Cache key and file name. */
  key: string;
  bytes: Uint8Array;
  metrics: FontMetrics;
}

/** What text is wrapped and fitted by: advances in em. */
export interface Metrics {
  /** Advance of one code point in em. */
  advance(codePoint: number): number;
  /** Width of `text` in em. */
  measure(text: string): number;
}

/** Per-code-point advances (in em) of one font, measured once. */
export class FontMetrics implements Metrics {
  private readonly font: fontkit.Font;
  private readonly advances = new Map<number, number>();

  constructor(bytes: Uint8Array) {
    this.font = fontkit.create(bytes);
  }

  has(codePoint: number): boolean {
    return this.font.hasGlyphForCodePoint(codePoint);
  }

  /** Advance of one code point in em. */
  advance(codePoint: number): number {
    let a = this.advances.get(codePoint);
    if (a === undefined) {
      a = this.font.glyphForCodePoint(codePoint).advanceWidth / this.font.unitsPerEm;
      this.advances.set(codePoint, a);
    }
    return a;
  }

  /** Width of `text` in em. */
  measure(text: string): number {
    let w = 0;
    for (const ch of text) w += this.advance(ch.codePointAt(0)!);
    return w;
  }

  /**
   * The text with characters the font cannot draw replaced (controls by spaces, others by '?'), but for those in
   * `kept` (drawn from another font). A private-use character has no meaning of its own: standing alone it is taken
   * for a symbol font's bullet (its usual use in a text layer), within a word it is any glyph (an old-style digit).
   */
  drawable(text: string, kept?: ReadonlySet<string>): string {
    const chars = [...text];
    let out = '';
    chars.forEach((ch, k) => {
      const cp = ch.codePointAt(0)!;
      if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) out += ' ';
      else if (kept?.has(ch) || this.has(cp)) out += ch;
      else if (/\s/u.test(ch)) out += ' ';
      else if (/\p{Co}/u.test(ch) && !/\S/u.test(chars[k - 1] ?? ' ') && !/\S/u.test(chars[k + 1] ?? ' ')) out += '•';
      else out += this.lookAlike(ch) ?? '?';
    });
    return out;
  }

  /** The character's compatibility form (NFKC) or its look-alike, where the font draws that instead. */
  private lookAlike(ch: string): string | undefined {
    const other = LOOK_ALIKES[ch] ?? ch.normalize('NFKC');
    return other !== ch && [...other].every((c) => this.has(c.codePointAt(0)!)) ? other : undefined;
  }
}

/**
 * Characters DejaVu lacks whose look-alike it has: CMSY's angle brackets come out of pdf.js as the CJK ones (U+3008,
 * U+3009; U+2329/232A decompose to them), as in SIstyle's "⟨degs⟩".
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = { '\u3008': '\u27E8', '\u3009': '\u27E9', '\u2329': '\u27E8', '\u232A': '\u27E9' };

const loaded = new Map<string, DrawFont>();

function load(key: string): DrawFont | undefined {
  const cached = loaded.get(key);
  if (cached) return cached;
  const path = join(FONT_DIR, FILES[key]!);
  if (!existsSync(path)) return undefined;
  const bytes = new Uint8Array(readFileSync(path));
  const font = { key, bytes, metrics: new FontMetrics(bytes) };
  loaded.set(key, font);
  return font;
}

/** The closest installed DejaVu face for a style: italic falls back to upright, other families to Sans. */
export function fontFor(style: FontStyle): DrawFont {
  const weight = style.bold ? '-bold' : '';
  const candidates = [
    `${style.family}${weight}${style.italic ? '-italic' : ''}`,
    `${style.family}${weight}`,
    `sans${weight}`,
    'sans',
  ];
  for (const key of candidates) {
    const font = load(key);
    if (font) return font;
  }
  throw new Error(`PDF output needs the DejaVu fonts (fonts-dejavu-core) in ${FONT_DIR}.`);
}

/**
 * TeX's fonts say their face in a short code: CMTT10 typewriter, CMR/CMBX/CMTI/CMSL roman, SFRM/SFBX (EC) roman;
 * txfonts' and newtx's typewriter (txtt, t1xtt) has no design size after it.
 */
const TEX_MONO = /^(?:(?:cm(?:tt|sltt|itt|tcsc)|sftt|sfit|sfst|ectt|tctt|lmmono)\d|(?:txb?tt|t1xb?tt)(?:\d|$))/i;
const TEX_SERIF = /^(?:cm(?:r|bx|b|ti|bxti|sl|bxsl|csc|u|fib|mi|mib)|sf(?:rm|bx|ti|sl|cc|bi|xc)|ec(?:rm|bx|ti|sl|cc)|tc(?:rm|bx|ti))\d/i;

/** A face's style from a PDF font name ("ABCDEF+TimesNewRomanPS-BoldItalicMT", "XYZ+CMBX12"). */
export function styleOfFontName(name: string | undefined): FontStyle {
  const n = (name ?? '').replace(/^[A-Z]{6}\+/, '');
  const family =
    /mono|courier|consol|code|typewriter|menlo|monaco|nimbusmon|lettergothic/i.test(n) || TEX_MONO.test(n)
      ? 'mono'
      : (/serif|times|roman|georgia|garamond|cambria|minion|book|palatino|baskerville|nimbusrom|libertine|charter|utopia|termes|pagella|schola|bonum/i.test(n) && !/sans/i.test(n)) || TEX_SERIF.test(n)
        ? 'serif'
        : 'sans';
  const bold = /bold|black|heavy|semibold|demi|-medi$/i.test(n) || /^(?:cm|sf|ec|tc)(?:bx|b\d)|^(?:linlibertinet|linbiolinumt)b/i.test(n);
  const italic = /italic|oblique|[-,]it\b|ital$/i.test(n) || /^(?:cm(?:ti|bxti|sl|bxsl|sltt|itt|mi)|sf(?:ti|sl|bi)|ec(?:ti|sl))\d|^linlibertineti/i.test(n);
  return { family, bold, italic };
}

/**
 * Greedy word wrap of `text` at `size`: line n is no wider than widths[n] (the last width goes on for further lines).
 * A word too wide for a narrow line that a later one can hold leaves that line empty; one wider than every later
 * line is cut.
 */
export function wrap(text: string, metrics: Metrics, size: number, widths: readonly number[]): string[] {
  const lines: string[] = [];
  const widthOf = (n: number) => widths[Math.min(n, widths.length - 1)]!;
  // the widest of line n and those after it
  const after = [...widths];
  for (let n = after.length - 2; n >= 0; n--) after[n] = Math.max(after[n]!, after[n + 1]!);
  const widest = (n: number) => after[Math.min(n, after.length - 1)]!;
  const space = metrics.advance(0x20) * size;
  let line = '';
  let lineWidth = 0;
  for (const word of text.split(/ +/u)) {
    if (word === '') continue;
    let w = metrics.measure(word) * size;
    if (line !== '' && lineWidth + space + w <= widthOf(lines.length)) {
      line += ` ${word}`;
      lineWidth += space + w;
      continue;
    }
    if (line !== '') lines.push(line);
    line = '';
    lineWidth = 0;
    while (w > widthOf(lines.length) && w <= widest(lines.length + 1) && lines.length < widths.length) lines.push('');
    let rest = word;
    while (w > widthOf(lines.length) && [...rest].length > 1) {
      // cut the word where it stops fitting
      let piece = '';
      let pw = 0;
      for (const ch of rest) {
        const cw = metrics.advance(ch.codePointAt(0)!) * size;
        if (piece !== '' && pw + cw > widthOf(lines.length)) break;
        piece += ch;
        pw += cw;
      }
      lines.push(piece);
      rest = rest.slice(piece.length);
      w = metrics.measure(rest) * size;
    }
    line = rest;
    lineWidth = w;
  }
  if (line !== '') lines.push(line);
  return lines;
}

export interface FittedText {
  size: number;
  lineGap: number;
  lines: string[];
}

/**
 * The largest size (down from `size`, at least a third of it) at which `text` wrapped to `widths` (line by line, as
 * `wrap` takes them; they may depend on the size, since smaller lines sit elsewhere) fits `height` with lines
 * `lineGap` apart (scaled with the size), without cutting words; a one-line original is first tried on one line down
 * to 85 % of its size. At the smallest size the text is drawn even if it overflows.
 */
export function fitText(
  text: string, metrics: Metrics, size: number, lineGap: number, widths: (size: number) => readonly number[], height: number, oneLine = false,
): FittedText {
  const minimum = Math.max(size / 3, Math.min(size, 4));
  const natural = metrics.measure(text) * size;
  const first = widths(size)[0]!;
  if (oneLine && natural > first && natural * 0.85 <= first) {
    const s = (size * first) / natural;
    return { size: s, lineGap: (lineGap * s) / size, lines: [text] };
  }
  let longestWord = 0;
  for (const w of text.split(/ +/u)) longestWord = Math.max(longestWord, metrics.measure(w));
  for (let s = size; ; s = Math.max(minimum, s * 0.94)) {
    const gap = (lineGap * s) / size;
    const room = widths(s);
    const lines = wrap(text, metrics, s, room);
    // the first line needs its ascent and descent, each further line a line gap
    const needed = 0.8 * s + 0.25 * s + (lines.length - 1) * gap;
    const fits = needed <= height + 0.01 && longestWord * s <= room[room.length - 1]! + 0.01;
    if (fits || s <= minimum) return { size: s, lineGap: gap, lines };
  }
}
