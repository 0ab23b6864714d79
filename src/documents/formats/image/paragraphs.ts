// Groups recognized words into paragraphs (one segment each) with the boxes their text occupies in the image.
import type { TaggedText } from '../../../markup/index.js';
import { horizontalRules, verticalRules, type Pixels } from './pixels.js';
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
  /** Each word's box: what the painter must erase in full. */
  words: Box[];
  /** Font size of the text in pixels, estimated from its words' heights (0 when no word tells). */
  fontPx: number;
  /**
   * The text with each unsure inline word cut out as an empty tag (id: its index in `inline`), the markup layer's way
   * of carrying it through the engine: its original pixels are painted where the engine put the tag.
   */
  unit: TaggedText;
  inline: InlineWord[];
}

/** An unsure word kept in its sentence as it was drawn. */
export interface InlineWord {
  /** The recognizer's reading: what a translation is told apart from the source by, and what a plain-text translation shows. */
  text: string;
  box: Box;
  /** Its line's box: where the word sits within its line. */
  line: Box;
}

/** Stands for an unsure word while the lines are joined (Tesseract never reads a private-use character). */
const SLOT = '\uE000';

export function union(boxes: readonly Box[]): Box {
  const left = Math.min(...boxes.map((b) => b.left));
  const top = Math.min(...boxes.map((b) => b.top));
  const right = Math.max(...boxes.map((b) => b.left + b.width));
  const bottom = Math.max(...boxes.map((b) => b.top + b.height));
  return { left, top, width: right - left, height: bottom - top };
}

/** A gap wider than this many font sizes between two words of a recognized line separates cells or cards. */
const CELL_GAP_EM = 1.2;

/**
 * A word set on end (a stamp up the margin): several letters in a box half as tall again as it is wide (a short word
 * of narrow letters upright, "it;" or "ill", can be a little taller than wide). Left as it is, unread.
 */
const turned = (w: RecognizedWord) => [...w.text].length >= 3 && w.height > 1.5 * w.width;

/** A run of words on one line, with the index of its line in the recognizer's paragraph. */
interface Run {
  words: RecognizedWord[];
  line: number;
  /** Its words the recognizer was unsure of, kept inline. */
  unsure?: Set<RecognizedWord>;
}

/** Largest height of an inline word the recognizer was unsure of, in font sizes (a code span's box with its parentheses). */
const INLINE_MAX_EM = 1.3;

/**
 * The words of a line the recognizer was unsure of that are still words of its text: set inline (as tall as the
 * line's text at most, each beside a sure or inline word, no wider apart than words of one cell) and with a letter
 * or digit, such as an identifier in a code face or a key name. Left out, they would cut a sentence into pieces
 * painted apart and smaller; noise read as letters (texture, a photo beside the text) is not inline.
 */
function inlineUnsure(line: readonly RecognizedWord[], sure: ReadonlySet<RecognizedWord>, em: number): Set<RecognizedWord> {
  const inline = new Set<RecognizedWord>();
  const candidate = (w: RecognizedWord) =>
    !sure.has(w) && !turned(w) && w.height <= INLINE_MAX_EM * em && /[\p{L}\p{N}]/u.test(w.text);
  const beside = (a: RecognizedWord, b: RecognizedWord) => {
    const gap = Math.max(a.left, b.left) - Math.min(a.left + a.width, b.left + b.width);
    const shared = Math.min(a.top + a.height, b.top + b.height) - Math.max(a.top, b.top);
    return gap <= CELL_GAP_EM * em && shared >= 0.5 * Math.min(a.height, b.height);
  };
  // forwards then backwards, so a run of unsure words beside a sure one is taken whole
  for (const order of [line, [...line].reverse()]) {
    for (let k = 1; k < order.length; k++) {
      const [before, word] = [order[k - 1]!, order[k]!];
      if (candidate(word) && (sure.has(before) || inline.has(before)) && beside(before, word)) inline.add(word);
    }
  }
  return inline;
}

/** Plain words (letters, then at most a stop or comma) among a line's sure words that make it prose, not code. */
const PROSE_WORDS = 3;

/**
 * Whether a line's sure words read as prose: three or more plain words, and at least half of them. A line of code
 * (a prompt, calls, quoted strings) is cut at its unsure words as before, so that each code line stays its own.
 */
function prose(sure: ReadonlySet<RecognizedWord>): boolean {
  const plain = [...sure].filter((w) => /^\p{L}+[.,;:!?]?$/u.test(w.text)).length;
  return plain >= PROSE_WORDS && 2 * plain >= sure.size;
}

