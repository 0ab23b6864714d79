// Paragraphs of OOXML parts as tagged units: a paragraph (w:p, a:p, or a spreadsheet string si/is/text) is one
// sentence-level unit whose runs' text is joined; runs formatted unlike the paragraph's main formatting become paired
// tags, hyperlinks and other run containers wrap their runs, and tabs, breaks, fields and drawings are empty tags.
// Rendering writes new runs with each span's own run properties; everything outside paragraphs stays byte-identical.
import type { TagMark, TaggedText } from '../../markup/index.js';
import { groupFields, type FieldEvent, type Item as FieldItem } from './ooxml-fields.js';
import { NS, type XElement } from './ooxml-xml.js';

type Dialect = 'w' | 'a' | 'x' | 'c';

/** How a piece of text is written: the run around it (with its properties) and the text element's name. */
interface RunStyle {
  key: string;
  open: string;
  rPr: string;
  close: string;
  tName: string;
  dialect: Dialect;
}

type Item = FieldItem<RunStyle>;

type MarkInfo =
  | { type: 'style'; style: RunStyle }
  | { type: 'empty'; render: () => string }
  | { type: 'wrapper'; open: () => string; close: () => string };

interface Paragraph {
  el: XElement;
  prefix: () => string;
  suffix: () => string;
  base: RunStyle;
  unit: TaggedText;
  info: MarkInfo[];
  /** Positions of the line breaks in the unit's text. */
  lineBreaks: number[];
}

function dialectOf(uri: string): Dialect | undefined {
  if (NS.w.has(uri)) return 'w';
  if (NS.a.has(uri)) return 'a';
  if (NS.x.has(uri)) return 'x';
  if (NS.c.has(uri)) return 'c';
  return undefined;
}

/**
 * Paragraph-like containers: a Word or DrawingML paragraph, a shared string, an inline string, a comment's text, a
 * chart's cached string point (series name, category label; numbers are in numCache and never kept).
 */
function isContainer(uri: string, local: string): boolean {
  const d = dialectOf(uri);
  if (d === 'w' || d === 'a') return local === 'p';
  if (d === 'c') return local === 'pt';
  return d === 'x' && (local === 'si' || local === 'is' || local === 'text');
}

/** The elements planPart builds: containers, a chart's points only in string caches. */
export function isKept(uri: string, local: string, parentLocal: string | undefined): boolean {
  return isContainer(uri, local) && (dialectOf(uri) !== 'c' || parentLocal === 'strCache' || parentLocal === 'strLit');
}

/**
 * Content kept as one verbatim tag even when it holds runs: moved-away text (like deleted text), alternative
 * renderings of the same content (whose runs would otherwise be read twice into one sentence), and DrawingML
 * fields (slide numbers, dates), whose text the application writes.
 */
function isOpaque(el: XElement): boolean {
  if (el.local === 'AlternateContent') return true;
  const d = dialectOf(el.uri);
  return (el.local === 'moveFrom' && d === 'w') || (el.local === 'fld' && d === 'a');
}

/** Markers without meaning once the text changes (spell-check state, layout caches, phonetic guides). */
function isDropped(el: XElement): boolean {
  const d = dialectOf(el.uri);
  if (d === 'w') return el.local === 'proofErr' || el.local === 'lastRenderedPageBreak';
  return d === 'x' && el.local === 'rPh';
}

/** Zero-width markers Word inserts anywhere, even inside a word. */
const MARKERS = new Set(['bookmarkStart', 'bookmarkEnd', 'commentRangeStart', 'commentRangeEnd', 'permStart', 'permEnd']);

/** A line break (w:br, w:cr, a:br) or a zero-width marker (bookmark, comment range) among a paragraph's items. */
function roleOf(el: XElement, d: Dialect): 'break' | 'marker' | undefined {
  if (dialectOf(el.uri) !== d) return undefined;
  if ((d === 'w' && (el.local === 'br' || el.local === 'cr')) || (d === 'a' && el.local === 'br')) return 'break';
  return d === 'w' && MARKERS.has(el.local) ? 'marker' : undefined;
}

