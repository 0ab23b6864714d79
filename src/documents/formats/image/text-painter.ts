// Paints a translation over a paragraph's original text: background colour over the old text, then the new text
// in the old text's colour, wrapped to the paragraph's width and shrunk until it fits its height.
import { existsSync } from 'node:fs';
import type { ImageData, SKRSContext2D } from '@napi-rs/canvas';
import { canvas as canvasModule } from '../canvas.js';
import { pieces, readLine, slotted, type PaintedText } from './inline-words.js';
import type { Box, ImageParagraph, InlineWord } from './paragraphs.js';
import { clip, ColourMedian, eachPixel, pixelDistance, type Pixels, type Rgba } from './pixels.js';
import type { RecognizedWord } from './text-recognizer.js';

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
/**
 * The same next to the text, within a margin of it: a JPEG's ringing around letters (differences of 50 and more on a
 * scan saved at quality 80) is still far fainter than any ink, and would otherwise leave a line no room at all.
 */
const HALO_TOLERANCE = 3 * PLAIN_TOLERANCE;

let fontFamily: string | undefined;
/** Registers DejaVu Sans once; without it the canvas' default sans-serif face is used. */
function family(): string {
  if (fontFamily === undefined) {
    fontFamily = existsSync(FONT_PATH) && canvasModule().GlobalFonts.registerFromPath(FONT_PATH, FONT_FAMILY) ? `"${FONT_FAMILY}"` : 'sans-serif';
  }
  return fontFamily;
}

/** What is needed to paint one paragraph, taken from the original pixels before anything is painted. */
export interface PaintPlan {
  /** The paragraph's recognized text: a translation that reads the same leaves its pixels alone. */
  source: string;
  /** Where the translation is written: the text's box with a margin for anti-aliased edges, clear of other words. */
  area: Box;
  /** Painted over with the background: the area and each line's own box (a line may reach past a word beside it). */
  erase: Box[];
  background: Rgba;
  ink: Rgba;
  /** Font size of the original text in pixels, the size the translation starts from. */
  fontPx: number;
  /** Rows of plain background below the area that a longer translation may also use. */
  roomBelow: number;
  /** Columns of plain background right of the area, short of the next ink, that a longer translation may use. */
  roomRight: number;
  /** Rows of plain background below the area and its room on the right together: the room below once the text is wider. */
  roomBelowWide: number;
  /** The paragraph's unsure inline words: a translation's empty tag with id k is painted as word k's original pixels. */
  inline: InlineWord[];
}

/**
 * Every paragraph's plan; the words of the image outside a paragraph (other paragraphs, unsure words, rules) are kept
 * clear of it: its text stays out of the other paragraphs' lines, and its erase out of their words.
 */
export function planParagraphs(pixels: Pixels, paragraphs: readonly ImageParagraph[], words: readonly RecognizedWord[]): PaintPlan[] {
  // a blank "word" is a rule the recognizer saw (kept clear when thin), or a picture region (not a word to keep clear of)
  const marks = words.filter((w) => w.width > 0 && w.height > 0 && (w.text.trim() !== '' || Math.min(w.width, w.height) <= RULE_MAX_PX));
  return paragraphs.map((p, i) => {
    const own = (b: Box) => p.lines.some((l) => inside(b, l));
    const strays = marks.filter((w) => !own(w));
    const others = paragraphs.filter((_, k) => k !== i);
    return planParagraph(pixels, p, [...others.flatMap((q) => q.lines), ...strays], [...others.flatMap((q) => q.words), ...strays]);
  });
}

/**
 * `obstacles` bound the area the translation is written in; `otherWords` (the words of the image that are not the
 * paragraph's) bound only what is erased around each of its words. A word of the paragraph is erased whole even where
 * a neighbour's line box reaches over it: cut back with the area, it would show half erased beside its translation.
 */
