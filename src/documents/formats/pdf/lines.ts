// Pieces of a page grouped into lines: a piece continues a line when it sits on its baseline close after it (word
// spaces stretched by justification, marks and superscripts included); contents lines' leaders stand apart.
import { COLUMN_GAP_EM, angleKey, maxOf, minOf } from './rows.js';
import type { Piece, TextLine, TextPiece } from './layout.js';
import { UNMAPPED } from './page-text.js';

/** List markers: bullets, symbol-font bullets (private use), "1.", "a)", "iv.", "(2)". */
const MARKER = /^(?:[\p{Co}•●○◦▪▫■□‣⁃∙·\-–—*►▸▹➢➤✓✔❖◆◇]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\(?[ivxlIVXL]{1,6}[.)])$/u;

export function joinPieces(pieces: Piece[]): string {
  let text = '';
  let end = Number.NEGATIVE_INFINITY;
  for (const p of pieces) {
    const gap = p.u - end;
    if (text !== '' && !/\s$/u.test(text) && !/^\s/u.test(p.text) && gap > 0.12 * p.size) text += ' ';
    text += p.text;
    end = p.u + p.width;
  }
  return text.replace(/\s+/gu, ' ').trim();
}

function makeLine(pieces: Piece[]): TextLine {
  const u0 = minOf(pieces, (p) => p.u);
  const u1 = maxOf(pieces, (p) => p.u + p.width);
  const main = pieces.reduce((a, b) => (b.text.length * b.size > a.text.length * a.size ? b : a));
  const text = joinPieces(pieces);
  return { pieces, u0, u1, v: main.v, size: main.size, text, marker: MARKER.test(text) };
}

/** Dot leaders of a contents line (". . . . .", "……"). */
const LEADER = /(?:[.·]\s?){4,}|…{2,}/u;
export const isLeader = (text: string) => /^\s*(?:(?:[.·]\s?){4,}|…{2,})\s*$/u.test(text);

/**
 * A contents line's title, leader and page number become pieces of their own (widths shared by characters): the
 * title is translated and drawn up to the leader, which stays where it was with the page number.
 */
export function splitLeader(p: TextPiece): TextPiece[] {
  const m = LEADER.exec(p.text);
  // an ellipsis before a sentence's full stop (", . . . . Note that") runs on into words; a leader leads to a number
  if (!m || isLeader(p.text) || /^\s*\p{L}/u.test(p.text.slice(m.index + m[0].length))) return [p];
  const cuts = [0, m.index, m.index + m[0].length, p.text.length];
  const out: TextPiece[] = [];
  for (let k = 0; k < 3; k++) {
    const text = p.text.slice(cuts[k], cuts[k + 1]);
    if (text.trim() === '') continue;
    const start = (p.width * cuts[k]!) / p.text.length;
    out.push({ ...p, text, x: p.x + start * Math.cos(p.angle), y: p.y + start * Math.sin(p.angle), width: (p.width * text.length) / p.text.length });
  }
  return out;
}

/** Lines in content order: a piece continues the current line when it is on its baseline and close after it. */
export function groupLines(pieces: Piece[]): TextLine[] {
  const lines: TextLine[] = [];
  let current: Piece[] = [];
  let end = 0;
  /** The current line's main piece on its baseline (superscripts are measured against it). */
  let base: Piece | undefined;
  const flush = () => {
    if (current.length > 0) for (const l of splitMarker(current)) lines.push(l);
    current = [];
  };
  for (const p of pieces) {
    const last = current[current.length - 1];
    const ref = base ?? last;
    const size = Math.max(p.size, ref?.size ?? 0);
    // a superscript after its word, a mark opening a footnote or an affiliation before it, or a big delimiter after it
    const raised = ref !== undefined && (isSuperscript(p, ref) || (current.length === 1 && isSuperscript(ref, p)) || (isBigDelimiter(p, ref) && p.u >= end - 0.2 * ref.size));
    const continues =
      last !== undefined &&
      ref !== undefined &&
      !isLeader(p.text) &&
      !isLeader(last.text) &&
      angleKey(last.angle) === angleKey(p.angle) &&
      (Math.abs(p.v - ref.v) < 0.35 * size || raised) &&
      // a glyph drawn over the line's own (the circle of a ©, an accent) belongs to it
      p.u >= Math.min(end - 0.5 * size, current[0]!.u - 0.1 * size) &&
      p.u - end < lineGapLimit(current, p) * size;
    if (!continues) {
      flush();
      base = p;
    } else if (p.size > base!.size && (!raised || current.length === 1)) base = p;
    current.push(p);
    end = Math.max(last && continues ? end : Number.NEGATIVE_INFINITY, p.u + p.width);
  }
  flush();
  return joinSpreadLines(lines);
}

/**
 * Justified text stretches the space after a sentence's end (TeX's sentence spacing) beyond a column gap: a word after
 * "once." this far away still continues the line. Leaders (". . .") and numbers do not end a sentence.
 */
