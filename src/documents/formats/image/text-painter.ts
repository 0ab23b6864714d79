// Paints a translation over a paragraph's original text: background colour over the old text, then the new text
// in the old text's colour, wrapped to the paragraph's width and shrunk until it fits its height.
import { existsSync } from 'node:fs';
import { GlobalFonts, type SKRSContext2D } from '@napi-rs/canvas';
import type { Box, ImageParagraph } from './paragraphs.js';

const FONT_PATH = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
const FONT_FAMILY = 'DejaVu Sans';
/** Baseline-to-baseline distance in font sizes. */
const LINE_PITCH = 1.25;
/** Ink above the baseline of tall letters (DejaVu Sans ascenders) and below it (descenders), in font sizes. */
const ASCENT = 0.76;
const DESCENT = 0.24;
const MIN_FONT_PX = 8;
/** Largest colour difference (sum over R, G, B) still counted as plain background: JPEG noise, gentle gradients. */
const PLAIN_TOLERANCE = 36;

let fontFamily: string | undefined;
/** Registers DejaVu Sans once; without it the canvas' default sans-serif face is used. */
function family(): string {
  if (fontFamily === undefined) {
    fontFamily = existsSync(FONT_PATH) && GlobalFonts.registerFromPath(FONT_PATH, FONT_FAMILY) ? `"${FONT_FAMILY}"` : 'sans-serif';
  }
  return fontFamily;
}

export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

export interface Pixels {
  width: number;
  height: number;
  /** RGBA, row by row */
  data: Uint8ClampedArray;
}

/** What is needed to paint one paragraph, taken from the original pixels before anything is painted. */
export interface PaintPlan {
  /** The paragraph's recognized text: a translation that reads the same leaves its pixels alone. */
  source: string;
  /** Area painted over with the background: the text's box with a margin for anti-aliased edges. */
  area: Box;
  background: Rgba;
  ink: Rgba;
  /** Font size of the original text in pixels, the size the translation starts from. */
  fontPx: number;
  /** Rows of plain background below the area that a longer translation may also use. */
  roomBelow: number;
}

export function planParagraph(pixels: Pixels, p: ImageParagraph): PaintPlan {
  // without words that tell (single letters), a line of text is about one font size tall
  const fontPx = Math.max(MIN_FONT_PX, p.fontPx || Math.max(...p.lines.map((l) => l.height)));
  const m = margin(fontPx);
  const area = clip(
    { left: p.box.left - m, top: p.box.top - m, width: p.box.width + 2 * m, height: p.box.height + 2 * m },
    pixels,
  );
  const background = backgroundColour(pixels, area, 2);
  const roomBelow = plainRowsBelow(pixels, area, background, area.height) - 2 * m;
  return { source: p.text, area, background, ink: inkColour(pixels, p.box, background), fontPx, roomBelow: Math.max(0, roomBelow) };
}

const same = (a: string, b: string) => a.replace(/\s+/gu, ' ').trim() === b.replace(/\s+/gu, ' ').trim();

/** Paints the background over every plan first, so one paragraph's text is never erased by the next one's fill. */
export function paint(ctx: SKRSContext2D, allPlans: readonly PaintPlan[], allTranslations: readonly string[]): void {
  // text the engine gave back as it was (names, codes, stamps) is not painted again over itself
  const changed = allPlans.flatMap((plan, i) => (same(allTranslations[i] ?? plan.source, plan.source) ? [] : [i]));
  const plans = changed.map((i) => allPlans[i]!);
  const translations = changed.map((i) => allTranslations[i] ?? '');
  for (const plan of plans) {
    // cleared first: a (semi-)transparent background would otherwise let the old text show through
    ctx.clearRect(plan.area.left, plan.area.top, plan.area.width, plan.area.height);
    ctx.fillStyle = css(plan.background);
    ctx.fillRect(plan.area.left, plan.area.top, plan.area.width, plan.area.height);
  }
  plans.forEach((plan, i) => {
    const text = (translations[i] ?? '').replace(/\s+/g, ' ').trim();
    if (text === '') return;
    const { fontPx, lines } = fit(ctx, text, plan);
    ctx.font = `${fontPx}px ${family()}`;
    ctx.fillStyle = css(plan.ink);
    ctx.textBaseline = 'alphabetic';
    ctx.textAlign = 'left';
    const inner = innerBox(plan);
    lines.forEach((line, n) => ctx.fillText(line, inner.left, inner.top + ASCENT * fontPx + n * LINE_PITCH * fontPx));
  });
}

/** The largest font size (from the original's down) whose wrapped lines fit the area; the smallest size otherwise. */
export function fit(ctx: SKRSContext2D, text: string, plan: PaintPlan): { fontPx: number; lines: string[] } {
  const inner = innerBox(plan);
  const smallest = Math.max(MIN_FONT_PX, Math.floor(plan.fontPx * 0.4));
  let fontPx = Math.max(smallest, Math.round(plan.fontPx));
  for (;;) {
    ctx.font = `${fontPx}px ${family()}`;
    const lines = wrap(text, (s) => ctx.measureText(s).width, inner.width);
    const height = (lines.length - 1) * LINE_PITCH * fontPx + (ASCENT + DESCENT) * fontPx;
    const widest = Math.max(...lines.map((l) => ctx.measureText(l).width));
    if ((height <= plan.area.height - margin(plan.fontPx) + plan.roomBelow && widest <= inner.width) || fontPx <= smallest) return { fontPx, lines };
    fontPx = Math.max(smallest, Math.floor(fontPx * 0.92));
  }
}

