// Groups recognized words into paragraphs (one segment each) with the boxes their text occupies in the image.
import type { RecognizedWord } from './text-recognizer.js';

/** Words below this confidence are left alone: mostly noise (texture, photos, lines) read as letters. */
export const MIN_WORD_CONFIDENCE = 60;

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface ImageParagraph {
  text: string;
  /** Union of the paragraph's word boxes. */
  box: Box;
  /** One box per line, top to bottom. */
  lines: Box[];
  /** Font size of the text in pixels, estimated from its words' heights (0 when no word tells). */
  fontPx: number;
}

export function union(boxes: readonly Box[]): Box {
  const left = Math.min(...boxes.map((b) => b.left));
  const top = Math.min(...boxes.map((b) => b.top));
  const right = Math.max(...boxes.map((b) => b.left + b.width));
  const bottom = Math.max(...boxes.map((b) => b.top + b.height));
  return { left, top, width: right - left, height: bottom - top };
}

export function paragraphsOf(words: readonly RecognizedWord[], minConfidence = MIN_WORD_CONFIDENCE): ImageParagraph[] {
  // Map keeps the recognizer's reading order of paragraphs and lines
  const byParagraph = new Map<string, Map<number, RecognizedWord[]>>();
  for (const w of words) {
    const text = w.text.trim();
    if (text === '' || w.confidence < minConfidence || w.width <= 0 || w.height <= 0) continue;
    const key = `${w.block}/${w.paragraph}`;
    let lines = byParagraph.get(key);
    if (!lines) byParagraph.set(key, (lines = new Map()));
    let line = lines.get(w.line);
    if (!line) lines.set(w.line, (line = []));
    line.push({ ...w, text });
  }
  const out: ImageParagraph[] = [];
  for (const lines of byParagraph.values()) {
    const lineWords = [...lines.values()];
    const text = joinLines(lineWords.map((ws) => ws.map((w) => w.text).join(' ')));
    // a paragraph of stray symbols ("|", "—", "©") is not text to translate
    if (!/\p{L}/u.test(text)) continue;
    const lineBoxes = lineWords.map((ws) => union(ws));
    out.push({ text, box: union(lineBoxes), lines: lineBoxes, fontPx: fontSizeOf(lineWords.flat()) });
  }
  return out;
}

/** Lines of a paragraph form one sentence flow; a word hyphenated across a line break is joined again. */
function joinLines(lines: readonly string[]): string {
  let text = '';
  for (const line of lines) {
    if (text === '') text = line;
    else if (/\p{Ll}-$/u.test(text) && /^\p{Ll}/u.test(line)) text = text.slice(0, -1) + line;
    else text += ` ${line}`;
  }
  return text;
}

// Ink extents of DejaVu-like sans faces in font sizes: the recognizer's word box runs from the top of its tallest
// letter to the bottom of its lowest one, so a word's height says its font size once its letters are known.
const ASCENDER = 0.76;
const X_HEIGHT = 0.55;
const DESCENDER = 0.24;

/** The median of the sizes its words suggest: robust against a word whose box caught a stray mark. */
export function fontSizeOf(words: readonly RecognizedWord[]): number {
  const sizes: number[] = [];
  for (const w of words) {
    const letters = w.text.replace(/[^\p{L}\p{N}]/gu, '');
    if (letters.length < 2) continue;
    const top = /[\p{Lu}\p{N}bdfhklt]/u.test(letters) ? ASCENDER : /[ijß]/u.test(letters) ? 0.7 : X_HEIGHT;
    const bottom = /[gjpqyç]/u.test(letters) ? DESCENDER : 0;
    sizes.push(w.height / (top + bottom));
  }
  if (sizes.length === 0) return 0;
  sizes.sort((a, b) => a - b);
  return sizes[Math.floor(sizes.length / 2)]!;
}
