// Removes the text-showing operators from a PDF content stream and keeps every other byte (graphics, images, state).
import { DocumentFormatError } from '../format.js';

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
const isRegular = (b: number) => !WHITESPACE.has(b) && !DELIMITERS.has(b);

/** Operators that paint text; `'` and `"` also move to the next line, which is kept as `T*`. */
const SHOW_TEXT = new Set(['Tj', 'TJ']);
const NEXT_LINE_AND_SHOW = new Set(["'", '"']);

/**
 * Scans a content stream and calls `onOperator(name, operandsStart, end)` for every operator; operandsStart is where
 * its first operand begins (the end of the previous operator). Strings, hex strings, arrays, dictionaries, comments
 * and inline image data (BI … ID … EI) are skipped as units, so their bytes never look like operators.
 */
export function scanOperators(data: Uint8Array, onOperator: (name: string, operandsStart: number, end: number) => void): void {
  const n = data.length;
  let i = 0;
  let operandsStart = 0;
  while (i < n) {
    const b = data[i]!;
    if (WHITESPACE.has(b)) {
      i++;
      continue;
    }
    if (b === 0x25) {
      // comment up to the end of the line
      while (i < n && data[i] !== 0x0a && data[i] !== 0x0d) i++;
      continue;
    }
    if (b === 0x28) {
      i = skipLiteralString(data, i);
      continue;
    }
    if (b === 0x3c) {
      if (data[i + 1] === 0x3c) {
        i += 2; // dictionary open: its contents are ordinary tokens
        continue;
      }
      const close = data.indexOf(0x3e, i + 1);
      i = close < 0 ? n : close + 1;
      continue;
    }
    if (b === 0x3e || b === 0x5b || b === 0x5d || b === 0x7b || b === 0x7d || b === 0x29) {
      i++;
      continue;
    }
    if (b === 0x2f) {
      i++;
      while (i < n && isRegular(data[i]!)) i++;
      continue;
    }
    // a regular token: number, keyword or operator
    const start = i;
    while (i < n && isRegular(data[i]!)) i++;
    if (isNumberToken(data, start, i)) continue;
    const name = String.fromCharCode(...data.subarray(start, Math.min(i, start + 16)));
    if (name === 'true' || name === 'false' || name === 'null') continue;
    if (name === 'BI') {
      i = skipInlineImage(data, i);
      onOperator('BI', operandsStart, i);
      operandsStart = i;
      continue;
    }
    onOperator(name, operandsStart, i);
    operandsStart = i;
  }
}

function isNumberToken(data: Uint8Array, start: number, end: number): boolean {
  for (let k = start; k < end; k++) {
    const c = data[k]!;
    if (!((c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d || c === 0x2b)) return false;
  }
  return true;
}

function skipLiteralString(data: Uint8Array, i: number): number {
  let depth = 0;
  for (; i < data.length; i++) {
    const c = data[i]!;
    if (c === 0x5c) i++; // escape: the next byte is literal
    else if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return i + 1;
  }
  return data.length;
}

/** From just after `BI`: skips the image dictionary, `ID`, the binary data and `EI`; returns the index after EI. */
function skipInlineImage(data: Uint8Array, i: number): number {
  const n = data.length;
  // the dictionary: tokens up to the ID keyword (strings may appear in it, e.g. a /Decode or palette)
  while (i < n) {
    const b = data[i]!;
    if (b === 0x28) {
      i = skipLiteralString(data, i);
      continue;
    }
    if (b === 0x49 && data[i + 1] === 0x44 && (i === 0 || !isRegular(data[i - 1]!)) && (i + 2 >= n || !isRegular(data[i + 2]!))) {
      i += 2;
      break;
    }
    i++;
  }
  i++; // the single whitespace byte after ID
  // binary data: up to an EI surrounded by whitespace (or the end)
  for (let k = i; k + 1 < n; k++) {
    if (data[k] === 0x45 && data[k + 1] === 0x49 && WHITESPACE.has(data[k - 1] ?? 0x20) && (k + 2 >= n || !isRegular(data[k + 2]!))) {
      return k + 2;
    }
  }
  throw new DocumentFormatError('The PDF file is damaged: an inline image has no end.');
}

export interface StrippedContent {
  /** The stream without text (null when it shows none). */
  data: Uint8Array | null;
  /** Text-showing operations painted visibly, and invisibly (render mode 3 or 7: the OCR layer of a scan). */
  visible: number;
  invisible: number;
}

/** A page area (user space) where a thin horizontal path is an underline of text that is drawn anew. */
export interface UnderlineZone {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** Underlines are at most this thick (points) and drawn with these operators. */
const UNDERLINE_MAX_HEIGHT = 2.5;
const PATH_START = new Set(['m', 're']);
const PATH_PAINT = new Set(['S', 's', 'f', 'F', 'f*', 'B', 'B*', 'b', 'b*', 'n']);
type Matrix = [number, number, number, number, number, number];
const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5],
];

