// Decoded pixels and the few measures taken on them: clipping, visiting a box, median colours.
import type { Box } from './paragraphs.js';

export interface Pixels {
  width: number;
  height: number;
  /** RGBA, row by row */
  data: Uint8ClampedArray;
}

export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

export function clip(b: Box, px: Pick<Pixels, 'width' | 'height'>): Box {
  const left = Math.max(0, b.left);
  const top = Math.max(0, b.top);
  const right = Math.min(px.width, b.left + b.width);
  const bottom = Math.min(px.height, b.top + b.height);
  return { left, top, width: Math.max(0, right - left), height: Math.max(0, bottom - top) };
}

/** Visits the pixels of a box (clipped to the image) as offsets into the RGBA data. */
export function eachPixel(px: Pixels, b: Box, visit: (i: number) => void, skip?: Box): void {
  const c = clip(b, px);
  for (let y = c.top; y < c.top + c.height; y++) {
    const skipRow = skip !== undefined && y >= skip.top && y < skip.top + skip.height;
    for (let x = c.left; x < c.left + c.width; x++) {
      if (skipRow && x >= skip.left && x < skip.left + skip.width) continue;
      visit((y * px.width + x) * 4);
    }
  }
}

/** Per-channel median through histograms (boxes can hold millions of pixels): robust against a stray letter or line. */
export class ColourMedian {
  private readonly hist = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)];
  count = 0;
  add(data: Uint8ClampedArray, i: number): void {
    for (let c = 0; c < 4; c++) this.hist[c]![data[i + c]!]!++;
    this.count++;
  }
  result(): Rgba | undefined {
    if (this.count === 0) return undefined;
    const [r, g, b, a] = this.hist.map((h) => {
      let seen = 0;
      for (let v = 0; v < 256; v++) if ((seen += h[v]!) * 2 > this.count) return v;
      return 255;
    });
    return { r: r!, g: g!, b: b!, a: a! };
  }
}

/** Sum over R, G, B and alpha of the differences between the pixel at `i` and a colour. */
export function pixelDistance(data: Uint8ClampedArray, i: number, c: Rgba): number {
  return Math.abs(data[i]! - c.r) + Math.abs(data[i + 1]! - c.g) + Math.abs(data[i + 2]! - c.b) + Math.abs(data[i + 3]! - c.a);
}

/**
 * Difference from the band's median colour that counts as ink of a ruled line: light grey table borders count
 * (GitHub's #d0d7de is 120 from white and 99 from its header shading #f6f8fa, Bootstrap's #dee2e6 87 from white),
 * cell and code shadings do not (#eff1f3 on white 42, white on #efefef 48). The coverage below, not the contrast,
 * keeps rows of letters and a JPEG's ringing out.
 */
const RULE_CONTRAST = 80;
/** Share of a line's length that must be ink: a dotted or anti-aliased rule still counts, a row of letters does not. */
const RULE_COVERAGE = 0.9;

/**
 * The columns of `band` that a vertical rule (a table's grid line, a divider) crosses from top to bottom; callers
 * pass a band taller than the text line, so a letter's stem never counts.
 */
export function verticalRules(px: Pixels, band: Box): number[] {
  return rules(px, clip(band, px), 'vertical');
}

/** The rows of `band` that a horizontal rule crosses from its left to its right. */
export function horizontalRules(px: Pixels, band: Box): number[] {
  return rules(px, clip(band, px), 'horizontal');
}

function rules(px: Pixels, band: Box, direction: 'vertical' | 'horizontal'): number[] {
  if (band.width === 0 || band.height === 0) return [];
  const median = new ColourMedian();
  eachPixel(px, band, (i) => median.add(px.data, i));
  const background = median.result()!;
  const [across, along] = direction === 'vertical' ? [band.width, band.height] : [band.height, band.width];
  const found: number[] = [];
  for (let a = 0; a < across; a++) {
    let ink = 0;
    for (let b = 0; b < along; b++) {
      const [x, y] = direction === 'vertical' ? [band.left + a, band.top + b] : [band.left + b, band.top + a];
      if (pixelDistance(px.data, (y * px.width + x) * 4, background) > RULE_CONTRAST) ink++;
    }
    if (ink >= along * RULE_COVERAGE) found.push(direction === 'vertical' ? band.left + a : band.top + a);
  }
  return found;
}
