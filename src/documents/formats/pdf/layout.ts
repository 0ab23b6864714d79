// Groups positioned text pieces of a page into lines and lines into blocks (paragraphs, list items, table cells), so
// one block is one translation segment and its box is where the translation is drawn.
import { groupLines, isLeader, joinLines, splitLeader } from './lines.js';
import { COLUMN_GAP_EM, angleKey, fitsAfter, maxOf, minOf, rowLimits } from './rows.js';

export type FontFamily = 'sans' | 'serif' | 'mono';
export interface FontStyle {
  family: FontFamily;
  bold: boolean;
  italic: boolean;
}

/** One text item of a page as the PDF places it: baseline start (x, y) in user space, direction angle in radians. */
export interface TextPiece {
  text: string;
  x: number;
  y: number;
  angle: number;
  size: number;
  width: number;
  font: FontStyle;
  /** The PDF font's name (BaseFont), when pdf.js tells it. */
  fontName?: string;
  /** Fill colour "#rrggbb" (black when unknown). */
  color?: string;
}

/** Coordinates below are in the text's own frame: u along the baseline, v up (the page frame rotated by -angle). */
export interface Piece extends TextPiece {
  u: number;
  v: number;
}

export interface TextLine {
  pieces: Piece[];
  u0: number;
  u1: number;
  v: number;
  size: number;
  text: string;
  marker: boolean;
}

export type Alignment = 'left' | 'right' | 'center' | 'justify';

export interface TextBlock {
  angle: number;
  lines: TextLine[];
  /** The text as one segment (lines joined). */
  text: string;
  /** A block with letters is translated; others (numbers, bullets, symbols) are drawn back as they were. */
  translatable: boolean;
  font: FontStyle;
  /** Fill colour "#rrggbb" of the block's main text. */
  color: string;
  size: number;
  /** Baseline distance between lines (the font size × 1.2 for a one-line block). */
  lineGap: number;
  left: number;
  right: number;
  /** Top of the first line (baseline + ascent) and bottom of the last (baseline − descent). */
  top: number;
  bottom: number;
  align: Alignment;
  /** A contents line's dot leader: drawn after the title beside it, shortened where the title's translation grew into it. */
  leader?: boolean;
  /** How far right and down the translation may grow without reaching another block or the page margin. */
  maxRight: number;
  maxBottom: number;
  /** Per line: how far right that line's text may reach (the block's right edge, or sooner where a column or an
   * infobox beside it begins on its baseline; a one-line block's room to grow). */
  lineRight: number[];
  /** The next paragraph of the same flow, begun on the line below this block's last (split at its indented first
   * line): the room it leaves below its own translation is this block's too, and it is drawn on after it. */
  next?: TextBlock;
}

/** A line opening with a bare number and a capitalised word: an affiliation or footnote entry. */
const NUMBERED_ENTRY = /^\d{1,3}\s+\p{Lu}/u;
const ASCENT = 0.8;
const DESCENT = 0.25;

/** Beyond this many blocks on a page, room to grow is not looked up among neighbours (quadratic work). */
const MAX_NEIGHBOUR_BLOCKS = 2000;

function toFrame(p: TextPiece): Piece {
  const c = Math.cos(p.angle);
  const s = Math.sin(p.angle);
  return { ...p, u: p.x * c + p.y * s, v: -p.x * s + p.y * c };
}

/** Page point of a frame point (u, v) for text at `angle`. */
export function fromFrame(angle: number, u: number, v: number): { x: number; y: number } {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  return { x: u * c - v * s, y: u * s + v * c };
}


function sameStyle(a: FontStyle, b: FontStyle): boolean {
  return a.bold === b.bold && a.italic === b.italic;
}

interface OpenBlock {
  angle: number;
  lines: TextLine[];
  left: number;
  right: number;
  font: FontStyle;
  color: string;
  next?: OpenBlock;
}

