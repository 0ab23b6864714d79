// HTML front end: parse5 (lenient, never rejects) with source locations, so tags, entities and untouched content
// come back as written; script/style/code/translate="no"/notranslate content is copied verbatim, title/alt/
// placeholder attributes are translated and lang attributes set to the target language.
import { defaultTreeAdapter, parse, parseFragment, serialize, type DefaultTreeAdapterMap, type DefaultTreeAdapterTypes as T, type TreeAdapter } from 'parse5';
import { ServiceError } from '../lib/errors.js';
import type { AttrSlot, MElement, MNode } from './markup-tree.js';
import { MAX_MARKUP_DEPTH, TAG_PARSE_FAILED } from './xml-markup.js';

export interface HtmlOptions {
  splittingTags: string[];
  nonSplittingTags: string[];
  ignoreTags: string[];
  /** Value for lang attributes (the target language, BCP 47). */
  targetLang: string;
}

/** Elements that end a sentence: their content is translated on its own. */
const BLOCK = new Set(
  'address article aside blockquote body caption col colgroup dd details dialog div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html legend li main menu nav ol optgroup option p pre section select summary table tbody td tfoot th thead title tr ul'.split(
    ' ',
  ),
);
/** Elements whose content is never translated. */
const UNTOUCHED = new Set('script style code kbd samp pre-code template textarea noscript svg math iframe object var'.split(' '));
const TRANSLATED_ATTRS = new Set(['title', 'alt', 'placeholder', 'aria-label']);

/**
 * parse5's default tree with the markup nesting limit, checked as nodes are inserted: parse5 has no limit of its own
 * and its scope checks walk the open elements, so depth must be refused while parsing. Depths are recorded per node
 * (O(1) per insertion); a subtree the adoption agency moves keeps its recorded depths, which only errs by a few levels.
 */
const depths = new WeakMap<object, number>();
function placed(parent: object, node: object): void {
  const depth = (depths.get(parent) ?? 0) + 1;
  if (depth > MAX_MARKUP_DEPTH) {
    throw new ServiceError('invalid_request', TAG_PARSE_FAILED, { detail: `elements are nested more than ${MAX_MARKUP_DEPTH} levels deep.` });
  }
  depths.set(node, depth);
}
const depthLimitedTree: TreeAdapter<DefaultTreeAdapterMap> = {
  ...defaultTreeAdapter,
  appendChild(parent, node) {
    placed(parent, node);
    defaultTreeAdapter.appendChild(parent, node);
  },
  insertBefore(parent, node, reference) {
    placed(parent, node);
    defaultTreeAdapter.insertBefore(parent, node, reference);
  },
  setTemplateContent(template, content) {
    depths.set(content, depths.get(template) ?? 0);
    defaultTreeAdapter.setTemplateContent(template, content);
  },
};

function concatRaw(nodes: MNode[]): string {
  let out = '';
  for (const n of nodes) out += n.type === 'element' ? n.open + concatRaw(n.children) + n.close : n.raw;
  return out;
}