export function planParagraph(pixels: Pixels, p: ImageParagraph, obstacles: readonly Box[] = [], otherWords: readonly Box[] = obstacles): PaintPlan {
  // without words that tell (single letters), a line of text is about one font size tall
  const fontPx = Math.max(MIN_FONT_PX, p.fontPx || Math.max(...p.lines.map((l) => l.height)));
  const m = margin(fontPx);
  const grown = (b: Box) => clip({ left: b.left - m, top: b.top - m, width: b.width + 2 * m, height: b.height + 2 * m }, pixels);
  const area = avoid(grown(p.box), obstacles);
  const erase = [area, ...p.lines.map((l) => avoid(grown(l), obstacles)), ...p.words.map((w) => avoid(grown(w), otherWords))].filter((b) => b.width > 0 && b.height > 0);
  const background = backgroundColour(pixels, area, 2);
  const roomBelow = plainRowsBelow(pixels, area, background, area.height, m) - 2 * m;
  // a gap of half an em is left before the next ink, so the translation does not run into a neighbour
  const roomRight = Math.max(0, plainColumnsRight(pixels, area, background, 4 * area.width, m) - Math.round(fontPx / 2));
  // text that takes the room on the right also goes down there: that corner must be plain too
  const wide = { ...area, width: area.width + roomRight };
  const roomBelowWide = roomRight > 0 ? plainRowsBelow(pixels, wide, background, area.height, m) - 2 * m : roomBelow;
  return {
    source: p.text, area, erase, background, ink: inkColour(pixels, p.box, background), fontPx,
    roomBelow: Math.max(0, roomBelow), roomRight, roomBelowWide: Math.max(0, Math.min(roomBelow, roomBelowWide)), inline: p.inline,
  };
}

/** Thickness up to which a blank box the recognizer reports is a ruled line. */
const RULE_MAX_PX = 4;

const inside = (b: Box, r: Box) => b.left >= r.left - 1 && b.top >= r.top - 1 && b.left + b.width <= r.left + r.width + 1 && b.top + b.height <= r.top + r.height + 1;

const overlaps = (a: Box, b: Box) => a.left < b.left + b.width && b.left < a.left + a.width && a.top < b.top + b.height && b.top < a.top + a.height;

/** The box cut back from each obstacle that reaches into it, on whichever side keeps the most of it. */
function avoid(box: Box, obstacles: readonly Box[]): Box {
  let b = box;
  for (const o of obstacles) {
    if (!overlaps(b, o)) continue;
    const right = b.left + b.width;
    const bottom = b.top + b.height;
    const cuts: Box[] = [
      { ...b, width: o.left - b.left },
      { ...b, left: o.left + o.width, width: right - (o.left + o.width) },
      { ...b, height: o.top - b.top },
      { ...b, top: o.top + o.height, height: bottom - (o.top + o.height) },
    ];
    b = cuts.reduce((best, c) => (Math.max(0, c.width) * Math.max(0, c.height) > Math.max(0, best.width) * Math.max(0, best.height) ? c : best));
    b = { ...b, width: Math.max(0, b.width), height: Math.max(0, b.height) };
  }
  return b;
}

const same = (a: string, b: string) => a.replace(/\s+/gu, ' ').trim() === b.replace(/\s+/gu, ' ').trim();

/**
 * The original pixels of an inline word over its line's height (the recognizer sometimes boxes a strip of a word, and
 * the whole line is erased), with a pixel around for the anti-aliased edges its box leaves out.
 */
const cropBox = (w: InlineWord, ctx: SKRSContext2D): Box => {
  const top = Math.min(w.box.top, w.line.top);
  const bottom = Math.max(w.box.top + w.box.height, w.line.top + w.line.height);
  return clip({ left: w.box.left - 1, top: top - 1, width: w.box.width + 2, height: bottom - top + 2 }, ctx.canvas);
};

/** Inline words are scaled with the text: at the original's size (rounded as fit starts it) they keep their pixels. */
const inlineScale = (plan: PaintPlan, fontPx: number) => fontPx / Math.max(1, Math.round(plan.fontPx));

