// Test helper: the image layout checker. A translated image is judged by the source's words it did not replace
// (recognized with confidence, outside every translated segment) whose pixels it changed anyway, and by the tokens
// with digits (identifiers, numbers) it still shows; shared by test/documents/real-documents.test.ts and
// bench/image-layout.ts.
import { createCanvas, loadImage } from '@napi-rs/canvas';
import type { Box } from '../../src/documents/formats/image/paragraphs.js';
import type { RecognizedWord, RgbImage, TextRecognizer } from '../../src/documents/formats/image/text-recognizer.js';

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

export interface ImageLayoutReport {
  /** The source's confident words outside every translated segment, and those of them whose pixels changed. */
  untranslated: RecognizedWord[];
  paintedOver: RecognizedWord[];
  /** Tokens with digits in the source, and how many of them the output still shows (read back or left untouched). */
  digitTokens: number;
  keptDigitTokens: number;
}

/** Compares a translated image with its source, given the segments sent and what came back for each. */
export async function checkImageLayout(
  recognizer: TextRecognizer, source: Buffer, output: Buffer, sources: readonly string[], translations: readonly string[],
): Promise<ImageLayoutReport> {
  const [before, after] = [await decodeImage(source), await decodeImage(output)];
  const replaced = new Set(sources.flatMap((s, i) => (translations[i] === s ? [] : s.split(' '))));
  const words = (await recognizer.recognize(before.rgb, 'en')).filter((w) => /[\p{L}\p{N}]/u.test(w.text) && w.confidence >= 60);
  // a word hyphenated at a line end ("ex-" / "ecutes") is one word of the segment sent: both halves were replaced
  for (const [k, w] of words.entries()) {
    const next = words[k + 1];
    const joined = next ? w.text.slice(0, -1) + next.text : '';
    if (/\p{L}-$/u.test(w.text) && (replaced.has(joined) || replaced.has(joined.replace(/[^\p{L}]+$/u, '')))) replaced.add(w.text).add(next!.text);
  }
  const untranslated = words.filter((w) => !replaced.has(w.text));
  const paintedOver = untranslated.filter((w) => touched(before, after, w));
  const digits = (ws: RecognizedWord[]) => ws.filter((w) => /\d/u.test(w.text) && w.height < w.width);
  const read = new Set(digits(await recognizer.recognize(after.rgb, 'es')).map((w) => w.text));
  const tokens = digits(words);
  const kept = tokens.filter((w) => read.has(w.text) || !touched(before, after, w));
  return { untranslated, paintedOver, digitTokens: tokens.length, keptDigitTokens: kept.length };
}