/** A point's distance (points) outside the visible box beyond which text there is not the page's own. */
const OUTSIDE_VIEW = 1;

/**
 * The content stream without its text-showing operators (and their operands), with what kind of text it showed;
 * thin horizontal paths (lines and bars of `m`/`l`/`re`) lying inside an underline zone are removed with the text.
 * Text shown from a point outside `view` (the page's visible box: a printer's slug, crop marks' labels) stays: it
 * is not read, so it is not drawn anew. The point is where the text was last positioned (Tm, Td, TD, T*, ', ").
 * Text in `cleared` (areas painted over by a picture of their text) goes whatever its font.
 */
export function stripText(
  data: Uint8Array,
  zones: readonly UnderlineZone[] = [],
  keepFonts: ReadonlySet<string> = new Set(),
  view?: readonly [number, number, number, number],
  cleared: readonly UnderlineZone[] = [],
): StrippedContent {
  const cuts: { start: number; end: number; replacement: string }[] = [];
  let visible = 0;
  let invisible = 0;
  // the text render mode and the transformation matrix are graphics state: saved by q, restored by Q
  let mode = 0;
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  /** The font resource text is shown in (Tf); text in one of keepFonts stays. */
  let font = '';
  const saved: { mode: number; ctm: Matrix; font: string }[] = [];
  /** The text line matrix (the text matrix at the start of the line) and the leading, for text's position. */
  let line: Matrix = [1, 0, 0, 1, 0, 0];
  let leading = 0;
  const tracked = view !== undefined || cleared.length > 0;
  const trackCtm = zones.length > 0 || tracked;
  const moveLine = (tx: number, ty: number) => {
    line = multiply([1, 0, 0, 1, tx, ty], line);
  };
  const here = () => [line[4] * ctm[0] + line[5] * ctm[2] + ctm[4], line[4] * ctm[1] + line[5] * ctm[3] + ctm[5]] as const;
  const outsideView = () => {
    if (!view) return false;
    const [x, y] = here();
    return x < view[0] - OUTSIDE_VIEW || x > view[2] + OUTSIDE_VIEW || y < view[1] - OUTSIDE_VIEW || y > view[3] + OUTSIDE_VIEW;
  };
  const inCleared = () => {
    const [x, y] = here();
    return cleared.some((z) => x >= z.x0 && x <= z.x1 && y >= z.y0 && y <= z.y1);
  };
  /** The current path: where its operators begin and its points in user space (NaN once a curve makes it no line). */
  let path: { start: number; xs: number[]; ys: number[]; clip: boolean } | undefined;
  const numbers = (start: number, end: number, name: string) =>
    Buffer.from(data.subarray(start, end - name.length)).toString('latin1').trim().split(/\s+/u).map(Number);
  const point = (x: number, y: number) => {
    // an underline has a few points; a longer path is no underline and stops being collected
    if (path!.xs.length >= 16) path!.xs[0] = Number.NaN;
    if (path!.xs.length >= 16) return;
    path!.xs.push(ctm[0] * x + ctm[2] * y + ctm[4]);
    path!.ys.push(ctm[1] * x + ctm[3] * y + ctm[5]);
  };
  scanOperators(data, (name, operandsStart, end) => {
    if (zones.length > 0 && (PATH_START.has(name) || name === 'l' || name === 'h')) {
      if (!path && PATH_START.has(name)) path = { start: operandsStart, xs: [], ys: [], clip: false };
      if (!path) return;
      const v = numbers(operandsStart, end, name);
      if (name === 're' && v.length === 4) {
        point(v[0]!, v[1]!);
        point(v[0]! + v[2]!, v[1]! + v[3]!);
      } else if ((name === 'm' || name === 'l') && v.length === 2) point(v[0]!, v[1]!);
      else if (name !== 'h') path.xs.push(Number.NaN);
      return;
    }
    if (path && ['c', 'v', 'y'].includes(name)) path.xs.push(Number.NaN);
    // a clipping path limits what follows: never removed
    if (path && (name === 'W' || name === 'W*')) path.clip = true;
    if (path && PATH_PAINT.has(name)) {
      if (!path.clip && isUnderline(path.xs, path.ys, zones)) cuts.push({ start: path.start, end, replacement: ' ' });
      path = undefined;
      return;
    }
    if (tracked && NEXT_LINE_AND_SHOW.has(name)) moveLine(0, -leading);
    if ((SHOW_TEXT.has(name) || NEXT_LINE_AND_SHOW.has(name)) && ((keepFonts.has(font) && !inCleared()) || outsideView())) {
      visible++;
    } else if (SHOW_TEXT.has(name) || NEXT_LINE_AND_SHOW.has(name)) {
      cuts.push({ start: operandsStart, end, replacement: SHOW_TEXT.has(name) ? ' ' : ' T* ' });
      if (mode === 3 || mode === 7) invisible++;
      else visible++;
    } else if (name === 'Tr') {
      mode = Number(Buffer.from(data.subarray(operandsStart, end - 2)).toString('latin1').trim());
    } else if (name === 'q') {
      if (saved.length < 1000) saved.push({ mode, ctm, font });
    } else if (name === 'Q') {
      ({ mode, ctm, font } = saved.pop() ?? { mode, ctm, font });
    } else if (name === 'Tf' && keepFonts.size > 0) {
      font = /^\s*\/(\S+)/u.exec(Buffer.from(data.subarray(operandsStart, end)).toString('latin1'))?.[1] ?? '';
    } else if (tracked && (name === 'BT' || name === 'Tm' || name === 'Td' || name === 'TD' || name === 'T*' || name === 'TL')) {
      const v = name === 'BT' || name === 'T*' ? [] : numbers(operandsStart, end, name);
      if (name === 'BT') line = [1, 0, 0, 1, 0, 0];
      else if (name === 'Tm' && v.length === 6 && v.every(Number.isFinite)) line = v as Matrix;
      else if ((name === 'Td' || name === 'TD') && v.length === 2 && v.every(Number.isFinite)) {
        moveLine(v[0]!, v[1]!);
        if (name === 'TD') leading = -v[1]!;
      } else if (name === 'T*') moveLine(0, -leading);
      else if (name === 'TL' && v.length === 1 && Number.isFinite(v[0])) leading = v[0]!;
    } else if (name === 'cm' && trackCtm) {
      const m = numbers(operandsStart, end, name);
      if (m.length === 6 && m.every(Number.isFinite)) ctm = multiply(m as Matrix, ctm);
    }
  });
  if (cuts.length === 0) return { data: null, visible, invisible };
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const c of cuts) {
    parts.push(data.subarray(at, c.start), Buffer.from(c.replacement, 'latin1'));
    at = c.end;
  }
  parts.push(data.subarray(at));
  return { data: Buffer.concat(parts), visible, invisible };
}

/** Whether a path's points make a thin horizontal line or bar lying inside one of the zones. */
function isUnderline(xs: number[], ys: number[], zones: readonly UnderlineZone[]): boolean {
  if (xs.length < 2 || xs.some((x) => !Number.isFinite(x)) || ys.some((y) => !Number.isFinite(y))) return false;
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  if (y1 - y0 > UNDERLINE_MAX_HEIGHT || x1 - x0 < 2) return false;
  return zones.some((z) => x0 >= z.x0 && x1 <= z.x1 && y0 >= z.y0 && y1 <= z.y1);
}

/** The content stream without its text-showing operators (and their operands); null when it shows no text. */
export function stripTextOperators(data: Uint8Array): Uint8Array | null {
  return stripText(data).data;
}