/** Offsets of an attribute's value (quotes included) inside its `name=value` source text. */
function valueSlot(attrSource: string, offset: number, text: string): AttrSlot | undefined {
  const m = /^[^=]*=\s*/u.exec(attrSource);
  if (!m) return undefined;
  const start = offset + m[0].length;
  return { start, end: offset + attrSource.length, text, quote: /^["']/u.test(attrSource.slice(m[0].length)) ? attrSource[m[0].length]! : '"' };
}

/** After `</body>`, parse5 moves blanks and comments back into the body; such a tail is kept aside verbatim. */
const DOCUMENT_TAIL = /<\/body\s*>(?:\s|<!--[\s\S]*?-->|<\/html\s*>)*$/iu;

export function parseHtml(html: string, options: HtmlOptions): MNode[] {
  const tail = DOCUMENT_TAIL.exec(html);
  if (tail) {
    const head = html.slice(0, tail.index);
    const nodes = build(head, options);
    if (concatRaw(nodes) === head) return [...nodes, { type: 'raw', raw: tail[0] }];
  }
  const first = build(html, options);
  if (concatRaw(first) === html) return first;
  // Misnested markup that parse5 repaired (adoption agency, foster parenting; old pages' <P><FONT>…): the elements
  // in source order, the misnested ones as raw tags, so that the page is kept as written (doctype, head, no tbody).
  const inOrder = buildInSourceOrder(html, options);
  if (concatRaw(inOrder) === html) return inOrder;
  // Should that still not give the source back: work on parse5's valid serialisation.
  const isDocument = /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype|html[\s>])/iu.test(html);
  const limited = { treeAdapter: depthLimitedTree };
  const repaired = serialize(isDocument ? parse(html, limited) : parseFragment(html, limited));
  return build(repaired, options);
}

function build(html: string, options: HtmlOptions): MNode[] {
  const tree = parseLocated(html);
  const slice = (loc: { startOffset: number; endOffset: number } | null | undefined) => (loc ? html.slice(loc.startOffset, loc.endOffset) : '');

  // Source text the tree does not hold (a newline parse5 drops after <pre>, stray end tags) is kept as raw gaps.
  let cursor = 0;
  const gap = (pos: number): MNode[] => {
    if (pos <= cursor) return [];
    const raw = html.slice(cursor, pos);
    cursor = pos;
    return [{ type: 'raw', raw }];
  };
  const convert = (node: T.ChildNode): MNode[] => {
    const loc = node.sourceCodeLocation;
    if (node.nodeName === '#text' || node.nodeName === '#comment' || node.nodeName === '#documentType') {
      if (!loc) return [];
      const before = gap(loc.startOffset);
      cursor = Math.max(cursor, loc.endOffset);
      const raw = slice(loc);
      return [...before, node.nodeName === '#text' ? { type: 'text', raw, text: (node as T.TextNode).value } : { type: 'raw', raw }];
    }
    const el = node as T.Element;
    const eloc = el.sourceCodeLocation;
    if (!eloc?.startTag) return el.childNodes.flatMap(convert); // implied element (html, head, body, tbody)
    const before = gap(eloc.startOffset);
    if (untouched(el, options)) {
      cursor = Math.max(cursor, eloc.endOffset);
      return [...before, { type: 'raw', raw: html.slice(eloc.startOffset, eloc.endOffset) }];
    }
    const element = elementNode(html, el, options);
    cursor = Math.max(cursor, eloc.startTag.endOffset);
    element.children = el.childNodes.flatMap(convert);
    if (eloc.endTag) {
      element.children.push(...gap(eloc.endTag.startOffset));
      element.close = slice(eloc.endTag);
      cursor = Math.max(cursor, eloc.endTag.endOffset);
    }
    return [...before, element];
  };
  const nodes = (tree.childNodes as T.ChildNode[]).flatMap(convert);
  nodes.push(...gap(html.length));
  return nodes;
}

/**
 * The page's nodes in source order from parse5's located tree: each element spans its start tag to its end (written
 * or implied); an element whose end falls inside a later-opened element that is still open (misnesting the parser
 * repaired by moving nodes) becomes raw start and end tags around its content. Copies (reconstructed formatting
 * elements) have no location and are left out; every source byte is emitted once, in order.
 */
function buildInSourceOrder(html: string, options: HtmlOptions): MNode[] {
  type Event = { at: number; seq: number } & ({ kind: 'leaf'; node: T.ChildNode } | { kind: 'open' | 'close'; el: T.Element });
  const events: Event[] = [];
  let seq = 0;
  const walk = (nodes: T.ChildNode[]) => {
    for (const n of nodes) {
      const loc = n.sourceCodeLocation;
      if (!('tagName' in n)) {
        if (loc) events.push({ at: loc.startOffset, seq: seq++, kind: 'leaf', node: n });
        continue;
      }
      const eloc = n.sourceCodeLocation;
      if (!eloc?.startTag) {
        walk(n.childNodes);
        continue;
      }
      const s = seq++;
      events.push({ at: eloc.startTag.startOffset, seq: s, kind: 'open', el: n });
      if (!untouched(n, options)) walk(n.childNodes);
      events.push({ at: eloc.endTag?.startOffset ?? eloc.endOffset ?? html.length, seq: s, kind: 'close', el: n });
    }
  };
  walk(parseLocated(html).childNodes as T.ChildNode[]);
  // By place; at one place, ends before starts (an implied end is where the next tag starts), inner ends first.
  const rank = (e: Event) => (e.kind === 'close' ? 0 : 1);
  events.sort((a, b) => a.at - b.at || rank(a) - rank(b) || (a.kind === 'close' ? b.seq - a.seq : a.seq - b.seq));

  const root: MNode[] = [];
  const stack: { el: T.Element; node: MElement; parent: MNode[] }[] = [];
  const skipped = new Set<T.Element>();
  let cursor = 0;
  const top = () => (stack.length > 0 ? stack[stack.length - 1]!.node.children : root);
  const emit = (to: number, into: MNode[] = top()) => {
    if (to > cursor) into.push({ type: 'raw', raw: html.slice(cursor, to) });
    cursor = Math.max(cursor, to);
  };
  for (const e of events) {
    if (e.kind === 'leaf') {
      const loc = e.node.sourceCodeLocation!;
      if (loc.startOffset < cursor) continue;
      emit(loc.startOffset);
      const raw = html.slice(loc.startOffset, loc.endOffset);
      top().push(e.node.nodeName === '#text' ? { type: 'text', raw, text: (e.node as T.TextNode).value } : { type: 'raw', raw });
      cursor = loc.endOffset;
    } else if (e.kind === 'open') {
      const eloc = e.el.sourceCodeLocation!;
      if (eloc.startTag!.startOffset < cursor) skipped.add(e.el);
      else if (untouched(e.el, options)) {
        skipped.add(e.el);
        emit(eloc.startTag!.startOffset);
        emit(Math.max(eloc.endOffset ?? html.length, eloc.startTag!.endOffset));
      } else {
        emit(eloc.startTag!.startOffset);
        const node = elementNode(html, e.el, options);
        top().push(node);
        stack.push({ el: e.el, node, parent: top() });
        cursor = eloc.startTag!.endOffset;
      }
    } else if (!skipped.has(e.el)) {
      const k = stack.findIndex((s) => s.el === e.el);
      if (k < 0) continue;
      const { node, parent } = stack[k]!;
      const endTag = e.el.sourceCodeLocation!.endTag;
      if (k < stack.length - 1) {
        // Misnested: this element's start tag and content go to its parent, its end tag stays in the open element.
        // While it was open, content went into it, so it is its parent's last child (found at once from the end).
        parent.splice(parent.lastIndexOf(node), 1, { type: 'raw', raw: node.open }, ...node.children);
        stack.splice(k, 1);
        stack[k]!.parent = parent;
        if (endTag && endTag.startOffset >= cursor) {
          emit(endTag.startOffset);
          top().push({ type: 'raw', raw: html.slice(endTag.startOffset, endTag.endOffset) });
          cursor = endTag.endOffset;
        }
        continue;
      }
      stack.pop();
      if (endTag && endTag.startOffset >= cursor) {
        emit(endTag.startOffset, node.children);
        node.close = html.slice(endTag.startOffset, endTag.endOffset);
        cursor = endTag.endOffset;
      }
    }
  }
  emit(html.length, root);
  return root;
}

const IS_DOCUMENT = /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype|html[\s>])/iu;

