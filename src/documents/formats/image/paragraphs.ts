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
    out.push({ text, box: union(lineBoxes), lines: lineBoxes });
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