function mainPiece(line: TextLine): Piece {
  return line.pieces.reduce((a, b) => (b.text.length > a.text.length ? b : a));
}

/** The colour of most of a line's characters. */
function colorOfLine(line: TextLine): string {
  const count = new Map<string, number>();
  for (const p of line.pieces) count.set(p.color ?? '#000000', (count.get(p.color ?? '#000000') ?? 0) + p.text.length);
  let best = '#000000';
  for (const [c, n] of count) if (n > (count.get(best) ?? 0)) best = c;
  return best;
}

function mainFont(line: TextLine): FontStyle {
  return mainPiece(line).font;
}

/** Whether `line` continues the paragraph `block` (the line just below, same size and style, aligned). */
function continues(block: OpenBlock, line: TextLine, limits: Map<TextLine, number>, entries: Set<TextLine>, breaks: Map<TextLine, OpenBlock>): boolean {
  const last = block.lines[block.lines.length - 1]!;
  const first = block.lines[0]!;
  if (last.marker || line.marker) return false;
  // a contents entry ends at its leader
  if (entries.has(last) || isLeader(last.text) !== isLeader(line.text)) return false;
  // a column of numbers (section numbers, a table's figures) does not run on into a line of words
  if (/\p{L}/u.test(line.text) && !block.lines.some((l) => /\p{L}/u.test(l.text))) return false;
  // entries numbered alike ("1 School of …", "2 Institute of …": affiliations, footnotes) are blocks of their own
  if (NUMBERED_ENTRY.test(first.text) && NUMBERED_ENTRY.test(line.text)) return false;
  if (angleKey(block.angle) !== angleKey(line.pieces[0]!.angle)) return false;
  const size = first.size;
  if (Math.abs(line.size - size) > 0.15 * size) return false;
  // a code line (monospaced) and a line of prose are never one paragraph: code is kept, prose translated
  if (!sameStyle(block.font, mainFont(line)) || (block.font.family === 'mono') !== (mainFont(line).family === 'mono')) return false;
  // another colour starts another block, unless a coloured run (a link) goes on from the line above
  const color = colorOfLine(line);
  if (color !== block.color && !last.pieces.some((p) => (p.color ?? '#000000') === color)) return false;
  const drop = last.v - line.v;
  const expected = block.lines.length >= 2 ? first.v - block.lines[1]!.v : 1.5 * size;
  if (drop < 0.6 * size || drop > (block.lines.length >= 2 ? expected * 1.2 : expected)) return false;
  const { left, right } = block;
  const aligned =
    Math.abs(line.u0 - left) <= 3 * size ||
    Math.abs((line.u0 + line.u1) / 2 - (left + right) / 2) <= size ||
    Math.abs(line.u1 - right) <= size;
  if (!aligned || line.u0 > right || line.u1 < left) return false;
  // in a table row (or a column beside another), a line that left room for the next word was ended on purpose
  const limit = limits.get(last);
  if (limit !== undefined && fitsAfter(last, line, limit)) return false;
  // and a line reaching under the next cell of that row, from a block that stays left of it, spans the table (a
  // glossed example's free translation below its last gloss row), not that one cell
  const nextCell = limit === undefined ? undefined : limit + COLUMN_GAP_EM * last.size;
  if (nextCell !== undefined && right <= nextCell && line.u1 > nextCell) return false;
  // a short line ending a sentence closes its paragraph (paragraphs without extra spacing)
  if (block.lines.length >= 2 && last.u1 < right - 0.25 * (right - left) && /[.!?:]$/u.test(last.text)) return false;
  // and so does a full one before an indented line: the next paragraph's first line (else its indent, kept where the
  // source has it, would fall mid-sentence in the reflowed translation)
  // (the body's start from the block's last lines: a page-long block would make every line re-sort all before it)
  if (last.u1 >= right - Math.max(1, 0.15 * size) && /[.!?:]$/u.test(last.text) && !isLeader(line.text)) {
    const indent = line.u0 - bodyStart(block.lines.slice(-BODY_SAMPLE_LINES));
    if (indent > 0.5 * size && indent <= 3.5 * size) {
      breaks.set(line, block);
      return false;
    }
  }
  return true;
}

