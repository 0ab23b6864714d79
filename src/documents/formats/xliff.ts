// XLIFF 1.2 and 2.0/2.1: fills each translatable unit's <target> in place (saxes offsets), so notes, comments,
// namespaces, whitespace and unknown elements come back byte for byte; inline codes travel through the markup layer.
import { translateTagged, type TaggedText } from '../../markup/index.js';
import { translateIcuTagged } from '../../markup/icu-message.js';
import { countCodePoints, decodeText, DocumentFormatError, type DocumentFormat, type ExtractedDocument, type ExtractOptions } from './format.js';
import { attr, childElements, namespaceDeclarations, parseLocatedXml, setAttribute, type LocatedDocument, type LocatedElement } from './located-xml.js';
import { codedUnit, dialect12, dialect2, renderCoded, XLIFF12_NS, XLIFF2_NS, type CodedUnit, type InlineDialect } from './xliff-inline.js';

/** A piece of a replacement: verbatim markup, or the translation of coded unit n. */
type Piece = string | number;

/** One change to the source text: [start, end) is replaced by the pieces (start = end inserts). */
interface Edit {
  start: number;
  end: number;
  pieces: Piece[];
}

export interface XliffPlan {
  version: '1.2' | '2.x';
  /** Units to translate (sources with words); Piece numbers index this list. */
  units: CodedUnit[];
  /** Code points of the translated source text. */
  characters: number;
  /** The file with every target written, from one translated tagged unit per unit. */
  render(outputs: TaggedText[]): string;
}

function detectVersion(root: LocatedElement): '1.2' | '2.x' {
  if (root.local !== 'xliff') throw new DocumentFormatError(`The XLIFF file's root element is <${root.name}>, not <xliff>.`);
  const version = attr(root, 'version');
  const supported = 'XLIFF 1.2, 2.0 and 2.1 are supported';
  if (root.uri === XLIFF2_NS) {
    if (version === '2.0' || version === '2.1') return '2.x';
    throw new DocumentFormatError(`XLIFF version ${version ?? '(missing)'} is not supported; ${supported}.`);
  }
  if (root.uri === XLIFF12_NS || (root.uri === '' && version === '1.2')) {
    if (version === undefined || version === '1.2') return '1.2';
    throw new DocumentFormatError(`XLIFF version ${version} does not match the XLIFF 1.2 namespace; ${supported}.`);
  }
  throw new DocumentFormatError(
    `XLIFF version ${version ?? '(missing)'}${root.uri ? ` (namespace ${root.uri})` : ''} is not supported; ${supported}.`,
  );
}

/** Whitespace before an element among its siblings, to indent an inserted sibling the same way. */
function indentBefore(parent: LocatedElement, el: LocatedElement, text: string): string {
  const i = parent.children.indexOf(el);
  const prev = parent.children[i - 1];
  if (!prev || prev.type !== 'text') return '';
  const ws = text.slice(prev.start, prev.end);
  if (!/^\s*$/u.test(ws)) return '';
  const nl = ws.lastIndexOf('\n');
  return nl >= 0 ? ws.slice(nl - (ws[nl - 1] === '\r' ? 1 : 0)) : ws;
}

function prefixOf(el: LocatedElement): string {
  const colon = el.name.indexOf(':');
  return colon >= 0 ? el.name.slice(0, colon + 1) : '';
}

