// Test helper: the image layout checker. A translated image is judged by the source's words it did not replace
// (recognized with confidence, outside every translated segment) whose pixels it changed anyway, and by the tokens
// with digits (identifiers, numbers) it still shows, by the replaced words whose ink it left in place (erased in part),
// and by the painted lines set far smaller than the source paragraph they stand in; shared by test/documents/real-documents.test.ts and
// bench/image-layout.ts.
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { fontSizeOf, type Box } from '../../src/documents/formats/image/paragraphs.js';
import type { RecognizedWord, RgbImage, TextRecognizer } from '../../src/documents/formats/image/text-recognizer.js';
import { numberTokens } from './pdf-layout-check.js';

export interface DecodedImage {
  width: number;
  height: number;
  /** RGBA. */
  data: Uint8ClampedArray;
  rgb: RgbImage;
}

export async function decodeImage(bytes: Buffer): Promise<DecodedImage> {
  const img = await loadImage(bytes);
  const ctx = createCanvas(img.width, img.height).getContext('2d');
  ctx.drawImage(img, 0, 0);
  const { data } = ctx.getImageData(0, 0, img.width, img.height);
  const rgb = Buffer.alloc(img.width * img.height * 3);
  for (let i = 0, j = 0; i < data.length; i += 4, j += 3) rgb.set(data.subarray(i, i + 3), j);
  return { width: img.width, height: img.height, data, rgb: { width: img.width, height: img.height, rgb } };
}

/** Whether any pixel of the box (grown by one) differs by more than 48 in a channel. */
export function touched(a: { width: number; height: number; data: Uint8ClampedArray }, b: { data: Uint8ClampedArray }, box: Box): boolean {
  for (let y = Math.max(0, box.top - 1); y <= Math.min(a.height - 1, box.top + box.height); y++) {
    for (let x = Math.max(0, box.left - 1); x <= Math.min(a.width - 1, box.left + box.width); x++) {
      const i = (y * a.width + x) * 4;
      if ([0, 1, 2].some((c) => Math.abs(a.data[i + c]! - b.data[i + c]!) > 48)) return true;
    }
  }
  return false;
}

/**
 * Where the pixels of `box` in `a` appear in `b` (each channel within `tolerance`), searched near the same rows (up to
 * `reach` rows above or below).
 */
export function findCrop(a: { width: number; data: Uint8ClampedArray }, box: Box, b: { width: number; height: number; data: Uint8ClampedArray }, tolerance: number, reach = box.height): { left: number; top: number } | undefined {
  const equalAt = (left: number, top: number) => {
    for (let y = 0; y < box.height; y++) {
      for (let x = 0; x < box.width; x++) {
        const [i, j] = [((box.top + y) * a.width + box.left + x) * 4, ((top + y) * b.width + left + x) * 4];
        if ([0, 1, 2].some((c) => Math.abs(a.data[i + c]! - b.data[j + c]!) > tolerance)) return false;
      }
    }
    return true;
  };
  for (let top = Math.max(0, box.top - reach); top <= Math.min(b.height - box.height, box.top + reach); top++) {
    for (let left = 0; left <= b.width - box.width; left++) if (equalAt(left, top)) return { left, top };
  }
  return undefined;
}

export interface ImageLayoutReport {
  /** The source's confident words outside every translated segment, and those of them whose pixels changed. */
  untranslated: RecognizedWord[];
  paintedOver: RecognizedWord[];
  /** Tokens with digits in the source, and how many of them the output still shows (read back or left untouched). */
  digitTokens: number;
  keptDigitTokens: number;
  /**
   * Number tokens (runs of digits, as the PDF checker counts them) of the source's confident words, and how many the output
   * still shows: in a word left untouched, or read back (each read-back token counts once). "28-year-old" → "de 28 años"
   * keeps its number though no word with digits is the same.
   */
  sourceNumbers: number;
  keptNumbers: number;
  /**
   * Replaced words with some of their inked columns left exactly as they were once the painter erased what it replaces (the image
   * rebuilt with a blank for each replaced segment: a painted letter the same as the old one at the same place would
   * otherwise look unerased): not erased in full before painting.
   */
  unerased: RecognizedWord[];
  /** Painted lines whose font size is below SHRUNK × that of the source paragraph they overlap most. */
  shrunkLines: { text: string; ratio: number }[];
}