function parseLocated(html: string): T.Document | T.DocumentFragment {
  return IS_DOCUMENT.test(html)
    ? parse(html, { sourceCodeLocationInfo: true, treeAdapter: depthLimitedTree })
    : parseFragment(html, { sourceCodeLocationInfo: true, treeAdapter: depthLimitedTree });
}

/** Script, style, code…, ignore_tags, translate="no" and class="notranslate": content copied verbatim. */
function untouched(el: T.Element, options: HtmlOptions): boolean {
  const name = el.tagName.toLowerCase();
  const attr = (n: string) => el.attrs.find((a) => a.name === n)?.value;
  return (
    UNTOUCHED.has(name) ||
    options.ignoreTags.some((t) => t.toLowerCase() === name) ||
    attr('translate')?.toLowerCase() === 'no' ||
    (attr('class') ?? '').split(/\s+/u).includes('notranslate')
  );
}

/** An element with its start tag as written (translated and lang attributes located in it), no children or end tag yet. */
function elementNode(html: string, el: T.Element, options: HtmlOptions): MElement {
  const eloc = el.sourceCodeLocation!;
  const startTag = eloc.startTag!;
  const name = el.tagName.toLowerCase();
  const attrSlots: AttrSlot[] = [];
  const attrSets: MElement['attrSets'] = [];
  for (const a of el.attrs) {
    const aloc = eloc.attrs?.[a.name];
    if (!aloc) continue;
    const slot = valueSlot(html.slice(aloc.startOffset, aloc.endOffset), aloc.startOffset - startTag.startOffset, a.value);
    if (!slot) continue;
    if (TRANSLATED_ATTRS.has(a.name) && /[\p{L}\p{N}]/u.test(a.value)) attrSlots.push(slot);
    else if (a.name === 'lang') attrSets.push({ start: slot.start, end: slot.end, value: `${slot.quote}${options.targetLang}${slot.quote}` });
  }
  const inList = (list: string[]) => list.some((t) => t.toLowerCase() === name);
  const block = inList(options.splittingTags) || (!inList(options.nonSplittingTags) && BLOCK.has(name));
  return { type: 'element', name, open: html.slice(startTag.startOffset, startTag.endOffset), close: '', children: [], block, attrSlots, attrSets };
}

/** HTML text escaping for translated text: only what must be escaped, plus characters the source wrote as entities. */
export const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\u00a0': '&nbsp;' };
