// Markup-aware translation entry point: parse XML/HTML into tagged units, translate them, rebuild the document.
// Document formats reuse translateTagged (tagged units → translated tagged units) with their own parsers.
import { parseHtml } from './html-markup.js';
import { planMarkup, type MarkupPlan } from './markup-tree.js';
import { ServiceError } from '../lib/errors.js';
import { decodeXmlEntities, parseXml, TAG_PARSE_FAILED } from './xml-markup.js';
import { parseFragment, type DefaultTreeAdapterTypes as T } from 'parse5';
import type { MNode } from './markup-tree.js';

export { translateKeepingIdentifiers, identifierSpans } from './identifiers.js';
export { placeholderSpans, type PlaceholderSpan } from './placeholders.js';
export { translateTagged, locator, type InlineStrategy, type SegmentTranslator } from './inline-translate.js';
export { markTree, renderTagged, type TagMark, type TaggedText } from './tagged-text.js';
export { TAG_PARSE_FAILED, MAX_MARKUP_DEPTH, checkWellFormed } from './xml-markup.js';
export type { MarkupPlan } from './markup-tree.js';

export interface MarkupOptions {
  format: 'xml' | 'html';
  outlineDetection: boolean;
  splittingTags: string[];
  nonSplittingTags: string[];
  ignoreTags: string[];
  /** Target language as written in lang attributes (e.g. "es", "pt-BR"). */
  targetLang: string;
  /** XML: elements with translate="no" are copied verbatim. */
  honourTranslateNo?: boolean;
  /** XML: xml:lang of the document element is set to this language. */
  rootLang?: string;
}

const ENTITY = /&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/gu;

function decodeHtmlEntity(ref: string): string {
  const node = parseFragment(ref).childNodes[0] as T.TextNode | undefined;
  return node?.value ?? ref;
}

/** Characters the source wrote as entities in its text, so that translated text writes them the same way. */
function entityMap(nodes: MNode[], decode: (ref: string) => string): Map<string, string> {
  const map = new Map<string, string>();
  const walk = (list: MNode[]) => {
    for (const n of list) {
      if (n.type === 'element') walk(n.children);
      else if (n.type === 'text' && n.raw.includes('&')) {
        for (const m of n.raw.matchAll(ENTITY)) {
          const ch = decode(m[0]);
          const keep = ch !== m[0] && [...ch].length === 1 && (ch === '\u00a0' || !/[\p{L}\p{N}\s]/u.test(ch));
          if (keep && !map.has(ch)) map.set(ch, m[0]);
        }
      }
    }
  };
  walk(nodes);
  return map;
}

function escaper(base: Record<string, string>, extra: Map<string, string>): (s: string) => string {
  const table = new Map(Object.entries(base));
  for (const [ch, ent] of extra) table.set(ch, ent);
  const re = new RegExp(`[${[...table.keys()].map((c) => `\\u{${c.codePointAt(0)!.toString(16)}}`).join('')}]`, 'gu');
  return (s) => s.replace(re, (c) => table.get(c) ?? c);
}

/** Parses a text with markup; throws the 400 for malformed XML and for nesting beyond MAX_MARKUP_DEPTH. */
export function parseMarkup(text: string, options: MarkupOptions): MarkupPlan {
  try {
    return parseChecked(text, options);
  } catch (err) {
    // The parsers refuse deep nesting; should a tree still exhaust the stack, that is the same 400, never a 500.
    if (err instanceof RangeError) throw new ServiceError('invalid_request', TAG_PARSE_FAILED, { detail: 'the markup is nested too deeply.' });
    throw err;
  }
}

function parseChecked(text: string, options: MarkupOptions): MarkupPlan {
  if (options.format === 'xml') {
    const nodes = parseXml(text, options);
    const text_ = escaper({ '&': '&amp;', '<': '&lt;', '>': '&gt;' }, entityMap(nodes, decodeXmlEntities));
    const attr = escaper({ '&': '&amp;', '<': '&lt;', '"': '&quot;', "'": '&apos;' }, new Map());
    return planMarkup(nodes, text_, attr);
  }
  const nodes = parseHtml(text, options);
  const text_ = escaper({ '&': '&amp;', '<': '&lt;', '>': '&gt;' }, entityMap(nodes, decodeHtmlEntity));
  const attr = escaper({ '&': '&amp;', '"': '&quot;', "'": '&#39;' }, new Map());
  return planMarkup(nodes, text_, attr);
}