/** Greedy word wrap; a word wider than the line stays alone on its line (the fit loop then shrinks the font). */
export function wrap(text: string, measure: (s: string) => number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (line !== '' && measure(candidate) > width) {
      lines.push(line);
      line = word;
    } else line = candidate;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** Text starts where the original did: the area without its margin. */
function innerBox(plan: PaintPlan): Box {
  const m = margin(plan.fontPx);
  return { left: plan.area.left + m, top: plan.area.top + m, width: Math.max(1, plan.area.width - 2 * m), height: Math.max(1, plan.area.height - 2 * m) };
}

/** Room around the recognized box for anti-aliased letter edges the recognizer's box leaves out. */
function margin(fontPx: number): number {
  return 2 + Math.round(fontPx * 0.08);
}

function clip(b: Box, px: Pixels): Box {
  const left = Math.max(0, b.left);
  const top = Math.max(0, b.top);
  const right = Math.min(px.width, b.left + b.width);
  const bottom = Math.min(px.height, b.top + b.height);
  return { left, top, width: Math.max(0, right - left), height: Math.max(0, bottom - top) };
}

/** Visits the pixels of a box (clipped to the image) as offsets into the RGBA data. */
function eachPixel(px: Pixels, b: Box, visit: (i: number) => void, skip?: Box): void {
  const c = clip(b, px);
  for (let y = c.top; y < c.top + c.height; y++) {
    const skipRow = skip !== undefined && y >= skip.top && y < skip.top + skip.height;
    for (let x = c.left; x < c.left + c.width; x++) {
      if (skipRow && x >= skip.left && x < skip.left + skip.width) continue;
      visit((y * px.width + x) * 4);
    }
  }
}

/** How many rows under the box (at most `max`) hold nothing but the background: room for text to grow into. */
function plainRowsBelow(px: Pixels, b: Box, background: Rgba, max: number): number {
  const d = px.data;
  let rows = 0;
  for (let y = b.top + b.height; y < Math.min(px.height, b.top + b.height + max); y++, rows++) {
    for (let x = b.left; x < b.left + b.width; x++) {
      const i = (y * px.width + x) * 4;
      const diff = Math.abs(d[i]! - background.r) + Math.abs(d[i + 1]! - background.g) + Math.abs(d[i + 2]! - background.b);
      if (diff + Math.abs(d[i + 3]! - background.a) > PLAIN_TOLERANCE) return rows;
    }
  }
  return rows;
}

/** Per-channel median through histograms (boxes can hold millions of pixels): robust against a stray letter or line. */
class ColourMedian {
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

/** The median colour of a `thickness`-wide frame just outside the box (what surrounds the text), else of the box. */
export function backgroundColour(px: Pixels, b: Box, thickness: number): Rgba {
  const ring = new ColourMedian();
  const outer = { left: b.left - thickness, top: b.top - thickness, width: b.width + 2 * thickness, height: b.height + 2 * thickness };
  eachPixel(px, outer, (i) => ring.add(px.data, i), b);
  const found = ring.result();
  if (found) return found;
  const inside = new ColourMedian();
  eachPixel(px, b, (i) => inside.add(px.data, i));
  return inside.result() ?? { r: 255, g: 255, b: 255, a: 255 };
}

function distance(a: Rgba, b: Rgba): number {
  return Math.abs(a.r - b.r) + Math.abs(a.g - b.g) + Math.abs(a.b - b.b) + Math.abs(a.a - b.a);
}

/**
 * The text colour: the average of the 5 % of the box's pixels that differ most from the background (the cores of
 * the letters, not their anti-aliased edges); black or white by the background's lightness when that has no contrast.
 */
export function inkColour(px: Pixels, box: Box, background: Rgba): Rgba {
  const d = px.data;
  // alpha counts too: black text on a transparent background differs from it only in alpha
  const dist = (i: number) =>
    Math.abs(d[i]! - background.r) + Math.abs(d[i + 1]! - background.g) + Math.abs(d[i + 2]! - background.b) + Math.abs(d[i + 3]! - background.a);
  const hist = new Uint32Array(1021);
  let total = 0;
  eachPixel(px, box, (i) => {
    hist[dist(i)]!++;
    total++;
  });
  let threshold = 1020;
  for (let seen = 0; threshold > 0; threshold--) if ((seen += hist[threshold]!) >= Math.max(1, total * 0.05)) break;
  const sum = [0, 0, 0, 0];
  let n = 0;
  eachPixel(px, box, (i) => {
    if (dist(i) < threshold) return;
    for (let c = 0; c < 4; c++) sum[c]! += d[i + c]!;
    n++;
  });
  const [r, g, b, a] = sum.map((v) => Math.round(v / Math.max(1, n)));
  const ink = n > 0 ? { r: r!, g: g!, b: b!, a: a! } : background;
  if (distance(ink, background) >= 120) return ink;
  // no contrast found: black or white, whichever stands out on the background as shown (over white)
  const over = (c: number) => (c * background.a) / 255 + (255 - background.a);
  const light = 0.299 * over(background.r) + 0.587 * over(background.g) + 0.114 * over(background.b) > 128;
  return light ? { r: 0, g: 0, b: 0, a: 255 } : { r: 255, g: 255, b: 255, a: 255 };
}

function css(c: Rgba): string {
  return `rgba(${c.r}, ${c.g}, ${c.b}, ${(c.a / 255).toFixed(3)})`;
}