/** Lines of a block whose starts give its body's left edge when a line might open a new paragraph. */
const BODY_SAMPLE_LINES = 32;

/**
 * Blocks set in a monospaced font on a page whose text is mostly not are code listings (and tables typed as code):
 * drawn back line by line as they were, never translated or reflowed. A page (almost) all in a typewriter font is
 * prose and is translated, and so is a monospaced block that reads as prose (a note or heading set in the typewriter face).
 * A displayed formula or grammar rule is kept in any font.
 */
function keepCode(blocks: TextBlock[]): void {
  let mono = 0;
  let all = 0;
  for (const b of blocks) {
    all += b.text.length;
    if (b.font.family === 'mono') mono += b.text.length;
  }
  for (const b of blocks) if (readsAsFormula(b.text)) b.translatable = false;
  if (mono === 0 || mono >= 0.9 * all) return;
  for (const b of blocks) if (b.font.family === 'mono' && !readsAsProse(b.text)) b.translatable = false;
}

/** A relation or definition sign of a formula or grammar ("=", "::=", "≤", "→"). */
const RELATION = /[=<>≤≥≠≡≈∼∈∉⊂⊆→←↔⇒⇔]/u;

/**
 * A displayed formula or grammar rule ("CRCu(M, v′) = CRCu(M, v) + …", "integer ::= [-] {0 . . . 9} | a . . . f"):
 * a relation sign, fewer words of two letters or more than other tokens, and no two such words in a row ("mod P",
 * "(regular-char | escape-char)"; "According to (3), CRCu(M, v) = v′2." is a sentence). Kept as it is, in any font:
 * an engine reads its variables as words ("A(x)" → "Un(x)", "a . . . f" → "un . . . f") and a reflow loses its
 * alignment.
 */