/** A painted line set below this share of its source paragraph's font size is shrunk (a fitted translation stays above). */
export const SHRUNK = 0.7;

/** A pixel differing from the colour around the box by more than this (sum over R, G, B) is ink. */
const INK_CONTRAST = 150;

/** Columns of the word's box that hold ink in the source, and those of them whose pixels did not change at all. */
export function untouchedInkColumns(a: DecodedImage, b: { data: Uint8ClampedArray }, box: Box): { ink: number; untouched: number } {
  const rows = [Math.max(0, box.top), Math.min(a.height, box.top + box.height)];
  const cols = [Math.max(0, box.left), Math.min(a.width, box.left + box.width)];
  const sum = (x: number, y: number) => a.data[(y * a.width + x) * 4]! + a.data[(y * a.width + x) * 4 + 1]! + a.data[(y * a.width + x) * 4 + 2]!;
  // the background: the median of a frame two pixels outside the box (a tight box around letters is mostly ink)
  const frame: number[] = [];
  for (let x = Math.max(0, box.left - 2); x < Math.min(a.width, box.left + box.width + 2); x++) {
    for (const y of [box.top - 2, box.top + box.height + 1]) if (y >= 0 && y < a.height) frame.push(sum(x, y));
  }
  for (let y = rows[0]!; y < rows[1]!; y++) for (const x of [box.left - 2, box.left + box.width + 1]) if (x >= 0 && x < a.width) frame.push(sum(x, y));
  const median = frame.sort((p, q) => p - q)[Math.floor(frame.length / 2)] ?? 765;
  let ink = 0;
  let untouched = 0;
  for (let x = cols[0]!; x < cols[1]!; x++) {
    let inked = false;
    let same = true;
    for (let y = rows[0]!; y < rows[1]!; y++) {
      const i = (y * a.width + x) * 4;
      if (Math.abs(sum(x, y) - median) > INK_CONTRAST) inked = true;
      if ([0, 1, 2].some((c) => Math.abs(a.data[i + c]! - b.data[i + c]!) > 48)) same = false;
    }
    if (inked) ink++;
    if (inked && same) untouched++;
  }
  return { ink, untouched };
}

/**
 * A replaced word counts as erased in part when the eraser changed some of its inked columns and left this share of
 * them (and at least two) untouched. A word it left whole is not counted: the checker tells replaced words by their
 * text, and a word of a replaced segment may also stand elsewhere, left in place.
 */
const UNERASED_SHARE = 0.15;

/** Output lines (read back) on pixels the painter changed, each against the source paragraph it overlaps most. */
function shrunkLines(before: DecodedImage, after: DecodedImage, source: readonly RecognizedWord[], output: readonly RecognizedWord[]) {
  const groups = (ws: readonly RecognizedWord[], key: (w: RecognizedWord) => string) => {
    const m = new Map<string, RecognizedWord[]>();
    for (const w of ws) m.set(key(w), [...(m.get(key(w)) ?? []), w]);
    return [...m.values()];
  };
  const paragraphs = groups(source, (w) => `${w.block}/${w.paragraph}`).map((ws) => ({ box: union(ws), size: fontSizeOf(ws) })).filter((p) => p.size > 0);
  const found: { text: string; ratio: number }[] = [];
  for (const line of groups(output.filter((w) => w.confidence >= 60 && /\p{L}/u.test(w.text)), (w) => `${w.block}/${w.paragraph}/${w.line}`)) {
    const box = union(line);
    const size = fontSizeOf(line);
    if (size === 0 || !touched(before, after, box)) continue;
    const best = paragraphs.reduce<{ area: number; size: number }>((m, p) => (overlapArea(p.box, box) > m.area ? { area: overlapArea(p.box, box), size: p.size } : m), { area: 0, size: 0 });
    if (best.area > 0 && size < SHRUNK * best.size) found.push({ text: line.map((w) => w.text).join(' '), ratio: Math.round((100 * size) / best.size) / 100 });
  }
  return found;
}

