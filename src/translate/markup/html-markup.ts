// HTML front end: parse5 (lenient, never rejects) with source locations, so tags, entities and untouched content
// come back as written; script/style/code/translate="no"/notranslate content is copied verbatim, title/alt/
// placeholder attributes are translated and lang attributes set to the target language.
import { defaultTreeAdapter, parse, parseFragment, serialize, type DefaultTreeAdapterMap, type DefaultTreeAdapterTypes as T, type TreeAdapter } from 'parse5';
import { ServiceError } from '../../lib/errors.js';
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

type Node = T.ChildNode | T.Document | T.DocumentFragment;

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
  // Misnested markup that parse5 repaired (adoption agency, foster parenting): work on its valid serialisation.
  const isDocument = /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype|html[\s>])/iu.test(html);
  const limited = { treeAdapter: depthLimitedTree };
  const repaired = serialize(isDocument ? parse(html, limited) : parseFragment(html, limited));
  return build(repaired, options);
}

function build(html: string, options: HtmlOptions): MNode[] {
  const split = new Set(options.splittingTags.map((t) => t.toLowerCase()));
  const nonSplit = new Set(options.nonSplittingTags.map((t) => t.toLowerCase()));
  const ignore = new Set(options.ignoreTags.map((t) => t.toLowerCase()));
  const isDocument = /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype|html[\s>])/iu.test(html);
  const tree: Node = isDocument
    ? parse(html, { sourceCodeLocationInfo: true, treeAdapter: depthLimitedTree })
    : parseFragment(html, { sourceCodeLocationInfo: true, treeAdapter: depthLimitedTree });
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
    const name = el.tagName.toLowerCase();
    const attr = (n: string) => el.attrs.find((a) => a.name === n)?.value;
    const untouched =
      UNTOUCHED.has(name) ||
      ignore.has(name) ||
      attr('translate')?.toLowerCase() === 'no' ||
      (attr('class') ?? '').split(/\s+/u).includes('notranslate');
    if (untouched) {
      cursor = Math.max(cursor, eloc.endOffset);
      return [...before, { type: 'raw', raw: html.slice(eloc.startOffset, eloc.endOffset) }];
    }
    const open = slice(eloc.startTag);
    cursor = Math.max(cursor, eloc.startTag.endOffset);
    const base = eloc.startTag.startOffset;
    const attrSlots: AttrSlot[] = [];
    const attrSets: MElement['attrSets'] = [];
    for (const a of el.attrs) {
      const aloc = eloc.attrs?.[a.name];
      if (!aloc) continue;
      const slot = valueSlot(slice(aloc), aloc.startOffset - base, a.value);
      if (!slot) continue;
      if (TRANSLATED_ATTRS.has(a.name) && /[\p{L}\p{N}]/u.test(a.value)) attrSlots.push(slot);
      else if (a.name === 'lang') attrSets.push({ start: slot.start, end: slot.end, value: `${slot.quote}${options.targetLang}${slot.quote}` });
    }
    const children = el.childNodes.flatMap(convert);
    let close = '';
    if (eloc.endTag) {
      children.push(...gap(eloc.endTag.startOffset));
      close = slice(eloc.endTag);
      cursor = Math.max(cursor, eloc.endTag.endOffset);
    }
    const block = split.has(name) || (!nonSplit.has(name) && BLOCK.has(name));
    return [...before, { type: 'element', name, open, close, children, block, attrSlots, attrSets }];
  };
  const nodes = (tree.childNodes as T.ChildNode[]).flatMap(convert);
  nodes.push(...gap(html.length));
  return nodes;
}

/** HTML text escaping for translated text: only what must be escaped, plus characters the source wrote as entities. */
export const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\u00a0': '&nbsp;' };
