// ICU MessageFormat ({count, plural, one {# file} other {# files}}, select, selectordinal) in app strings: only the
// branch texts are prose. The message is cut into text pieces and the structure between them (argument names,
// keywords, selectors, braces), so that the engine sees the pieces alone and the structure comes back as written.
import type { TaggedText } from './tagged-text.js';
import { translateInPieces, type TextRange } from './unit-pieces.js';

/** Deeper nesting of plural/select is not seen in real messages; such a text is left to the callers' usual path. */
const MAX_DEPTH = 12;
const COMPLEX = new Set(['plural', 'select', 'selectordinal']);

/** A piece of prose in a message: [start, end) of the text, without its outer blanks. */
export interface IcuPiece extends TextRange {
  /** Inside a plural branch, where `#` stands for the number. */
  plural: boolean;
}

class NotIcu extends Error {}

/**
 * The prose pieces of an ICU message, or undefined when the text holds no plural/select (or is not a well-formed
 * message): such texts are translated whole, as before. One pass over the text, depth bounded by MAX_DEPTH.
 */
export function icuPieces(text: string): IcuPiece[] | undefined {
  if (!/\{[^{}]*,\s*(plural|select|selectordinal)\s*,/u.test(text)) return undefined;
  const pieces: IcuPiece[] = [];
  let complex = false;
  let i = 0;
  const blank = () => {
    while (i < text.length && /\s/u.test(text[i]!)) i++;
  };
  const fail = (): never => {
    throw new NotIcu();
  };
  const piece = (start: number, end: number, plural: boolean) => {
    while (start < end && /\s/u.test(text[start]!)) start++;
    while (end > start && /\s/u.test(text[end - 1]!)) end--;
    if (start < end) pieces.push({ start, end, plural });
  };
  /** Skips a quoted literal ('{' or '{…}'), or one apostrophe; i is on the apostrophe. */
  const quote = (plural: boolean) => {
    const next = text[i + 1];
    if (next === "'") i += 2;
    else if (next === '{' || next === '}' || next === '|' || (plural && next === '#')) {
      const close = text.indexOf("'", i + 2);
      i = close < 0 ? text.length : close + 1;
    } else i++;
  };
  /** A message up to its closing brace (nested) or the end (top level); i ends on the brace. */
  const message = (depth: number, plural: boolean) => {
    if (depth > MAX_DEPTH) fail();
    let from = i;
    while (i < text.length) {
      const c = text[i]!;
      if (c === "'") quote(plural);
      else if (c === '}') {
        if (depth === 0) fail();
        break;
      } else if (c === '{') {
        const at = i;
        if (argument(depth, plural)) {
          piece(from, at, plural);
          from = i;
        }
      } else i++;
    }
    if (depth > 0 && i >= text.length) fail();
    piece(from, i, plural);
  };
  /** An argument from its opening brace; true when it is a plural/select (structure), false for a simple one. */
  const argument = (depth: number, plural: boolean): boolean => {
    i++;
    const name = /^\s*[^\s{}',#]+\s*/u.exec(text.slice(i, i + 256));
    if (!name) fail();
    i += name![0].length;
    if (text[i] === '}') {
      i++;
      return false;
    }
    if (text[i] !== ',') fail();
    i++;
    const type = /^\s*([A-Za-z]+)\s*/u.exec(text.slice(i, i + 64));
    if (!type) fail();
    i += type![0].length;
    if (!COMPLEX.has(type![1]!)) {
      // number, date, time…: its style is copied as written (braces counted)
      for (let open = 1; open > 0; i++) {
        if (i >= text.length) fail();
        if (text[i] === '{') open++;
        else if (text[i] === '}') open--;
      }
      return false;
    }
    if (text[i] !== ',') fail();
    i++;
    blank();
    const offset = /^offset:\s*\d+/u.exec(text.slice(i, i + 64));
    if (offset) i += offset[0].length;
    let branches = 0;
    for (;;) {
      blank();
      if (text[i] === '}') break;
      const selector = /^=?[^\s{}]+/u.exec(text.slice(i, i + 256));
      if (!selector) fail();
      i += selector![0].length;
      blank();
      if (text[i] !== '{') fail();
      i++;
      message(depth + 1, type![1] !== 'select' || plural);
      i++; // the branch's closing brace
      branches++;
    }
    if (branches === 0) fail();
    i++;
    complex = true;
    return true;
  };
  try {
    message(0, false);
  } catch (err) {
    if (err instanceof NotIcu) return undefined;
    throw err;
  }
  return complex ? pieces.sort((a, b) => a.start - b.start) : undefined;
}

/** The message with each piece replaced by its translation (a missing one keeps the source). */
export function joinPieces(text: string, pieces: IcuPiece[], translated: (string | undefined)[]): string {
  let out = '';
  let at = 0;
  pieces.forEach((p, k) => {
    out += text.slice(at, p.start) + (translated[k] ?? text.slice(p.start, p.end));
    at = p.end;
  });
  return out + text.slice(at);
}

/**
 * Translates tagged units whose text is an ICU message piece by piece (the inline tags inside a piece travel with
 * it); other units go whole.
 */
export function translateIcuTagged(units: TaggedText[], translate: (units: TaggedText[]) => Promise<TaggedText[]>): Promise<TaggedText[]> {
  return translateInPieces(units, (u) => icuPieces(u.text), translate);
}