const union = (bs: readonly Box[]): Box => {
  const [l, t] = [Math.min(...bs.map((b) => b.left)), Math.min(...bs.map((b) => b.top))];
  return { left: l, top: t, width: Math.max(...bs.map((b) => b.left + b.width)) - l, height: Math.max(...bs.map((b) => b.top + b.height)) - t };
};

const overlapArea = (a: Box, b: Box) =>
  Math.max(0, Math.min(a.left + a.width, b.left + b.width) - Math.max(a.left, b.left)) * Math.max(0, Math.min(a.top + a.height, b.top + b.height) - Math.max(a.top, b.top));

/** Blanks for the translations that replace their segment: the rebuild then only erases (`erasedOnly` of checkImageLayout). */
export const blanks = (sources: readonly string[], translations: readonly string[]) => sources.map((s, i) => (translations[i] === s ? s : ' '));

/** Compares a translated image with its source, given the segments sent and what came back for each. */
export async function checkImageLayout(
  recognizer: TextRecognizer, source: Buffer, output: Buffer, erasedOnly: Buffer, sources: readonly string[], translations: readonly string[],
): Promise<ImageLayoutReport> {
  const [before, after, erased] = [await decodeImage(source), await decodeImage(output), await decodeImage(erasedOnly)];
  const replaced = new Set(sources.flatMap((s, i) => (translations[i] === s ? [] : s.split(' '))));
  const sourceWords = await recognizer.recognize(before.rgb, 'en');
  const words = sourceWords.filter((w) => /[\p{L}\p{N}]/u.test(w.text) && w.confidence >= 60);
  // a word hyphenated at a line end ("ex-" / "ecutes") is one word of the segment sent: both halves were replaced
  for (const [k, w] of words.entries()) {
    const next = words[k + 1];
    const joined = next ? w.text.slice(0, -1) + next.text : '';
    if (/\p{L}-$/u.test(w.text) && (replaced.has(joined) || replaced.has(joined.replace(/[^\p{L}]+$/u, '')))) replaced.add(w.text).add(next!.text);
  }
  const untranslated = words.filter((w) => !replaced.has(w.text));
  const paintedOver = untranslated.filter((w) => touched(before, after, w));
  const digits = (ws: RecognizedWord[]) => ws.filter((w) => /\d/u.test(w.text) && w.height < w.width);
  const readBack = await recognizer.recognize(after.rgb, 'es');
  const read = new Set(digits(readBack).map((w) => w.text));
  const tokens = digits(words);
  const kept = tokens.filter((w) => read.has(w.text) || !touched(before, after, w));
  const readNumbers = numberTokens(readBack.map((w) => w.text).join(' '));
  let [sourceNumbers, keptNumbers] = [0, 0];
  for (const w of words) {
    const left = !touched(before, after, w);
    for (const [token, count] of numberTokens(w.text)) {
      const found = left ? count : Math.min(count, readNumbers.get(token) ?? 0);
      if (!left) readNumbers.set(token, (readNumbers.get(token) ?? 0) - found);
      sourceNumbers += count;
      keptNumbers += found;
    }
  }
  const unerased = words.filter((w) => replaced.has(w.text) && ((c) => c.untouched < c.ink && c.untouched >= Math.max(2, UNERASED_SHARE * c.ink))(untouchedInkColumns(before, erased, w)));
  return {
    untranslated, paintedOver, digitTokens: tokens.length, keptDigitTokens: kept.length, sourceNumbers, keptNumbers, unerased,
    shrunkLines: shrunkLines(before, after, sourceWords.filter((w) => w.confidence >= 60), readBack),
  };
}