/** Paints the background over every plan first, so one paragraph's text is never erased by the next one's fill. */
export function paint(ctx: SKRSContext2D, allPlans: readonly PaintPlan[], allTranslations: readonly PaintedText[]): void {
  const lines = allPlans.map((plan, i) => slotted(allTranslations[i] ?? plan.source, plan.inline));
  // text the engine gave back as it was (names, codes, stamps) is not painted again over itself
  const changed = allPlans.flatMap((plan, i) => (same(readLine(lines[i]!, plan.inline), plan.source) ? [] : [i]));
  const plans = changed.map((i) => allPlans[i]!);
  const translations = changed.map((i) => lines[i]!);
  // the unsure words' pixels, taken before anything is erased
  const crops = new Map(plans.flatMap((plan) => plan.inline.map((w) => {
    const b = cropBox(w, ctx);
    return [w, b.width > 0 && b.height > 0 ? cropCanvas(ctx.getImageData(b.left, b.top, b.width, b.height)) : undefined] as const;
  })));
  for (const plan of plans) {
    for (const b of plan.erase) {
      // cleared first: a (semi-)transparent background would otherwise let the old text show through
      ctx.clearRect(b.left, b.top, b.width, b.height);
      ctx.fillStyle = css(plan.background);
      ctx.fillRect(b.left, b.top, b.width, b.height);
    }
  }
  plans.forEach((plan, i) => {
    const text = (translations[i] ?? '').replace(/\s+/g, ' ').trim();
    if (text === '' || plan.area.width === 0 || plan.area.height === 0) return;
    const { fontPx, lines, width, height } = fit(ctx, text, plan);
    const inner = innerBox(plan);
    ctx.save();
    // the room the text may take and not a pixel more: never over a neighbour, whatever the font does
    ctx.beginPath();
    ctx.rect(inner.left, plan.area.top, width, height + margin(plan.fontPx));
    ctx.clip();
    ctx.font = `${fontPx}px ${family()}`;
    ctx.fillStyle = css(plan.ink);
    ctx.textBaseline = 'alphabetic';
    ctx.textAlign = 'left';
    const scale = inlineScale(plan, fontPx);
    lines.forEach((line, n) => {
      const baseline = inner.top + ASCENT * fontPx + n * LINE_PITCH * fontPx;
      let x = inner.left;
      for (const piece of pieces(line, plan.inline)) {
        if (typeof piece === 'string') {
          ctx.fillText(piece, x, baseline);
          x += ctx.measureText(piece).width;
          continue;
        }
        const crop = crops.get(piece);
        const b = cropBox(piece, ctx);
        // where it sat under its line's top, at the painted line's top (the top of its tall letters)
        const top = baseline - ASCENT * fontPx + (b.top - piece.line.top) * scale;
        if (crop) ctx.drawImage(crop, Math.round(x), Math.round(top), Math.round(b.width * scale), Math.round(b.height * scale));
        x += Math.round(b.width * scale);
      }
    });
    ctx.restore();
  });
}

function cropCanvas(data: ImageData) {
  const c = canvasModule().createCanvas(data.width, data.height);
  c.getContext('2d').putImageData(data, 0, 0);
  return c;
}

/** A laid-out line's width: its text, and its inline words at their width scaled to the font size. */
function lineWidth(ctx: SKRSContext2D, line: string, plan: PaintPlan, fontPx: number): number {
  const scale = inlineScale(plan, fontPx);
  return pieces(line, plan.inline).reduce((w, p) => w + (typeof p === 'string' ? ctx.measureText(p).width : Math.round(cropBox(p, ctx).width * scale)), 0);
}

/** Height from the text's top that the translation may fill: its area and the plain rows below (`below` of them). */
const availableHeight = (plan: PaintPlan, below: number) => plan.area.height - margin(plan.fontPx) + below;

