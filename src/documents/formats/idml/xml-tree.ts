// A located XML tree for in-place editing: saxes checks well-formedness and reports positions; consecutive events
// tile the text, so every node knows its exact source span and untouched markup is copied byte for byte.
import { SaxesParser } from 'saxes';
import { DocumentFormatError } from '../format.js';

export interface XElement {
  type: 'element';
  name: string;
  /** Source span of the start tag (the whole tag for a self-closing element). */
  openStart: number;
  openEnd: number;
  /** Source span of the end tag; empty (closeStart = closeEnd = openEnd) for a self-closing element. */
  closeStart: number;
  closeEnd: number;
  children: XNode[];
}

/** Character data (decoded; CDATA included) or other markup (comment, processing instruction, XML declaration). */
export type XNode = XElement | { type: 'text'; start: number; end: number; text: string } | { type: 'other'; start: number; end: number; pi?: string };

/** Deepest element nesting accepted (real documents stay far below; it bounds recursion). */
const MAX_DEPTH = 200;

/** Parses a whole XML document; DOCTYPE (and so any entity definition) is refused. */
export function parseXmlTree(text: string, what: string): XNode[] {
  const parser = new SaxesParser({ position: true });
  const root: XElement = { type: 'element', name: '', openStart: 0, openEnd: 0, closeStart: text.length, closeEnd: text.length, children: [] };
  const stack: XElement[] = [root];
  let cursor = 0;
  let failure: string | undefined;
  // Text is reported when the next '<' has been read; markup events once their '>' has (a comment just before it).
  const textEnd = () => (text[parser.position - 1] === '<' ? parser.position - 1 : parser.position);
  const markupEnd = () => {
    const p = parser.position;
    return text[p - 1] === '>' ? p : text.indexOf('>', p - 1) + 1;
  };
  const top = () => stack[stack.length - 1]!;
  parser.on('error', (err) => {
    failure ??= err.message;
  });
  parser.on('doctype', () => {
    failure ??= 'DOCTYPE declarations are not allowed';
  });
  parser.on('text', (t) => {
    const end = textEnd();
    top().children.push({ type: 'text', start: cursor, end, text: t });
    cursor = end;
  });
  parser.on('cdata', (t) => {
    const end = markupEnd();
    top().children.push({ type: 'text', start: cursor, end, text: t });
    cursor = end;
  });
  const other = (pi?: string) => () => {
    const end = markupEnd();
    top().children.push({ type: 'other', start: cursor, end, ...(pi !== undefined ? { pi } : {}) });
    cursor = end;
  };
  parser.on('xmldecl', other());
  parser.on('comment', other());
  parser.on('processinginstruction', (pi) => other(pi.target)());
  parser.on('opentag', (tag) => {
    const end = markupEnd();
    const el: XElement = { type: 'element', name: tag.name, openStart: cursor, openEnd: end, closeStart: end, closeEnd: end, children: [] };
    top().children.push(el);
    stack.push(el);
    if (stack.length > MAX_DEPTH) failure ??= 'elements are nested too deeply';
    cursor = end;
  });
  parser.on('closetag', () => {
    if (stack.length <= 1) {
      failure ??= 'unexpected end tag';
      return;
    }
    const el = stack.pop()!;
    // A self-closing tag reports its close at the position of its open: nothing more was read.
    const end = parser.position === el.openEnd ? el.openEnd : markupEnd();
    el.closeStart = cursor;
    el.closeEnd = end;
    cursor = end;
  });
  try {
    parser.write(text).close();
  } catch (err) {
    failure ??= (err as Error).message;
  }
  if (failure) throw new DocumentFormatError(`The ${what} is not well-formed XML: ${failure.replace(/^[^:]*:\d+:\d+: /u, '')}.`);
  if (cursor < text.length) root.children.push({ type: 'other', start: cursor, end: text.length });
  return root.children;
}

export function nodeStart(n: XNode): number {
  return n.type === 'element' ? n.openStart : n.start;
}

export function nodeEnd(n: XNode): number {
  return n.type === 'element' ? n.closeEnd : n.end;
}
