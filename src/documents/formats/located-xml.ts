// A strict XML reader for formats that edit a file in place: saxes checks well-formedness, XmlScope resolves
// namespaces and bounds nesting (both linear in the file), and every node keeps its source offsets so that untouched bytes (comments, whitespace, PIs, unknown elements)
// are copied verbatim and only the edited spans change.
import { SaxesParser } from 'saxes';
import { XmlScope } from '../../lib/xml-scope.js';
import { decodeXmlEntities } from '../../markup/xml-markup.js';
import { DocumentFormatError } from './format.js';

export interface LocatedText {
  type: 'text';
  start: number;
  end: number;
  /** Decoded text (entities expanded; a CDATA section's content). */
  text: string;
}

/** Comments and processing instructions: never translated, copied verbatim. */
export interface LocatedOther {
  type: 'other';
  start: number;
  end: number;
}

export interface LocatedElement {
  type: 'element';
  /** Qualified name as written ("xlf:source"). */
  name: string;
  local: string;
  uri: string;
  /** Attribute values (entities expanded) by qualified name. */
  attributes: Record<string, string>;
  /** [start, openEnd) is the start tag, [closeStart, end) the end tag; a self-closing tag has openEnd = closeStart = end. */
  start: number;
  openEnd: number;
  closeStart: number;
  end: number;
  selfClosing: boolean;
  children: LocatedNode[];
}

export type LocatedNode = LocatedText | LocatedOther | LocatedElement;

export interface LocatedDocument {
  text: string;
  root: LocatedElement;
  /** The DOCTYPE as written, if any. */
  doctype: string | undefined;
}

/** Deeper nesting than any real localisation file; bounds the recursion of the walkers. */
export const MAX_DEPTH = 200;

/** Parses a whole document; throws DocumentFormatError naming `what` for anything that is not well-formed. */
export function parseLocatedXml(text: string, what: string): LocatedDocument {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const scope = new XmlScope(MAX_DEPTH);
  const top: LocatedElement = {
    type: 'element', name: '', local: '', uri: '', attributes: {}, start: 0, openEnd: 0, closeStart: text.length, end: text.length, selfClosing: false, children: [],
  };
  const stack: LocatedElement[] = [top];
  let prevEnd = 0;
  let failure: string | undefined;
  let doctype: string | undefined;
  let root: LocatedElement | undefined;

  // Text cannot hold a raw '<': whatever lies between the previous construct and the next '<' is character data.
  const begin = (): number => {
    const start = text.indexOf('<', prevEnd);
    const at = start < 0 ? text.length : start;
    if (at > prevEnd) {
      const raw = text.slice(prevEnd, at);
      stack[stack.length - 1]!.children.push({ type: 'text', start: prevEnd, end: at, text: decodeXmlEntities(raw) });
    }
    return at;
  };
  const other = (end: number) => {
    const start = begin();
    stack[stack.length - 1]!.children.push({ type: 'other', start, end });
    prevEnd = end;
  };

  // The first error ends the parse (thrown out of write).
  parser.on('error', (err) => {
    throw err;
  });
  parser.on('xmldecl', () => {
    prevEnd = parser.position;
  });
  parser.on('doctype', (dt) => {
    const start = begin();
    if (/<!ENTITY/u.test(dt)) failure ??= 'entity declarations (DTD internal subset) are not supported';
    doctype = text.slice(start, parser.position);
    prevEnd = parser.position;
  });
  parser.on('processinginstruction', () => other(parser.position));
  // saxes reports a comment before reading its final '>'.
  parser.on('comment', () => other(text.indexOf('-->', text.indexOf('<!--', prevEnd) + 4) + 3));
  parser.on('cdata', (data) => {
    const start = begin();
    stack[stack.length - 1]!.children.push({ type: 'text', start, end: parser.position, text: data });
    prevEnd = parser.position;
  });
  parser.on('opentag', (tag) => {
    const { local, uri } = scope.open(tag.name, tag.attributes);
    const start = begin();
    const end = parser.position;
    const el: LocatedElement = {
      type: 'element', name: tag.name, local, uri, attributes: tag.attributes, start, openEnd: end, closeStart: end, end,
      selfClosing: tag.isSelfClosing, children: [],
    };
    stack[stack.length - 1]!.children.push(el);
    root ??= el;
    prevEnd = end;
    if (!tag.isSelfClosing) stack.push(el);
  });
  parser.on('closetag', (tag) => {
    scope.close();
    if (tag.isSelfClosing) return;
    const closeStart = begin();
    const el = stack.pop()!;
    el.closeStart = closeStart;
    el.end = parser.position;
    prevEnd = el.end;
  });

  try {
    parser.write(text).close();
  } catch (err) {
    failure ??= (err as Error).message;
  }
  if (failure || !root) throw new DocumentFormatError(`The ${what} file is not well-formed XML${failure ? `: ${failure.replace(/\.$/u, '')}` : ''}.`);
  return { text, root, doctype };
}

