// XML front end: strict well-formedness check with saxes (namespaces checked by XmlScope, linear in nesting depth),
// then a verbatim tokenizer that keeps every tag, comment, CDATA section and processing instruction byte-for-byte;
// outline detection decides what splits.
import { SaxesParser } from 'saxes';
import { ServiceError } from '../lib/errors.js';
import { XmlScope } from '../lib/xml-scope.js';
import type { MElement, MNode } from './markup-tree.js';

export const TAG_PARSE_FAILED = 'Tag handling parsing failed, please check input.';

/**
 * Deepest element nesting the markup layer accepts (tag_handling, HTML/XML/DITA documents): libxml2 refuses more than
 * 256 levels by default and browsers build at most 512, so real documents stay far below. It is checked while
 * parsing, so a deeper text is refused after reading at most this many tags, and it bounds every walk of the tree.
 */
export const MAX_MARKUP_DEPTH = 512;

export interface XmlOptions {
  outlineDetection: boolean;
  splittingTags: string[];
  nonSplittingTags: string[];
  ignoreTags: string[];
  /** Elements with translate="no" (ITS, DITA) are copied verbatim like ignored tags. */
  honourTranslateNo?: boolean;
  /** Sets (or adds) xml:lang on the document element to this language. */
  rootLang?: string;
}

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function decodeXmlEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z_][\w.-]*);/gu, (all, ref: string) => {
    if (ref[0] === '#') {
      const cp = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return cp <= 0x10ffff ? String.fromCodePoint(cp) : all;
    }
    return PREDEFINED[ref] ?? all;
  });
}

/** Throws the reference service's 400 when the text is not well-formed XML (a fragment with several roots is fine). */
export function checkWellFormed(text: string): void {
  const isDocument = /^\s*<\?xml[\s?]|<!DOCTYPE/u.test(text);
  const parser = new SaxesParser({ xmlns: false, position: true });
  const scope = new XmlScope(MAX_MARKUP_DEPTH);
  let wrapper = !isDocument; // the fragment wrapper is no level of the text's own
  // The first error ends the parse (thrown out of write), so a hostile text costs no more than its bad prefix.
  parser.on('error', (err) => {
    throw err;
  });
  parser.on('opentag', (tag) => {
    if (wrapper) wrapper = false;
    else scope.open(tag.name, tag.attributes);
  });
  parser.on('closetag', () => {
    if (scope.depth > 0) scope.close(); // else the wrapper's end tag
  });
  parser.on('processinginstruction', (pi) => {
    if (pi.target.includes(':')) throw new Error(`colons are forbidden in processing instruction targets: ${pi.target}.`);
  });
  try {
    parser.write(isDocument ? text : `<tolk-fragment>${text}</tolk-fragment>`).close();
  } catch (err) {
    throw new ServiceError('invalid_request', TAG_PARSE_FAILED, { detail: (err as Error).message });
  }
}

const ATTRIBUTE = /\s+([^\s=/>]+)\s*=\s*("[^"]*"|'[^']*')/uy;

/** Attributes of a start tag in order, with the offsets of each value (quotes included). */
function startTagAttributes(tag: string): { name: string; value: string; start: number; end: number }[] {
  const out: { name: string; value: string; start: number; end: number }[] = [];
  ATTRIBUTE.lastIndex = /^<[^\s/>]+/u.exec(tag)![0].length;
  for (let m = ATTRIBUTE.exec(tag); m; m = ATTRIBUTE.exec(tag)) {
    const end = m.index + m[0].length;
    out.push({ name: m[1]!, value: decodeXmlEntities(m[2]!.slice(1, -1)), start: end - m[2]!.length, end });
  }
  return out;
}

/** The edit that gives a start tag xml:lang="lang": the value replaced, or the attribute added after the last one. */
function langEdit(tag: string, lang: string): { start: number; end: number; value: string } {
  const attrs = startTagAttributes(tag);
  const found = attrs.find((a) => a.name === 'xml:lang');
  if (found) {
    const quote = tag[found.start]!;
    return { start: found.start, end: found.end, value: `${quote}${lang}${quote}` };
  }
  const at = attrs.length > 0 ? attrs[attrs.length - 1]!.end : /^<[^\s/>]+/u.exec(tag)![0].length;
  return { start: at, end: at, value: ` xml:lang="${lang}"` };
}

