// Parses one OOXML part with saxes (namespaces and nesting checked by XmlScope, linear in the part), a window at a
// time, keeping each element's source offsets so that rewritten paragraphs are spliced into otherwise untouched XML. A DOCTYPE is refused: OOXML never has one, and entity declarations are how
// billion-laughs files blow up parsers.
import { SaxesParser } from 'saxes';
import { XmlScope, type ScopedTag } from '../../lib/xml-scope.js';
import { DocumentFormatError } from './format.js';

export interface XElement {
  /** Qualified name as written ("w:p"), its prefix and local name, and its namespace URI. */
  name: string;
  prefix: string;
  local: string;
  uri: string;
  /** Offsets in the part's text: start tag [start, openEnd), end tag [closeStart, end); equal for `<x/>`. */
  start: number;
  openEnd: number;
  closeStart: number;
  end: number;
  children: XElement[];
  /** Character data directly inside (decoded), kept for text elements only. */
  text: string;
}

/** Where a paragraph can be appended to a WordprocessingML body (before its final sectPr), and the prefix of w:body. */
export interface BodyEnd {
  at: number;
  prefix: string;
}

export const NS = {
  w: new Set(['http://schemas.openxmlformats.org/wordprocessingml/2006/main', 'http://purl.oclc.org/ooxml/wordprocessingml/main']),
  a: new Set(['http://schemas.openxmlformats.org/drawingml/2006/main', 'http://purl.oclc.org/ooxml/drawingml/main']),
  x: new Set(['http://schemas.openxmlformats.org/spreadsheetml/2006/main', 'http://purl.oclc.org/ooxml/spreadsheetml/main']),
  c: new Set(['http://schemas.openxmlformats.org/drawingml/2006/chart', 'http://purl.oclc.org/ooxml/drawingml/chart']),
};

const MAX_DEPTH = 1000;

interface Frame {
  local: string;
  uri: string;
  node?: XElement;
}

/** Characters handed to the parser at a time: a reader stops between writes, so roots come out a window at a time. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Reads a part incrementally; `keep(uri, local, parentLocal)` selects the elements whose subtrees are built
 * (everything else is only scanned). Each `read` hands out the kept roots completed so far, so a caller holds the
 * trees of one window of the part at a time, never of the whole part.
 */
export class PartReader {
  private readonly parser = new SaxesParser({ xmlns: false, position: true });
  private ready: XElement[] = [];
  private at = 0;
  private closed = false;
  private bodyEndAt: BodyEnd | undefined;

  constructor(
    readonly source: string,
    keep: (uri: string, local: string, parentLocal: string | undefined) => boolean,
    private readonly what: string,
  ) {
    const parser = this.parser;
    // Render and flattening recurse over the tree: a bound on depth keeps them off the stack limit.
    const scope = new XmlScope(MAX_DEPTH);
    const stack: Frame[] = [];
    let bodyPrefix = '';
    let lastBodySectPr: number | undefined;
    let failure: string | undefined;

    parser.on('doctype', () => {
      throw new DocumentFormatError(`The ${what} file contains a DOCTYPE declaration, which Office documents never have; it is refused.`);
    });
    parser.on('error', (err) => {
      failure ??= err.message;
      throw new DocumentFormatError(`The ${what} file contains malformed XML: ${failure}`);
    });
    parser.on('opentag', (tag) => {
      const end = parser.position;
      const start = source.lastIndexOf('<', end - 1);
      const parent = stack[stack.length - 1];
      if (scope.depth >= MAX_DEPTH) throw new DocumentFormatError(`The ${what} file is nested too deeply.`);
      let resolved: ScopedTag;
      try {
        resolved = scope.open(tag.name, tag.attributes);
      } catch (err) {
        throw new DocumentFormatError(`The ${what} file contains malformed XML: ${(err as Error).message}`);
      }
      const { uri, local, prefix } = resolved;
      let node: XElement | undefined;
      if (parent?.node || keep(uri, local, parent?.local)) {
        node = { name: tag.name, prefix, local, uri, start, openEnd: end, closeStart: end, end, children: [], text: '' };
        if (parent?.node) parent.node.children.push(node);
      }
      if (NS.w.has(uri)) {
        if (local === 'body') bodyPrefix = prefix;
        else if (local === 'sectPr' && parent?.local === 'body' && NS.w.has(parent.uri)) lastBodySectPr = start;
      }
      stack.push({ local, uri, node });
    });
    parser.on('closetag', (tag) => {
      scope.close();
      const frame = stack.pop();
      const end = parser.position;
      if (frame?.node && !tag.isSelfClosing) {
        frame.node.closeStart = source.lastIndexOf('<', end - 1);
        frame.node.end = end;
      }
      // a kept element outside any other is a root, handed out once complete
      if (frame?.node && !stack[stack.length - 1]?.node) this.ready.push(frame.node);
      if (frame && frame.local === 'body' && NS.w.has(frame.uri)) {
        const closeStart = tag.isSelfClosing ? end : source.lastIndexOf('<', end - 1);
        this.bodyEndAt = { at: lastBodySectPr ?? closeStart, prefix: bodyPrefix };
      }
    });
    const onText = (t: string) => {
      const node = stack[stack.length - 1]?.node;
      // text elements: w:t, a:t, x:t, and a chart's cached string values (c:v)
      if (node && (node.local === 't' || (node.local === 'v' && NS.c.has(node.uri)))) node.text += t;
    };
    parser.on('text', onText);
    parser.on('cdata', onText);
  }

  /** True once the whole part was read. */
  get done(): boolean {
    return this.closed;
  }

  /** Where a paragraph can be appended to a WordprocessingML body; known once the part was read. */
  get bodyEnd(): BodyEnd | undefined {
    return this.bodyEndAt;
  }

  /**
   * Reads on by at least `chars` characters (to the end for Infinity) and hands out the roots completed meanwhile:
   * elements accepted by `keep` that are not inside another kept element, with their whole subtrees, in order.
   */
  read(chars: number): XElement[] {
    const stop = Math.min(this.source.length, this.at + chars);
    try {
      while (this.at < stop) {
        const end = Math.min(this.at + CHUNK_CHARS, this.source.length);
        this.parser.write(this.source.slice(this.at, end));
        this.at = end;
      }
      if (this.at >= this.source.length && !this.closed) {
        this.closed = true;
        this.parser.close();
      }
    } catch (err) {
      this.closed = true;
      if (err instanceof DocumentFormatError) throw err;
      throw new DocumentFormatError(`The ${this.what} file contains malformed XML: ${(err as Error).message}`);
    }
    const out = this.ready;
    this.ready = [];
    return out;
  }
}