function readsAsFormula(text: string): boolean {
  if (!RELATION.test(text)) return false;
  const tokens = text.split(/\s+/u).filter((t) => t !== '');
  const word = tokens.map((w) => /^["'‘“(]?\p{L}{2,}[\p{L}'’-]*[.,;:!?"'’”)]?$/u.test(w));
  const words = word.filter(Boolean).length;
  return words * 2 < tokens.length && !word.some((w, n) => w && word[n + 1]);
}

/** Characters that code uses and prose hardly does. */
const CODE_SIGNS = /[=;{}<>\\_#$|&~^*/[\]()@%`+]/gu;

/** Several words of letters, with a sentence's punctuation and (almost) none of code's signs or digits. */
function readsAsProse(text: string): boolean {
  const words = text.split(/\s+/u).filter((w) => /^["'‘“(]?\p{L}[\p{L}'’-]*[.,;:!?"'’”)]?$/u.test(w));
  const all = text.split(/\s+/u).length;
  const signs = text.match(CODE_SIGNS)?.length ?? 0;
  const digits = text.match(/\p{Nd}/gu)?.length ?? 0;
  return words.length >= 4 && words.length >= 0.85 * all && signs * 40 <= text.length && digits * 20 <= text.length;
}

function alignment(lines: TextLine[], left: number, right: number, size: number): Alignment {
  if (lines.length < 2) return 'left';
  const tol = 0.5 * size;
  // every line but the last reaching both margins (two of them at least: one alone is the widest by definition)
  const full = lines.slice(0, -1);
  const edge = Math.max(1, 0.15 * size);
  // (the first line may start elsewhere: an indented first line, or a hanging indent's first line at the left)
  const body = bodyStart(lines);
  // (a two-line paragraph whose first line is indented is justified too, not right-aligned)
  const indent = lines[0]!.u0 - body;
  // (their right edge: a last line that is full too may stick out a little, as TeX lets a line's last glyph do)
  const fullRight = maxOf(full, (l) => l.u1);
  if ((full.length >= 2 || (indent > 0.5 * size && indent <= 3 * size)) && fullRight >= right - 2 * edge && full.every((l, n) => (n === 0 || Math.abs(l.u0 - body) <= tol) && Math.abs(l.u1 - fullRight) <= edge)) return 'justify';
  if (lines.every((l) => Math.abs(l.u0 - left) <= tol)) return 'left';
  if (lines.every((l) => Math.abs(l.u1 - right) <= tol)) return 'right';
  if (lines.every((l) => Math.abs((l.u0 + l.u1) / 2 - (left + right) / 2) <= tol)) return 'center';
  return 'left';
}

/** Where most of a block's lines start (within a point; the leftmost of equally common starts): lines past the source's go there. */
export function bodyStart(lines: readonly TextLine[]): number {
  const starts = lines.map((l) => l.u0).sort((a, b) => a - b);
  let best = starts[0]!;
  let count = 0;
  // a window of starts no more than a point right of starts[i]
  for (let i = 0, j = 0; i < starts.length; i++) {
    while (j < starts.length && starts[j]! <= starts[i]! + 1) j++;
    if (j - i > count) [best, count] = [starts[i]!, j - i];
  }
  return best;
}

/** The blocks of one page, in reading (content) order; `bounds` is the page box [x0, y0, x1, y1]. */
export function layoutPage(input: readonly TextPiece[], bounds: readonly [number, number, number, number]): TextBlock[] {
  const pieces = input
    .filter((p) => p.text.trim() !== '' && Number.isFinite(p.x + p.y + p.size + p.width) && p.size > 0)
    .flatMap(splitLeader)
    .map(toFrame);
  const open: OpenBlock[] = [];
  let previous: TextLine | undefined;
  const lines = groupLines(pieces);
  const limits = rowLimits(lines, bounds);
  // lines a leader follows on their baseline: contents entries, each a block of its own
  const entries = new Set(lines.filter((l, i) => i + 1 < lines.length && isLeader(lines[i + 1]!.text) && Math.abs(lines[i + 1]!.v - l.v) < 0.35 * l.size));
  // lines that would go on a block but for starting a paragraph: the block it would have gone on
  const breaks = new Map<TextLine, OpenBlock>();
  for (const [i, line] of lines.entries()) {
    let best: OpenBlock | undefined;
    // the text after a list marker starts a new item
    const first = previous?.marker === true;
    previous = line;
    for (let k = open.length - 1; !first && k >= Math.max(0, open.length - 40); k--) {
      const b = open[k]!;
      if (continues(b, line, limits, entries, breaks) && (!best || b.lines[b.lines.length - 1]!.v < best.lines[best.lines.length - 1]!.v)) best = b;
    }
    if (best) {
      best.lines.push(line);
      best.left = Math.min(best.left, line.u0);
      best.right = Math.max(best.right, line.u1);
    } else {
      const color = colorOfLine(line);
      const opened: OpenBlock = { angle: line.pieces[0]!.angle, lines: [line], left: line.u0, right: line.u1, font: mainFont(line), color };
      const before = breaks.get(line);
      if (before && before.lines[before.lines.length - 1] === lines[i - 1]) before.next = opened;
      open.push(opened);
    }
  }
  const blocks = open.map((b): TextBlock => {
    const first = b.lines[0]!;
    const last = b.lines[b.lines.length - 1]!;
    const size = first.size;
    const { left, right } = b;
    const lineGap = b.lines.length >= 2 ? (first.v - last.v) / (b.lines.length - 1) : 1.2 * size;
    const text = joinLines(b.lines);
    return {
      angle: b.angle,
      lines: b.lines,
      text,
      translatable: /\p{L}/u.test(text) && !(b.lines.length === 1 && first.marker),
      font: b.font,
      color: b.color,
      size,
      lineGap,
      left,
      right,
      top: first.v + ASCENT * size,
      bottom: last.v - DESCENT * last.size,
      align: alignment(b.lines, left, right, size),
      maxRight: right,
      maxBottom: last.v - DESCENT * last.size,
      lineRight: [],
      ...(b.lines.every((l) => isLeader(l.text)) ? { leader: true } : {}),
    };
  });
  const indexOf = new Map(open.map((b, n) => [b, n]));
  open.forEach((b, n) => {
    if (b.next) blocks[n]!.next = blocks[indexOf.get(b.next)!];
  });
  keepCode(blocks);
  setRoom(blocks, bounds);
  for (const b of blocks) {
    b.lineRight = b.lines.length === 1 ? [b.maxRight] : b.lines.map((l) => Math.max(l.u1, Math.min(b.right, limits.get(l) ?? b.right)));
  }
  return blocks;
}

/** Room to grow: right up to the next block on the same lines (or the page's text margin), down up to one line. */
function setRoom(blocks: TextBlock[], bounds: readonly [number, number, number, number]): void {
  const byAngle = new Map<number, TextBlock[]>();
  for (const b of blocks) {
    const group = byAngle.get(angleKey(b.angle));
    if (group) group.push(b);
    else byAngle.set(angleKey(b.angle), [b]);
  }
  for (const group of byAngle.values()) {
    const angle = group[0]!.angle;
    const corners = [
      [bounds[0], bounds[1]],
      [bounds[2], bounds[1]],
      [bounds[0], bounds[3]],
      [bounds[2], bounds[3]],
    ].map(([x, y]) => toFrame({ x: x!, y: y!, angle } as TextPiece));
    const uMin = minOf(corners, (c) => c.u);
    const uMax = maxOf(corners, (c) => c.u);
    const vMin = minOf(corners, (c) => c.v);
    const textLeft = minOf(group, (o) => o.left);
    const textRight = maxOf(group, (o) => o.right);
    const neighbours = group.length <= MAX_NEIGHBOUR_BLOCKS ? group : [];
    for (const b of group) {
      // margins are taken as symmetric: the right text margin is at least as wide as the left one
      let maxRight = Math.max(textRight, uMax - (textLeft - uMin));
      // a neighbour's lines are looked at one by one: a paragraph may start after b's end on b's baseline and go on
      // further left below it
      const top = (l: TextLine) => l.v + ASCENT * l.size;
      // how high a line's glyphs reach: a formula's big delimiter rises above its text
      const reach = (l: TextLine) => maxOf(l.pieces, (p) => p.v + ASCENT * p.size);
      for (const o of neighbours) {
        // a title may grow over its leader (the leader gives way), not over the page number after it
        if (o === b || o.leader || o.bottom >= b.top || o.top <= b.bottom) continue;
        if (o.left >= b.right - 1) maxRight = Math.min(maxRight, o.left - 0.4 * b.size);
        else for (const l of o.lines) if (l.u0 >= b.right - 1 && top(l) > b.bottom && l.v - DESCENT * l.size < b.top) maxRight = Math.min(maxRight, l.u0 - 0.4 * b.size);
      }
      b.maxRight = Math.max(b.right, maxRight);
      let maxBottom = Math.max(vMin, b.bottom - b.lineGap);
      for (const o of neighbours) {
        if (o === b || o.left >= b.maxRight || o.right <= b.left || o.bottom > b.bottom + 0.5) continue;
        for (const l of o.lines) {
          if (top(l) <= b.bottom + 0.5 && reach(l) > maxBottom && l.u0 < b.maxRight && l.u1 > b.left) maxBottom = reach(l) + 0.2 * l.size;
        }
      }
      b.maxBottom = Math.min(b.bottom, maxBottom);
    }
  }
}