/** Run properties with their language set to the target (spell checking and fonts then follow the translation). */
function withLanguage(rPr: string, d: Dialect, targetLang: string | undefined): string {
  if (!targetLang) return rPr;
  if (d === 'a') return rPr.replace(/^(<[^>]*?\slang=")[^"]*(")/u, `$1${targetLang}$2`);
  if (d === 'w') return rPr.replace(/(<(?:[\w.-]+:)?lang\b[^>]*?\s(?:[\w.-]+:)?val=")[^"]*(")/u, `$1${targetLang}$2`);
  return rPr;
}

const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/gu;

export function escapeXmlText(s: string): string {
  return s.replace(INVALID_XML_CHARS, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The units of a run of roots (complete kept elements, in order) and their rendering from `from` to the last's end. */
export function planRoots(source: string, roots: XElement[], targetLang: string | undefined): { units: TaggedText[]; lineBreaks: number[][]; render(outs: TaggedText[], from: number): string } {
  const paragraphs = new Map<XElement, Paragraph>();
  const edited = new Map<XElement, boolean>();
  const textMemo = new Map<XElement, boolean>();

  const isRun = (el: XElement, d: Dialect) => el.local === 'r' && dialectOf(el.uri) === d;
  const isText = (el: XElement, d: Dialect) => (el.local === 't' || (d === 'c' && el.local === 'v')) && dialectOf(el.uri) === d;
  const hasText = (el: XElement, d: Dialect): boolean => {
    const known = textMemo.get(el);
    if (known !== undefined) return known;
    let v: boolean;
    if (isText(el, d)) v = true;
    else if (isRun(el, d)) v = el.children.some((c) => isText(c, d));
    else if (isContainer(el.uri, el.local) || isOpaque(el)) v = false;
    else v = el.children.some((c) => hasText(c, d));
    textMemo.set(el, v);
    return v;
  };

  const renderRange = (from: number, to: number, kids: XElement[]): string => {
    let out = '';
    let at = from;
    for (const k of kids) {
      out += source.slice(at, k.start) + renderNode(k);
      at = k.end;
    }
    return out + source.slice(at, to);
  };
  let outputs: TaggedText[] = [];
  const renderNode = (el: XElement): string => {
    const p = paragraphs.get(el);
    if (p) return renderParagraph(p, outputs[unitIndex.get(p)!] ?? p.unit);
    if (!edited.get(el)) return source.slice(el.start, el.end);
    return renderRange(el.start, el.end, el.children);
  };

  /** Flattens a container's children between its first and last text-bearing child; returns its open and close markup. */
  const flatten = (el: XElement, d: Dialect, items: Item[]): { open: () => string; close: () => string } => {
    const kids = el.children;
    const first = kids.findIndex((k) => hasText(k, d));
    let last = kids.length - 1;
    while (last > first && !hasText(kids[last]!, d)) last--;
    const head = kids.slice(0, first);
    const tail = kids.slice(last + 1);
    const open = () => renderRange(el.start, kids[first]!.start, head);
    const close = () => renderRange(kids[last]!.end, el.end, tail);
    for (const k of kids.slice(first, last + 1)) {
      if (isDropped(k)) continue;
      if (isText(k, d)) {
        items.push({ kind: 'text', text: k.text, style: { key: '', open: '', rPr: '', close: '', tName: k.name, dialect: d } });
      } else if (isRun(k, d) && hasText(k, d)) {
        const rPrEl = k.children.find((c) => c.local === 'rPr' && dialectOf(c.uri) === d);
        const rPr = rPrEl ? withLanguage(source.slice(rPrEl.start, rPrEl.end), d, targetLang) : '';
        const runOpen = `<${k.name}>`;
        const runClose = `</${k.name}>`;
        for (const c of k.children) {
          if (c === rPrEl || isDropped(c)) continue;
          if (isText(c, d)) items.push({ kind: 'text', text: c.text, style: { key: rPr, open: runOpen, rPr, close: runClose, tName: c.name, dialect: d } });
          else items.push({ kind: 'empty', render: () => runOpen + rPr + renderNode(c) + runClose, fields: fieldEvents([c], d), role: roleOf(c, d) });
        }
      } else if (!isRun(k, d) && hasText(k, d)) {
        // A hyperlink, inserted-text, content-control or field wrapper: a pair around its own runs.
        const at = items.length;
        items.push({ kind: 'open', render: () => '' });
        const inner = flatten(k, d, items);
        items[at] = { kind: 'open', render: inner.open };
        items.push({ kind: 'close', render: inner.close });
      } else items.push({ kind: 'empty', render: () => renderNode(k), fields: isRun(k, d) ? fieldEvents(k.children, d) : undefined, role: roleOf(k, d) });
    }
    return { open, close };
  };

  /** Complex-field characters among a run's children (Word only). */
  const fieldEvents = (els: XElement[], d: Dialect): FieldEvent[] | undefined => {
    if (d !== 'w') return undefined;
    const out: FieldEvent[] = [];
    for (const el of els) {
      if (el.local !== 'fldChar' || dialectOf(el.uri) !== 'w') continue;
      const type = /fldCharType\s*=\s*["'](begin|separate|end)["']/u.exec(source.slice(el.start, el.openEnd))?.[1];
      if (type) out.push(type as FieldEvent);
    }
    return out.length > 0 ? out : undefined;
  };

  const units: TaggedText[] = [];
  const lineBreaks: number[][] = [];
  const unitIndex = new Map<Paragraph, number>();
  const visit = (el: XElement): boolean => {
    let changed = false;
    const d = isContainer(el.uri, el.local) ? dialectOf(el.uri) : undefined;
    if (d && el.children.some((k) => hasText(k, d))) {
      const items: Item[] = [];
      const { open, close } = flatten(el, d, items);
      const p = toUnit(el, items, open, close);
      if (p && /[\p{L}\p{N}]/u.test(p.unit.text)) {
        paragraphs.set(el, p);
        unitIndex.set(p, units.length);
        units.push(p.unit);
        lineBreaks.push(p.lineBreaks);
        changed = true;
      }
    }
    // Nested paragraphs (text boxes inside a run's drawing) are units of their own.
    for (const c of el.children) if (visit(c)) changed = true;
    edited.set(el, changed);
    return changed;
  };
  for (const r of roots) visit(r);

  return {
    units,
    lineBreaks,
    render(outs, from) {
      outputs = outs;
      return renderRange(from, roots[roots.length - 1]!.end, roots);
    },
  };
}

/** Joins a paragraph's items into one tagged unit: the most used run properties are the base, other runs are pairs. */
function toUnit(el: XElement, flat: Item[], prefix: () => string, suffix: () => string): Paragraph | undefined {
  const items = groupFields(flat);
  const weight = new Map<string, number>();
  let base: RunStyle | undefined;
  for (const it of items) if (it.kind === 'text') weight.set(it.style.key, (weight.get(it.style.key) ?? 0) + it.text.length + 1);
  for (const it of items) if (it.kind === 'text' && (!base || weight.get(it.style.key)! > weight.get(base.key)!)) base = it.style;
  if (!base) return undefined;
  const marks: TagMark[] = [];
  const info: MarkInfo[] = [];
  let text = '';
  let openStyle: { id: number; key: string } | undefined;
  const wrappers: number[] = [];
  const lineBreaks: number[] = [];
  const markers = new Set<number>();
  const closeStyle = () => {
    if (openStyle) marks.push({ id: openStyle.id, kind: 'close', pos: text.length });
    openStyle = undefined;
  };
  // For each item, the next one that is not an empty tag (a style pair stays open across empties before its text).
  const nextNonEmpty: (Item | undefined)[] = new Array(items.length);
  for (let i = items.length - 1, next: Item | undefined; i >= 0; i--) {
    nextNonEmpty[i] = next;
    if (items[i]!.kind !== 'empty') next = items[i];
  }
  items.forEach((it, i) => {
    if (it.kind === 'text') {
      if (openStyle?.key !== it.style.key) {
        closeStyle();
        if (it.style.key !== base!.key) {
          openStyle = { id: info.length, key: it.style.key };
          info.push({ type: 'style', style: it.style });
          marks.push({ id: openStyle.id, kind: 'open', pos: text.length });
        }
      }
      text += it.text;
      return;
    }
    if (it.kind === 'empty') {
      // A break inside a formatted span stays inside it when the span goes on after it.
      const next = nextNonEmpty[i];
      if (!(openStyle && next?.kind === 'text' && next.style.key === openStyle.key)) closeStyle();
      info.push({ type: 'empty', render: it.render });
      marks.push({ id: info.length - 1, kind: 'empty', pos: text.length });
      if (it.role === 'break') lineBreaks.push(text.length);
      if (it.role === 'marker') markers.add(info.length - 1);
      return;
    }
    closeStyle();
    if (it.kind === 'open') {
      info.push({ type: 'wrapper', open: it.render, close: () => '' });
      wrappers.push(info.length - 1);
      marks.push({ id: info.length - 1, kind: 'open', pos: text.length });
      return;
    }
    const id = wrappers.pop()!;
    (info[id] as Extract<MarkInfo, { type: 'wrapper' }>).close = it.render;
    marks.push({ id, kind: 'close', pos: text.length });
  });
  closeStyle();
  return { el, prefix, suffix, base, unit: { text, marks: outOfWords(text, marks, markers) }, info, lineBreaks };
}

/** Longest run of letters taken for a word when a marker moves to its start. */
const MAX_WORD = 64;

/**
 * Marks of zero-width markers (bookmarks) that sit inside a word move to the word's start: the engine would read
 * "U⟦3/⟧sing" as two words. Marks stay in document order (a stable sort by place).
 */
function outOfWords(text: string, marks: TagMark[], markers: Set<number>): TagMark[] {
  const word = (i: number) => i >= 0 && i < text.length && /[\p{L}\p{N}]/u.test(text[i]!);
  let moved = false;
  const out = marks.map((m) => {
    if (m.kind !== 'empty' || !markers.has(m.id) || !word(m.pos - 1) || !word(m.pos)) return m;
    // a word is short: a run of letters longer than MAX_WORD is not one, and the marker stays (bounds the scan)
    let pos = m.pos - 1;
    while (word(pos - 1) && m.pos - pos < MAX_WORD) pos--;
    if (word(pos - 1)) return m;
    moved = true;
    return { ...m, pos };
  });
  return moved ? out.map((m, order) => ({ m, order })).sort((a, b) => a.m.pos - b.m.pos || a.order - b.order).map((x) => x.m) : out;
}

/** The lines of a unit between its line breaks, without their outer blanks: translated one by one. */
export function lineRanges(text: string, breaks: number[]): { start: number; end: number }[] | undefined {
  if (breaks.length === 0) return undefined;
  const cuts = [0, ...breaks, text.length];
  const ranges: { start: number; end: number }[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    let start = cuts[k]!;
    let end = cuts[k + 1]!;
    while (start < end && /\s/u.test(text[start]!)) start++;
    while (end > start && /\s/u.test(text[end - 1]!)) end--;
    if (start < end) ranges.push({ start, end });
  }
  return ranges;
}

function renderParagraph(p: Paragraph, out: TaggedText): string {
  let xml = p.prefix();
  const styles: RunStyle[] = [];
  const text = (s: string) => {
    if (s === '') return;
    const st = styles[styles.length - 1] ?? p.base;
    // DrawingML text and chart values take no xml:space (their schemas do not allow it)
    const preserve = st.dialect !== 'a' && st.dialect !== 'c' && /^\s|\s$|\s\s|[\t\n]/u.test(s) ? ' xml:space="preserve"' : '';
    xml += `${st.open}${st.rPr}<${st.tName}${preserve}>${escapeXmlText(s)}</${st.tName}>${st.close}`;
  };
  let at = 0;
  for (const m of out.marks) {
    const pos = Math.max(at, Math.min(m.pos, out.text.length));
    text(out.text.slice(at, pos));
    at = pos;
    const info = p.info[m.id];
    if (!info) continue;
    if (info.type === 'style') {
      if (m.kind === 'open') styles.push(info.style);
      else if (m.kind === 'close') styles.pop();
    } else if (info.type === 'wrapper') xml += m.kind === 'open' ? info.open() : m.kind === 'close' ? info.close() : '';
    else xml += info.render();
  }
  text(out.text.slice(at));
  return xml + p.suffix();
}