const SENTENCE_GAP_EM = 1.5;
const WORD_GAP_EM = 0.8;
const endsSentence = (text: string) => /[\p{L}\p{Nd}]["'’”)\]]?[.!?:;,]["'’”)\]]?\s*$/u.test(text);

/** A mark of one or two characters (a symbol, a composed glyph's part) a little farther than a word space, and the
 * piece after a relation or operator sign (math spacing is wider than a word space). */
const MARK_GAP_EM = 1;

/** The widest gap (in em) after the line's pieces so far at which `p` still continues it. */
function lineGapLimit(current: readonly TextPiece[], p: TextPiece): number {
  const last = current[current.length - 1]!;
  const next = p.text.trimStart();
  if (endsSentence((current[current.length - 2]?.text ?? '') + last.text) && /^["'‘“([]?\p{L}/u.test(next)) return SENTENCE_GAP_EM;
  // a word going on with the sentence (lower case on both sides), after a stretched space or an italic correction
  if (/\p{Ll}$/u.test(last.text) && /^\p{Ll}/u.test(next)) return WORD_GAP_EM;
  if (/^[^\s\p{Nd}]{1,2}$/u.test(p.text.trim()) || /^[=<>≤≥≈×+−·]$/u.test(last.text.trim())) return MARK_GAP_EM;
  return COLUMN_GAP_EM;
}

/** Widest word gap (in em) of a justified line that is still read as a gap between words, not between columns. */
const MAX_SPREAD_GAP_EM = 3;

/**
 * Pieces of a justified line drawn word by word are cut at its wide gaps into separate lines; three or more such
 * fragments on one baseline with equal gaps between them are one line (table cells and columns leave unequal gaps).
 */
function joinSpreadLines(lines: TextLine[]): TextLine[] {
  const out: TextLine[] = [];
  for (let i = 0; i < lines.length; ) {
    let j = i + 1;
    const gaps: number[] = [];
    while (j < lines.length) {
      const [a, b] = [lines[j - 1]!, lines[j]!];
      const gap = b.u0 - a.u1;
      const fits =
        !a.marker &&
        !isLeader(a.text) &&
        !isLeader(b.text) &&
        angleKey(a.pieces[0]!.angle) === angleKey(b.pieces[0]!.angle) &&
        Math.abs(a.v - b.v) < 0.35 * a.size &&
        Math.abs(a.size - b.size) <= 0.15 * a.size &&
        gap > 0 &&
        gap <= MAX_SPREAD_GAP_EM * a.size &&
        (gaps.length === 0 || Math.abs(gap - gaps[0]!) <= 0.15 * gaps[0]! + 0.5);
      if (!fits) break;
      gaps.push(gap);
      j++;
    }
    if (gaps.length >= 2) {
      out.push(makeLine(lines.slice(i, j).flatMap((l) => l.pieces)));
      i = j;
    } else out.push(lines[i++]!);
  }
  return out;
}

/** A smaller piece raised above the baseline of `base`: a footnote or affiliation mark, part of base's line. */
function isSuperscript(p: Piece, base: Piece): boolean {
  const rise = p.v - base.v;
  return p.size <= 0.85 * base.size && rise > 0.1 * base.size && rise < 0.6 * base.size;
}

/** A bracket or bar alone, or a glyph without a character (a math font's delimiter its PDF does not map). */
const DELIMITER = new RegExp(`^(?:[()[\\]{}|‖⟨⟩⌊⌋⌈⌉]|${UNMAPPED.source})$`, 'u');

/**
 * A formula's big delimiter (TeX's \left( … \right), \bigl(): a lone bracket whose origin sits up to a line's height
 * above or below the baseline of the text it encloses. After the line's end it is part of that line; else the line
 * splits there, its parts become blocks of their own, and the paragraph rewrapped around them runs over the parts
 * left in place.
 */
function isBigDelimiter(p: Piece, base: Piece): boolean {
  return DELIMITER.test(p.text.trim()) && p.size <= 1.5 * base.size && Math.abs(p.v - base.v) < 1.2 * base.size;
}

/**
 * A leading list marker becomes a line of its own, so the item's text keeps its indentation when rewrapped; so does
 * each of nested markers ("(7) a." of a linguistic example: the engine would read the label "a." as an article).
 */
function splitMarker(pieces: Piece[]): TextLine[] {
  let n = 0;
  while (n < pieces.length - 1 && MARKER.test(pieces[n]!.text.trim())) n++;
  return [...pieces.slice(0, n).map((p) => makeLine([p])), makeLine(pieces.slice(n))];
}

/** A block's text: its lines joined by spaces, a word broken at a line-end hyphen joined whole. */
export function joinLines(lines: TextLine[]): string {
  const parts: string[] = [];
  // the joined text's last characters, enough to see a letter and a hyphen (an astral letter is two): testing the
  // whole text at each line made a page-long paragraph quadratic
  let tail = '';
  for (const l of lines) {
    // (empty lines before the first words add nothing, not even a space)
    if (tail === '') {
      parts.push(l.text);
      tail = l.text.slice(-3);
    // a word broken at a line-end hyphen is joined whole, so the engine sees the word ("transla-" "tion")
    } else if (/\p{L}[-\u00ad\u2010]$/u.test(tail) && /^\p{Ll}/u.test(l.text)) {
      parts.push(parts.pop()!.slice(0, -1) + l.text);
      tail = (tail.slice(0, -1) + l.text).slice(-3);
    } else {
      parts.push(` ${l.text}`);
      tail = (tail + ` ${l.text}`).slice(-3);
    }
  }
  return parts.join('');
}