/**
 * A recognized line cut into runs: at a gap wide enough to separate table cells or cards, at a ruled line (a grid
 * line the recognizer read across), and at a word below the confidence cut-off or set on end (dropped, and left out
 * of every box, so its pixels are never painted over) unless it stands inline in a line of prose. A word a ruled line runs
 * through is a misread piece of the rule when it is one or two characters, else it keeps the part of its box on its
 * wider side of the rule.
 */
function runsOf(line: readonly RecognizedWord[], index: number, minConfidence: number, pixels: Pixels | undefined): Run[] {
  const sure = new Set(line.filter((w) => w.confidence >= minConfidence && !turned(w)));
  const em = fontSizeOf([...sure]) || Math.max(...[...sure].map((w) => w.height), 1) / ASCENDER;
  const unsure = prose(sure) ? inlineUnsure(line, sure, em) : new Set<RecognizedWord>();
  const kept = new Set([...sure, ...unsure]);
  const rules = pixels ? verticalRulesAcross(line, pixels) : [];
  const runs: Run[] = [];
  let current: RecognizedWord[] = [];
  const close = () => {
    if (current.length > 0) runs.push({ words: current, line: index, unsure });
    current = [];
  };
  for (const word of line) {
    if (!kept.has(word)) {
      close();
      continue;
    }
    const inside = rules.filter((x) => x >= word.left && x < word.left + word.width);
    if (inside.length > 0 && [...word.text].length <= 2) {
      close();
      continue;
    }
    const w = inside.length > 0 ? besideRules(word, inside) : word;
    const last = current[current.length - 1];
    const ruled = last !== undefined && rules.some((x) => x >= last.left + last.width - 1 && x <= w.left);
    if (last && (ruled || w.left - (last.left + last.width) > CELL_GAP_EM * em)) close();
    current.push(w);
    if (inside.length > 0) close();
  }
  close();
  return runs;
}

/** Columns a vertical rule crosses over the line and half its height above and below (letters never reach that far). */
function verticalRulesAcross(line: readonly RecognizedWord[], pixels: Pixels): number[] {
  const box = union(line);
  return verticalRules(pixels, { left: box.left, top: box.top - Math.ceil(box.height / 2), width: box.width, height: box.height * 2 });
}

/** The word's box cut at the rules inside it, keeping its widest part. */
function besideRules(word: RecognizedWord, rules: readonly number[]): RecognizedWord {
  let best = { left: word.left, right: word.left };
  let from = word.left;
  for (const x of [...rules, word.left + word.width]) {
    if (x - from > best.right - best.left) best = { left: from, right: x };
    from = x + 1;
  }
  return { ...word, left: best.left, width: best.right - best.left };
}

/** Blank space between two lines, in font sizes, beyond which they are separate items (a form's fields, list rows). */
const LINE_GAP_EM = 1.5;

/** Whether a ruled line or a wide blank separates two lines that follow one another. */
function separated(above: Box, below: Box, pixels: Pixels | undefined): boolean {
  const gap = below.top - (above.top + above.height);
  const em = Math.max(above.height, below.height, 1) / ASCENDER;
  if (gap > LINE_GAP_EM * em) return true;
  if (!pixels || gap <= 0) return false;
  const left = Math.max(above.left, below.left);
  const right = Math.min(above.left + above.width, below.left + below.width);
  const [from, to] = right > left ? [left, right] : [Math.min(above.left, below.left), Math.max(above.left + above.width, below.left + below.width)];
  return horizontalRules(pixels, { left: from, top: above.top + above.height, width: to - from, height: gap }).length > 0;
}

/** Groups a run may join: the most recent ones (the search stays linear in the runs). */
const RECENT_GROUPS = 50;

/**
 * Runs of paragraphs that the recognizer read across cells or cards, regrouped: a run continues the one just above
 * it, at the same left, only as the rest of a sentence (the one above does not end one, this one starts lower case).
 */
function regroup(runs: readonly Run[], pixels: Pixels | undefined): Run[][] {
  const groups: Run[][] = [];
  for (const run of runs) {
    const first = run.words[0]!;
    const box = union(run.words);
    const em = Math.max(box.height, 1) / ASCENDER;
    let group: Run[] | undefined;
    for (let k = groups.length - 1; k >= Math.max(0, groups.length - RECENT_GROUPS) && !group; k--) {
      const above = union(groups[k]![groups[k]!.length - 1]!.words);
      const text = groups[k]![groups[k]!.length - 1]!.words.map((w) => w.text).join(' ');
      const gap = box.top - (above.top + above.height);
      const continues = gap >= -0.2 * em && gap <= em && Math.abs(above.left - box.left) <= em && !/[.!?:]$/u.test(text) && /^\p{Ll}/u.test(first.text);
      if (continues && !separated(above, box, pixels)) group = groups[k];
    }
    if (group) group.push(run);
    else groups.push([run]);
  }
  return groups;
}