const TOKEN =
  /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>|<!DOCTYPE(?:[^[>]|\[[\s\S]*?\])*>|<\/[^>]*>|<(?:[^>"']|"[^"]*"|'[^']*')*>|[^<]+/gyu;

/** Parses well-formed XML (checked first) into the shared markup tree. */
export function parseXml(text: string, options: XmlOptions): MNode[] {
  checkWellFormed(text);
  const split = new Set(options.splittingTags);
  const nonSplit = new Set(options.nonSplittingTags);
  const ignore = new Set(options.ignoreTags);
  const root: MElement = { type: 'element', name: '', open: '', close: '', children: [], block: true, attrSlots: [], attrSets: [] };
  const stack: MElement[] = [root];
  // Inside an ignored element everything is copied verbatim until its end tag.
  let ignoredDepth = 0;
  let ignoredRaw = '';
  let seenRoot = false;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    const tok = m[0];
    const top = stack[stack.length - 1]!;
    const isStart = tok.startsWith('<') && /^<[^!?/]/u.test(tok);
    const isEnd = tok.startsWith('</');
    const selfClosing = isStart && tok.endsWith('/>');
    if (ignoredDepth > 0) {
      ignoredRaw += tok;
      if (isStart && !selfClosing) ignoredDepth++;
      else if (isEnd) ignoredDepth--;
      if (ignoredDepth === 0) top.children.push({ type: 'raw', raw: ignoredRaw });
      continue;
    }
    if (!tok.startsWith('<')) top.children.push({ type: 'text', raw: tok, text: decodeXmlEntities(tok) });
    else if (isEnd) {
      // saxes accepted the text, so this only trips on input that closes the fragment wrapper itself.
      if (stack.length === 1) throw new ServiceError('invalid_request', TAG_PARSE_FAILED);
      top.close = tok;
      stack.pop();
    } else if (isStart) {
      const name = /^<([^\s/>]+)/u.exec(tok)![1]!;
      const isRoot = !seenRoot && stack.length === 1;
      seenRoot = true;
      const untranslated = options.honourTranslateNo === true && startTagAttributes(tok).some((a) => a.name === 'translate' && a.value.trim() === 'no');
      if (ignore.has(name) || untranslated) {
        if (selfClosing) top.children.push({ type: 'raw', raw: tok });
        else {
          ignoredDepth = 1;
          ignoredRaw = tok;
        }
        continue;
      }
      const el: MElement = { type: 'element', name, open: tok, close: '', children: [], block: false, attrSlots: [], attrSets: [] };
      if (isRoot && options.rootLang) el.attrSets.push(langEdit(tok, options.rootLang));
      top.children.push(el);
      if (!selfClosing) stack.push(el);
    } else top.children.push({ type: 'raw', raw: tok }); // comment, CDATA, PI, doctype
  }
  if (stack.length > 1 || ignoredDepth > 0) throw new ServiceError('invalid_request', TAG_PARSE_FAILED);
  classify(root, options, split, nonSplit);
  return root.children;
}

/**
 * Outline detection: an element whose parent has text of its own sits inside a sentence (inline); elsewhere it is
 * structure (splitting). Without outline detection only splitting_tags split. Explicit tag lists always win.
 */
function classify(parent: MElement, options: XmlOptions, split: Set<string>, nonSplit: Set<string>): void {
  // Text of its own, or being inline itself, makes a parent's child elements inline (nested inline tags).
  const mixed = (parent.name !== '' && !parent.block) || parent.children.some((c) => c.type === 'text' && /\S/u.test(c.text));
  for (const c of parent.children) {
    if (c.type !== 'element') continue;
    if (split.has(c.name)) c.block = true;
    else if (nonSplit.has(c.name)) c.block = false;
    else c.block = options.outlineDetection ? !mixed : false;
    classify(c, options, split, nonSplit);
  }
}