/** A located element's children that are elements, optionally only those with a local name in `uri`. */
export function childElements(el: LocatedElement, local?: string, uri?: string): LocatedElement[] {
  return el.children.filter(
    (c): c is LocatedElement => c.type === 'element' && (local === undefined || c.local === local) && (uri === undefined || c.uri === uri),
  );
}

/** The value of an attribute by qualified name ("xml:lang", "translate"). */
export function attr(el: LocatedElement, qname: string): string | undefined {
  return el.attributes[qname];
}

interface AttrSpan {
  name: string;
  /** Offsets of the whole `name="value"` inside the tag. */
  start: number;
  end: number;
  /** Offsets of the value inside the tag, quotes excluded. */
  valueStart: number;
  valueEnd: number;
}

const ATTRIBUTE = /\s+([^\s=/>]+)\s*=\s*("[^"]*"|'[^']*')/uy;

/** Attributes of a well-formed start tag, read in order (a value cannot hold its own quote, so this is exact). */
function attributeSpans(tag: string): AttrSpan[] {
  const spans: AttrSpan[] = [];
  ATTRIBUTE.lastIndex = /^<[^\s/>]+/u.exec(tag)![0].length;
  for (let m = ATTRIBUTE.exec(tag); m; m = ATTRIBUTE.exec(tag)) {
    const end = m.index + m[0].length;
    const valueEnd = end - 1;
    spans.push({ name: m[1]!, start: m.index + /^\s*/u.exec(m[0])![0].length, end, valueStart: valueEnd - (m[2]!.length - 2), valueEnd });
  }
  return spans;
}

export function escapeAttribute(value: string): string {
  return value.replace(/[&<"]/gu, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&quot;'));
}

export function escapeText(value: string): string {
  return value.replace(/[&<>]/gu, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/**
 * A start tag with attribute `qname` set to `value`: replaced in place when present (its quote kept), otherwise added
 * after the last attribute, so the rest of the tag stays as written.
 */
export function setAttribute(tag: string, qname: string, value: string): string {
  const spans = attributeSpans(tag);
  const found = spans.find((s) => s.name === qname);
  if (found) {
    const quote = tag[found.valueEnd];
    const v = quote === "'" ? value.replace(/[&<']/gu, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&apos;')) : escapeAttribute(value);
    return tag.slice(0, found.valueStart) + v + tag.slice(found.valueEnd);
  }
  const after = spans.length > 0 ? spans[spans.length - 1]!.end : /^<[^\s/>]+/u.exec(tag)![0].length;
  return `${tag.slice(0, after)} ${qname}="${escapeAttribute(value)}"${tag.slice(after)}`;
}

/** Namespace declarations (xmlns, xmlns:p) written on a start tag, as written. */
export function namespaceDeclarations(tag: string): string[] {
  return attributeSpans(tag)
    .filter((s) => s.name === 'xmlns' || s.name.startsWith('xmlns:'))
    .map((s) => tag.slice(s.start, s.end));
}