/**
 * Paragraphs to translate, each one segment. With the image's pixels, ruled lines (table grids, dividers) separate
 * words and lines that the recognizer read as one.
 */
export function paragraphsOf(words: readonly RecognizedWord[], pixels?: Pixels, minConfidence = MIN_WORD_CONFIDENCE): ImageParagraph[] {
  // Map keeps the recognizer's reading order of paragraphs and lines
  const byParagraph = new Map<string, Map<number, RecognizedWord[]>>();
  for (const w of words) {
    const text = w.text.trim();
    if (text === '' || w.width <= 0 || w.height <= 0) continue;
    const key = `${w.block}/${w.paragraph}`;
    let lines = byParagraph.get(key);
    if (!lines) byParagraph.set(key, (lines = new Map()));
    let line = lines.get(w.line);
    if (!line) lines.set(w.line, (line = []));
    line.push({ ...w, text });
  }
  // paragraphs read whole stay as they are; the runs of those cut into runs are regrouped together
  const groups: Run[][] = [];
  const cut: Run[] = [];
  for (const lines of byParagraph.values()) {
    const runs = [...lines.values()].flatMap((line, index) => runsOf(line, index, minConfidence, pixels));
    const whole = runs.every((r, k) => k === 0 || r.line !== runs[k - 1]!.line) && new Set(runs.map((r) => r.line)).size === lines.size;
    if (whole) groups.push(...splitAtSeparators(runs, pixels));
    else cut.push(...runs);
  }
  const out: ImageParagraph[] = [];
  for (const group of [...groups, ...regroup(cut, pixels)]) {
    if (group.length === 0) continue;
    // a paragraph of stray symbols ("|", "—", "©") is not text to translate
    if (!group.some((r) => r.words.some((w) => /\p{L}/u.test(w.text)))) continue;
    const lines = group.map((r) => ({ box: union(r.words), pieces: r.words.map((w) => (r.unsure?.has(w) ? { unsure: w } : w.text)) }));
    const words = group.flatMap((r) => r.words);
    out.push(imageParagraph(lines, words, fontSizeOf(words)));
  }
  return out;
}

/** A line of a paragraph: its box, and its words in order, each text or an unsure word kept as its pixels. */
export interface ParagraphLine {
  box: Box;
  pieces: readonly (string | { unsure: { text: string } & Box })[];
}

/**
 * A paragraph from its lines (pieces joined by a blank, lines as a sentence flow); `erase` are the boxes the painter
 * erases in full (its words' boxes, or its lines' when the whole of each line is replaced).
 */
export function imageParagraph(lines: readonly ParagraphLine[], erase: readonly Box[], fontPx: number): ImageParagraph {
  const read = (l: ParagraphLine) => l.pieces.map((p) => (typeof p === 'string' ? p : p.unsure.text)).join(' ');
  const inline: InlineWord[] = [];
  const slotted = (l: ParagraphLine) =>
    l.pieces
      .map((p) => {
        if (typeof p === 'string') return p;
        inline.push({ text: p.unsure.text, box: boxOf(p.unsure), line: boxOf(l.box) });
        return SLOT;
      })
      .join(' ');
  const boxes = lines.map((l) => boxOf(l.box));
  return { text: joinLines(lines.map(read)), box: union(boxes), lines: boxes, words: erase.map(boxOf), fontPx, unit: tagged(joinLines(lines.map(slotted))), inline };
}

const boxOf = ({ left, top, width, height }: Box): Box => ({ left, top, width, height });

/** The text without its slots, each an empty tag where it stood (numbered in order). */
function tagged(slotted: string): TaggedText {
  const parts = slotted.split(SLOT);
  let text = parts[0]!;
  const marks = parts.slice(1).map((part, id) => {
    const pos = text.length;
    text += part;
    return { id, kind: 'empty' as const, pos };
  });
  return { text, marks };
}

/** A paragraph's lines, cut where a ruled line or a wide blank separates two of them. */
function splitAtSeparators(runs: readonly Run[], pixels: Pixels | undefined): Run[][] {
  const parts: Run[][] = [];
  runs.forEach((run, k) => {
    if (k === 0 || separated(union(runs[k - 1]!.words), union(run.words), pixels)) parts.push([run]);
    else parts[parts.length - 1]!.push(run);
  });
  return parts;
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
