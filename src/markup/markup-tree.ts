// The parsed markup shared by the XML and HTML front ends: nodes keep their source text verbatim so that everything
// not translated comes back byte-identical; this module cuts the tree into translation units and renders it back.
import type { TagMark, TaggedText } from './tagged-text.js';
import { renderTagged } from './tagged-text.js';

/** An attribute value to translate, located inside its element's `open` markup. */
export interface AttrSlot {
  /** Offsets of the value, quotes included, inside `open`. */
  start: number;
  end: number;
  text: string;
  /** Quote to write around the new value (`"` when the source had none). */
  quote: string;
}

export type MNode =
  | { type: 'text'; raw: string; text: string }
  /** Comments, processing instructions, doctype, CDATA, and whole ignored subtrees: copied verbatim. */
  | { type: 'raw'; raw: string }
  | MElement;

export interface MElement {
  type: 'element';
  name: string;
  /** Start tag as written (the whole `<x …/>` for self-closing and void tags). */
  open: string;
  /** End tag as written; '' for self-closing, void or implied end tags. */
  close: string;
  children: MNode[];
  /** Splitting element: its content is a unit of its own (block), never part of a surrounding sentence. */
  block: boolean;
  attrSlots: AttrSlot[];
  /** Replacement values for attributes (e.g. lang → target), keyed like attrSlots. */
  attrSets: { start: number; end: number; value: string }[];
}

/** A piece of the rebuilt document: verbatim markup, a block's start tag, or translation unit `unit`. */
type Piece = string | { unit: number } | { open: MElement };

interface UnitBuild {
  text: string;
  raw: string;
  marks: TagMark[];
  /** Markup of each mark id: start tag (or the whole empty tag) and end tag. */
  openTags: (string | MElement)[];
  closeTags: string[];
  /** Index into MarkupPlan.units, or -1 when the unit has no text to translate. */
  index: number;
}

export interface MarkupPlan {
  /** Units to translate: block contents (with inline tags) followed by attribute values (plain). */
  units: TaggedText[];
  /** Code points of the text to translate (what is billed). */
  textCharacters: number;
  /** The whole text content (for language detection). */
  plainText: string;
  /** Rebuilds the document from one translated unit per unit. */
  render(outputs: TaggedText[]): string;
}

/** Whether an element can sit inside a sentence: not splitting itself and no splitting descendant. */
function isInline(el: MElement, memo: Map<MElement, boolean>): boolean {
  const known = memo.get(el);
  if (known !== undefined) return known;
  const inline = !el.block && el.children.every((c) => c.type !== 'element' || isInline(c, memo));
  memo.set(el, inline);
  return inline;
}

/** Applies translated attribute values (and fixed replacements such as lang) to a start tag. */
function rewriteOpen(open: string, edits: { start: number; end: number; value: string }[]): string {
  let out = open;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.value + out.slice(e.end);
  return out;
}

export function planMarkup(roots: MNode[], escapeText: (s: string) => string, escapeAttr: (s: string) => string): MarkupPlan {
  const memo = new Map<MElement, boolean>();
  const pieces: Piece[] = [];
  const builds: UnitBuild[] = [];
  const attrs: { el: MElement; slot: AttrSlot }[] = [];
  let current: UnitBuild | undefined;
  let plainText = '';

  const flush = () => {
    if (!current) return;
    pieces.push({ unit: builds.length });
    builds.push(current);
    current = undefined;
  };
  const unit = () => (current ??= { text: '', raw: '', marks: [], openTags: [], closeTags: [], index: -1 });

  const visit = (node: MNode): void => {
    if (node.type === 'text') {
      const u = unit();
      u.text += node.text;
      u.raw += node.raw;
      plainText += node.text;
      return;
    }
    if (node.type === 'raw') {
      // Verbatim content inside a sentence stays where it is, as an empty inline mark.
      if (!current) {
        pieces.push(node.raw);
        return;
      }
      current.marks.push({ id: current.openTags.length, kind: 'empty', pos: current.text.length });
      current.openTags.push(node.raw);
      current.closeTags.push('');
      current.raw += node.raw;
      return;
    }
    for (const slot of node.attrSlots) {
      attrs.push({ el: node, slot });
      plainText += ` ${slot.text} `;
    }
    if (isInline(node, memo)) {
      const u = unit();
      const id = u.openTags.length;
      u.openTags.push(node);
      u.raw += node.open;
      if (node.close === '' && node.children.length === 0) {
        u.closeTags.push('');
        u.marks.push({ id, kind: 'empty', pos: u.text.length });
        return;
      }
      u.closeTags.push(node.close);
      u.marks.push({ id, kind: 'open', pos: u.text.length });
      node.children.forEach(visit);
      u.marks.push({ id, kind: 'close', pos: u.text.length });
      u.raw += node.close;
      return;
    }
    flush();
    pieces.push({ open: node });
    node.children.forEach(visit);
    flush();
    pieces.push(node.close);
  };
  roots.forEach(visit);
  flush();

  const units: TaggedText[] = [];
  for (const b of builds) {
    if (!/[\p{L}\p{N}]/u.test(b.text)) continue;
    b.index = units.length;
    units.push({ text: b.text, marks: b.marks });
  }
  const attrBase = units.length;
  for (const a of attrs) units.push({ text: a.slot.text, marks: [] });
  let textCharacters = 0;
  for (const t of units) for (const _ of t.text) textCharacters++;

  return {
    units,
    textCharacters,
    plainText,
    render(outputs) {
      const edits = new Map<MElement, { start: number; end: number; value: string }[]>();
      attrs.forEach((a, k) => {
        const list = edits.get(a.el) ?? [];
        list.push({ start: a.slot.start, end: a.slot.end, value: a.slot.quote + escapeAttr(outputs[attrBase + k]?.text ?? a.slot.text) + a.slot.quote });
        edits.set(a.el, list);
      });
      const openOf = (el: MElement) => {
        const list = [...(edits.get(el) ?? []), ...el.attrSets];
        return list.length > 0 ? rewriteOpen(el.open, list) : el.open;
      };
      const changed = (b: UnitBuild) => b.openTags.some((t) => typeof t !== 'string' && openOf(t) !== t.open);
      let out = '';
      for (const p of pieces) {
        if (typeof p === 'string') out += p;
        else if ('open' in p) out += openOf(p.open);
        else {
          const b = builds[p.unit]!;
          if (b.index < 0 && !changed(b)) {
            out += b.raw;
            continue;
          }
          const o = b.index >= 0 ? (outputs[b.index] ?? { text: b.text, marks: b.marks }) : { text: b.text, marks: b.marks };
          out += renderTagged(
            o,
            (m) => {
              if (m.kind === 'close') return b.closeTags[m.id] ?? '';
              const t = b.openTags[m.id];
              return t === undefined ? '' : typeof t === 'string' ? t : openOf(t);
            },
            escapeText,
          );
        }
      }
      return out;
    },
  };
}