export function planXliff(doc: LocatedDocument, targetLang: string): XliffPlan {
  const { text, root } = doc;
  const version = detectVersion(root);
  const d: InlineDialect = version === '1.2' ? dialect12(root.uri) : dialect2(root.uri);
  const ns = root.uri;
  const units: CodedUnit[] = [];
  const edits: Edit[] = [];
  let characters = 0;
  const raw = (start: number, end: number) => text.slice(start, end);
  const setOpen = (el: LocatedElement, attrs: [string, string][]) => {
    let tag = raw(el.start, el.openEnd);
    for (const [name, value] of attrs) tag = setAttribute(tag, name, value);
    edits.push({ start: el.start, end: el.openEnd, pieces: [tag] });
  };
  const elements = (el: LocatedElement, local: string) => childElements(el, local, ns);

  /** The translation of a container's content, or its content verbatim when it has no words. */
  const contentPiece = (container: LocatedElement): Piece => {
    const coded = codedUnit(text, container, d);
    if (!/\p{L}/u.test(coded.unit.text)) return raw(container.openEnd, container.closeStart);
    units.push(coded);
    characters += countCodePoints(coded.unit.text);
    return units.length - 1;
  };

  /** Writes the target: content replaced in an existing one, else a new <target> right after `anchor`. */
  const writeTarget = (
    parent: LocatedElement,
    source: LocatedElement,
    anchor: LocatedElement,
    target: LocatedElement | undefined,
    content: Piece[],
    attrs: [string, string][],
    nsFrom: LocatedElement[],
  ) => {
    if (target) {
      const setAttrs = attrs.filter(([name]) => name !== 'xml:lang' || attr(target, 'xml:lang') !== undefined);
      let tag = raw(target.start, target.openEnd);
      for (const [name, value] of setAttrs) tag = setAttribute(tag, name, value);
      if (target.selfClosing) {
        edits.push({ start: target.start, end: target.end, pieces: [tag.replace(/\s*\/>$/u, '>'), ...content, `</${target.name}>`] });
      } else {
        edits.push({ start: target.start, end: target.openEnd, pieces: [tag] });
        edits.push({ start: target.openEnd, end: target.closeStart, pieces: content });
      }
      return;
    }
    const name = `${prefixOf(source)}target`;
    // Codes copied from the source may use prefixes declared on <source> itself.
    const decls = [...new Set(nsFrom.flatMap((el) => namespaceDeclarations(raw(el.start, el.openEnd))))];
    let tag = `<${name}${decls.map((x) => ` ${x}`).join('')}>`;
    // xml:space is inherited from ancestors, not from the sibling source: a preserved source gets a preserved target.
    const space = attr(source, 'xml:space');
    if (space !== undefined) tag = setAttribute(tag, 'xml:space', space);
    // 2.x needs no xml:lang on a new target (trgLang says it); 1.2 tools expect one.
    for (const [n, value] of attrs) if (version === '1.2' || n !== 'xml:lang') tag = setAttribute(tag, n, value);
    edits.push({ start: anchor.end, end: anchor.end, pieces: [indentBefore(parent, source, text), tag, ...content, `</${name}>`] });
  };

  const transUnit12 = (tu: LocatedElement) => {
    const source = elements(tu, 'source')[0];
    if (!source) return;
    const segSource = elements(tu, 'seg-source')[0];
    const target = elements(tu, 'target')[0];
    const segs: LocatedElement[] = [];
    const findSegs = (el: LocatedElement) => {
      for (const c of childElements(el)) {
        if (c.uri === ns && c.local === 'mrk' && attr(c, 'mtype') === 'seg') {
          if (!c.selfClosing) segs.push(c);
        } else findSegs(c);
      }
    };
    if (segSource) findSegs(segSource);
    let content: Piece[];
    if (segSource && segs.length > 0) {
      // The target repeats the segmented source: each <mrk mtype="seg"> holds its segment's translation.
      content = [];
      let at = segSource.openEnd;
      for (const seg of segs) {
        content.push(raw(at, seg.openEnd), contentPiece(seg));
        at = seg.closeStart;
      }
      content.push(raw(at, segSource.closeStart));
    } else content = [contentPiece(source)];
    const anchor = segSource && segSource.start > source.start ? segSource : source;
    const nsFrom = segSource && segs.length > 0 ? [source, segSource] : [source];
    writeTarget(tu, source, anchor, target, content, [['xml:lang', targetLang], ['state', 'translated']], nsFrom);
  };

  const segment2 = (segment: LocatedElement) => {
    const source = elements(segment, 'source')[0];
    if (!source) return;
    setOpen(segment, [['state', 'translated']]);
    writeTarget(segment, source, source, elements(segment, 'target')[0], [contentPiece(source)], [['xml:lang', targetLang]], [source]);
  };

  // Containers pass `translate` down (1.2: group; 2.x: file, group, unit); translate="no" units are left untouched.
  const visit = (el: LocatedElement, translatable: boolean) => {
    const own = attr(el, 'translate');
    const here = own === 'no' ? false : own === 'yes' ? true : translatable;
    if (version === '1.2') {
      if (el.local === 'trans-unit') {
        if (here) transUnit12(el);
        return;
      }
      if (el.local === 'file') setOpen(el, [['target-language', targetLang]]);
      if (el.local !== 'file' && el.local !== 'body' && el.local !== 'group') return;
    } else {
      if (el.local === 'unit') {
        if (here) for (const s of elements(el, 'segment')) segment2(s);
        return;
      }
      if (el.local !== 'file' && el.local !== 'group') return;
    }
    for (const c of childElements(el, undefined, ns)) visit(c, here);
  };
  if (version === '2.x') setOpen(root, [['trgLang', targetLang]]);
  for (const file of elements(root, 'file')) visit(file, true);

  edits.sort((a, b) => a.start - b.start);
  return {
    version,
    units,
    characters,
    render(outputs) {
      let out = '';
      let at = 0;
      for (const e of edits) {
        out += text.slice(at, e.start);
        for (const p of e.pieces) out += typeof p === 'string' ? p : renderCoded(units[p]!, outputs[p] ?? units[p]!.unit);
        at = Math.max(at, e.end);
      }
      return out + text.slice(at);
    },
  };
}

export const xliffFormat: DocumentFormat = {
  id: 'xliff',
  extensions: ['xlf', 'xliff'],
  contentType: 'application/xliff+xml; charset=utf-8',
  maxBytes: 10 * 1024 * 1024,
  minimumBilledCharacters: 0,
  extract(input: Buffer, options: ExtractOptions): ExtractedDocument {
    const { text, encode } = decodeText(input, 'XLIFF');
    const plan = planXliff(parseLocatedXml(text, 'XLIFF'), options.targetLang);
    const tagged = plan.units.map((u) => u.unit);
    // The rebuilt file is parsed again: a target that broke the XML would be a bug, never a download.
    const finish = (outputs: TaggedText[]) => {
      const out = plan.render(outputs);
      parseLocatedXml(out, 'translated XLIFF');
      return encode(out);
    };
    return {
      segments: tagged.map((u) => ({ text: u.text, kind: 'text' as const })),
      characters: plan.characters,
      async rebuild(translations) {
        // Plain translations without tag positions: the codes are placed proportionally, none is lost.
        return finish(await translateTagged(tagged, async (texts) => texts.map((_, i) => translations[i] ?? tagged[i]!.text), 'placeholders'));
      },
      async translateWith(translate) {
        // Angular's ICU messages ({VAR_PLURAL, plural, …}): only their branch texts reach the engine.
        return finish(await translateIcuTagged(tagged, (units) => translateTagged(units, translate, 'realign')));
      },
    };
  },
};
