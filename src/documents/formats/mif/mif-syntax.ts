// FrameMaker MIF syntax: a tokenizer for nested <Token data> statements with located spans (so untouched statements
// are copied byte for byte), and the escapes of MIF strings (`text' with \t \> \q \Q \\ and \xNN codes).
import { DocumentFormatError } from '../format.js';

export interface MifStatement {
  name: string;
  /** Span from '<' to just after the matching '>'. */
  start: number;
  end: number;
  /** Just after the token name: the statement's data runs from here to end - 1. */
  dataStart: number;
  children: MifStatement[];
  /** Raw strings (backquote to quote, inclusive) directly in this statement's data. */
  strings: { start: number; end: number }[];
  parent: MifStatement | undefined;
}

/** Deepest statement nesting accepted (FrameMaker writes far less); it bounds the stack. */
const MAX_DEPTH = 256;

/** Parses MIF text into its top-level statements; malformed nesting or strings are a DocumentFormatError. */
export function parseMif(text: string): MifStatement[] {
  const top: MifStatement[] = [];
  const stack: MifStatement[] = [];
  let lineStart = true;
  const fail = (what: string, at: number) => {
    const line = text.slice(0, at).split('\n').length;
    throw new DocumentFormatError(`The MIF file is malformed: ${what} at line ${line}.`);
  };
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === '\n' || c === '\r') {
      lineStart = true;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    const atLineStart = lineStart;
    lineStart = false;
    if (c === '#' || (atLineStart && (c === '=' || c === '&') && stack.length > 0)) {
      // A comment, or a line of inset facet data (=FacetName, &data): skipped to the end of the line.
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl;
      continue;
    }
    if (c === '<') {
      const m = /^<([A-Za-z][A-Za-z0-9]*)/u.exec(text.slice(i, i + 64));
      if (!m) fail("a '<' without a statement name", i);
      if (stack.length >= MAX_DEPTH) fail('statements nested too deeply', i);
      const parent = stack[stack.length - 1];
      const st: MifStatement = { name: m![1]!, start: i, end: -1, dataStart: i + m![0].length, children: [], strings: [], parent };
      (parent ? parent.children : top).push(st);
      stack.push(st);
      i += m![0].length;
      continue;
    }
    if (c === '>') {
      const st = stack.pop();
      if (!st) fail("a '>' without a statement", i);
      st!.end = i + 1;
      i++;
      continue;
    }
    if (c === '`') {
      const start = i;
      i++;
      while (i < text.length && text[i] !== "'") i += text[i] === '\\' ? 2 : 1;
      if (i >= text.length) fail('an unterminated string', start);
      i++;
      const owner = stack[stack.length - 1];
      if (!owner) fail('a string outside any statement', start);
      owner!.strings.push({ start, end: i });
      continue;
    }
    i++;
  }
  if (stack.length > 0) fail(`the statement <${stack[stack.length - 1]!.name}> is never closed`, stack[stack.length - 1]!.start);
  return top;
}

const MAC_ROMAN = new TextDecoder('macintosh');
const FROM_FRAME = new Map<number, string>();
const TO_FRAME = new Map<string, number>();
for (let b = 0x80; b <= 0xff; b++) {
  const ch = MAC_ROMAN.decode(Uint8Array.of(b));
  FROM_FRAME.set(b, ch);
  if (!TO_FRAME.has(ch)) TO_FRAME.set(ch, b);
}

/** Decodes a raw MIF string (with its quotes): \xNN codes above 0x7f are FrameRoman (Mac Roman) characters. */
export function decodeMifString(raw: string): string {
  const body = raw.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[i + 1];
    i++;
    if (e === 't') out += '\t';
    else if (e === '>') out += '>';
    else if (e === 'q') out += "'";
    else if (e === 'Q') out += '`';
    else if (e === '\\') out += '\\';
    else if (e === 'x' && /^[0-9a-fA-F]{2}/u.test(body.slice(i + 1, i + 3))) {
      const code = parseInt(body.slice(i + 1, i + 3), 16);
      out += code >= 0x80 ? FROM_FRAME.get(code)! : String.fromCharCode(code);
      i += 2;
      if (body[i + 1] === ' ') i++;
    } else out += `\\${e ?? ''}`; // an escape MIF does not define is kept as written
  }
  return out;
}

/**
 * Encodes text as a raw MIF string. Unicode MIF (version 8 and later, UTF-8 files) keeps non-ASCII characters as they
 * are; legacy MIF writes them as FrameRoman \xNN codes, with accents dropped (or '?') for characters outside it.
 */
export function encodeMifString(text: string, unicode: boolean): string {
  let out = '`';
  for (const ch of text.replace(/[\r\n\u2028\u2029]+/gu, ' ')) {
    if (ch === '\\') out += '\\\\';
    else if (ch === "'") out += '\\q';
    else if (ch === '`') out += '\\Q';
    else if (ch === '>') out += '\\>';
    else if (ch === '\t') out += '\\t';
    else if (ch < '\u0080' || unicode) out += ch;
    else {
      const code = TO_FRAME.get(ch) ?? TO_FRAME.get(ch.normalize('NFC'));
      if (code !== undefined) out += `\\x${code.toString(16)} `;
      else {
        const base = ch.normalize('NFD').replace(/\p{M}/gu, '');
        out += /^[\u0020-\u007e]+$/u.test(base) ? base : '?';
      }
    }
  }
  return `${out}'`;
}
