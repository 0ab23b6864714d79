// XLIFF inline codes as tagged units for the markup layer: paired codes (<g>, <pc>, <mrk>, and <bpt>/<ept>,
// <sc/>/<ec/>, <sm/>/<em/> that close at the same level) become open/close marks around their words; every other
// code (<x/>, <ph>, <it>, <cp/>, unknown elements, comments) is an empty mark whose markup is copied verbatim.
import { renderTagged, type TaggedText } from '../../markup/index.js';
import { attr, escapeText, type LocatedElement, type LocatedNode } from './located-xml.js';

export const XLIFF12_NS = 'urn:oasis:names:tc:xliff:document:1.2';
/** XLIFF 2.1 keeps the 2.0 core namespace. */
export const XLIFF2_NS = 'urn:oasis:names:tc:xliff:document:2.0';

/** What the inline elements of one XLIFF version mean. */
export interface InlineDialect {
  /** Namespace of the XLIFF elements in this file ('' for a 1.2 file written without one). */
  uri: string;
  /** Codes with content: their words are translated, the code stays around them. */
  paired: ReadonlySet<string>;
  /** Standalone start codes and the end code that closes each. */
  starts: ReadonlyMap<string, string>;
  startKey(el: LocatedElement): string | undefined;
  endKey(el: LocatedElement): string | undefined;
  /** A paired code whose content must not be translated (copied verbatim as one code). */
  protectedContent(el: LocatedElement): boolean;
}

export function dialect12(uri: string): InlineDialect {
  return {
    uri,
    paired: new Set(['g', 'mrk']),
    starts: new Map([['bpt', 'ept']]),
    startKey: (el) => attr(el, 'rid') ?? attr(el, 'id'),
    endKey: (el) => attr(el, 'rid') ?? attr(el, 'id'),
    protectedContent: (el) => el.local === 'mrk' && attr(el, 'mtype') === 'protected',
  };
}

export function dialect2(uri: string): InlineDialect {
  return {
    uri,
    paired: new Set(['pc', 'mrk']),
    starts: new Map([
      ['sc', 'ec'],
      ['sm', 'em'],
    ]),
    startKey: (el) => attr(el, 'id'),
    endKey: (el) => attr(el, 'startRef'),
    protectedContent: (el) => attr(el, 'translate') === 'no',
  };
}

/** A source's content as a tagged unit, with the markup each mark stands for (indexed by mark id). */
export interface CodedUnit {
  unit: TaggedText;
  open: string[];
  close: string[];
}

/** Pairs standalone start/end codes that close at the same level without crossing another pair (index → index). */
function pairStandalone(nodes: LocatedNode[], d: InlineDialect): Map<number, number> {
  const pairs = new Map<number, number>();
  const stack: { key: string; end: string; index: number }[] = [];
  const ends = new Set(d.starts.values());
  nodes.forEach((n, i) => {
    if (n.type !== 'element' || n.uri !== d.uri) return;
    const end = d.starts.get(n.local);
    if (end !== undefined) {
      const key = d.startKey(n);
      if (key !== undefined) stack.push({ key, end, index: i });
    } else if (ends.has(n.local)) {
      const key = d.endKey(n);
      let at = stack.length - 1;
      while (at >= 0 && !(stack[at]!.key === key && stack[at]!.end === n.local)) at--;
      if (at < 0) return;
      // Starts opened after the matched one would cross this pair: they stay standalone (empty marks).
      pairs.set(stack[at]!.index, i);
      stack.length = at;
    }
  });
  return pairs;
}

/** The tagged unit of an element's content (a <source>, or a segment <mrk> of a 1.2 <seg-source>). */
export function codedUnit(text: string, container: LocatedElement, d: InlineDialect): CodedUnit {
  const coded: CodedUnit = { unit: { text: '', marks: [] }, open: [], close: [] };
  const u = coded.unit;
  const add = (open: string, close: string): number => {
    coded.open.push(open);
    coded.close.push(close);
    return coded.open.length - 1;
  };
  const walk = (nodes: LocatedNode[]): void => {
    const pairs = pairStandalone(nodes, d);
    const closing = new Map<number, number>(); // node index of an end code → mark id
    nodes.forEach((n, i) => {
      if (n.type === 'text') {
        u.text += n.text;
        return;
      }
      if (n.type === 'element' && n.uri === d.uri && d.paired.has(n.local) && !n.selfClosing && !d.protectedContent(n)) {
        const id = add(text.slice(n.start, n.openEnd), text.slice(n.closeStart, n.end));
        u.marks.push({ id, kind: 'open', pos: u.text.length });
        walk(n.children);
        u.marks.push({ id, kind: 'close', pos: u.text.length });
        return;
      }
      const whole = text.slice(n.start, n.end);
      const partner = pairs.get(i);
      if (partner !== undefined) {
        const id = add(whole, '');
        closing.set(partner, id);
        u.marks.push({ id, kind: 'open', pos: u.text.length });
        return;
      }
      const id = closing.get(i);
      if (id !== undefined) {
        coded.close[id] = whole;
        u.marks.push({ id, kind: 'close', pos: u.text.length });
        return;
      }
      u.marks.push({ id: add(whole, ''), kind: 'empty', pos: u.text.length });
    });
  };
  walk(container.children);
  return coded;
}

/** The target content of a translated unit: its text escaped, each code written as in the source. */
export function renderCoded(coded: CodedUnit, translated: TaggedText): string {
  return renderTagged(translated, (m) => (m.kind === 'close' ? coded.close[m.id] : coded.open[m.id]) ?? '', escapeText);
}