const heightOf = (lines: number, fontPx: number) => (lines - 1) * LINE_PITCH * fontPx + (ASCENT + DESCENT) * fontPx;

/**
 * The largest font size (from the original's down to a floor) whose wrapped lines fit the area, first at the
 * original's width, then reaching into the plain room on the right. At the floor, the lines that fit, the last one
 * ending in an ellipsis.
 */
export function fit(ctx: SKRSContext2D, text: string, plan: PaintPlan): { fontPx: number; lines: string[]; width: number; height: number } {
  const inner = innerBox(plan);
  const rooms = [{ width: inner.width, height: availableHeight(plan, plan.roomBelow) }];
  if (plan.roomRight > 0) rooms.push({ width: inner.width + plan.roomRight, height: availableHeight(plan, plan.roomBelowWide) });
  const smallest = Math.max(MIN_FONT_PX, Math.floor(plan.fontPx * 0.4));
  let fontPx = Math.max(smallest, Math.round(plan.fontPx));
  const measure = (s: string) => lineWidth(ctx, s, plan, fontPx);
  for (;;) {
    ctx.font = `${fontPx}px ${family()}`;
    const widestWord = Math.max(...text.split(' ').map(measure));
    for (const { width, height } of rooms) {
      const lines = wrap(text, measure, width);
      if (widestWord <= width && heightOf(lines.length, fontPx) <= height) return { fontPx, lines, width, height };
    }
    if (fontPx <= smallest) break;
    fontPx = Math.max(smallest, Math.floor(fontPx * 0.92));
  }
  const { width, height } = rooms[rooms.length - 1]!;
  const lines = wrap(text, measure, width);
  const room = Math.max(1, Math.floor((height - heightOf(1, fontPx)) / (LINE_PITCH * fontPx)) + 1);
  if (lines.length <= room) return { fontPx, lines, width, height };
  const kept = lines.slice(0, room);
  let last = kept[room - 1]!;
  while (last !== '' && measure(`${last}…`) > width) last = [...last].slice(0, -1).join('');
  kept[room - 1] = `${last.trimEnd()}…`;
  return { fontPx, lines: kept, width, height };
}

/** Greedy word wrap; a word wider than the line is broken between its characters. */
export function wrap(text: string, measure: (s: string) => number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (measure(candidate) <= width) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    line = '';
    for (const ch of word) {
      if (line !== '' && measure(line + ch) > width) {
        lines.push(line);
        line = '';
      }
      line += ch;
    }
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

/** How many columns right of the box (at most `max`) hold nothing but the background, over the box's rows; `halo` columns next to it may hold a faint halo. */
function plainColumnsRight(px: Pixels, b: Box, background: Rgba, max: number, halo: number): number {
  let columns = 0;
  for (let x = b.left + b.width; x < Math.min(px.width, b.left + b.width + max); x++, columns++) {
    const tolerance = columns < halo ? HALO_TOLERANCE : PLAIN_TOLERANCE;
    for (let y = b.top; y < b.top + b.height; y++) {
      if (pixelDistance(px.data, (y * px.width + x) * 4, background) > tolerance) return columns;
    }
  }
  return columns;
}

/** How many rows under the box (at most `max`) hold nothing but the background (a faint halo in the first `halo`): room for text to grow into. */
function plainRowsBelow(px: Pixels, b: Box, background: Rgba, max: number, halo: number): number {
  const d = px.data;
  let rows = 0;
  for (let y = b.top + b.height; y < Math.min(px.height, b.top + b.height + max); y++, rows++) {
    const tolerance = rows < halo ? HALO_TOLERANCE : PLAIN_TOLERANCE;
    for (let x = b.left; x < b.left + b.width; x++) {
      const i = (y * px.width + x) * 4;
      if (pixelDistance(d, i, background) > tolerance) return rows;
    }
  }
  return rows;
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
  const dist = (i: number) => pixelDistance(d, i, background);
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
