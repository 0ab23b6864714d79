// One IDML story (Stories/Story_*.xml) cut into paragraphs: the text between <Br/>s of a ParagraphStyleRange, across
// its CharacterStyleRanges, is one tagged unit whose style ranges are paired inline tags; untouched markup is kept
// byte for byte, and a translated paragraph is written back with the same ranges around the words they carry.
import type { TaggedText, TagMark } from '../../../markup/tagged-text.js';
import { arrangeRuns, keepBlanksAroundAtoms, restoreRuns, withoutRuns } from '../run-arrangement.js';
import { parseXmlTree, type XElement, type XNode } from './xml-tree.js';

/** Verbatim text, or a paragraph rendered from its translated unit. */
export type Piece = string | { render(outputs: TaggedText[]): string };

type Tok =
  | { t: 'open' | 'close'; el: XElement; raw: Piece[]; holds: boolean }
  | { t: 'text'; text: string; raw: Piece[] }
  | { t: 'cOpen' | 'cClose' | 'br' | 'ws'; raw: Piece[] }
  | { t: 'atom'; raw: Piece[]; inContent: boolean };

interface MarkInfo {
  openRaw: Piece[];
  closeRaw: Piece[];
  holds: boolean;
  /** An atom that sat inside a <Content> (processing instructions): it is written inside one again. */
  inContent: boolean;
}

const PSR = 'ParagraphStyleRange';
const CSR = 'CharacterStyleRange';
const PLAIN_RANGE = /^<CharacterStyleRange\s+AppliedCharacterStyle="CharacterStyle\/\$ID\/\[No character style\]"\s*>$/u;

export function renderPieces(pieces: Piece[], outputs: TaggedText[]): string {
  let out = '';
  for (const p of pieces) out += typeof p === 'string' ? p : p.render(outputs);
  return out;
}

const escapeXml = (s: string) => s.replace(/[&<>]/gu, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));

/** Plans a story: pieces to render, its paragraphs appended to `units` (indices into that shared array). */
export function planStory(text: string, units: TaggedText[], what: string): Piece[] {
  const roots = parseXmlTree(text, what);
  const slice = (a: number, b: number) => text.slice(a, b);
  const wrapperMemo = new Map<XElement, boolean>();

  /** An element that (outside nested paragraphs) holds story text: a range or another inline wrapper. */
  const isWrapper = (el: XElement): boolean => {
    const known = wrapperMemo.get(el);
    if (known !== undefined) return known;
    const res = el.name !== PSR && el.children.some((c) => c.type === 'element' && (c.name === 'Content' || c.name === 'Br' || isWrapper(c)));
    wrapperMemo.set(el, res);
    return res;
  };

  const nodePieces = (n: XNode): Piece[] => (n.type === 'element' ? elementPieces(n) : [slice(n.start, n.end)]);
  const elementPieces = (el: XElement): Piece[] =>
    el.name === PSR ? paragraphRange(el) : [slice(el.openStart, el.openEnd), ...el.children.flatMap(nodePieces), slice(el.closeStart, el.closeEnd)];

  const flatten = (n: XNode, inContent: boolean, inCsr: boolean, out: Tok[]): void => {
    if (n.type === 'text') {
      out.push(inContent ? { t: 'text', text: n.text, raw: [slice(n.start, n.end)] } : { t: 'ws', raw: [slice(n.start, n.end)] });
      return;
    }
    if (n.type === 'other') {
      out.push({ t: 'atom', raw: [slice(n.start, n.end)], inContent });
      return;
    }
    if (n.name === 'Content' && n.closeEnd > n.closeStart) {
      out.push({ t: 'cOpen', raw: [slice(n.openStart, n.openEnd)] });
      for (const c of n.children) flatten(c, true, inCsr, out);
      out.push({ t: 'cClose', raw: [slice(n.closeStart, n.closeEnd)] });
    } else if (n.name === 'Br') out.push({ t: 'br', raw: [slice(n.openStart, n.closeEnd)] });
    else if (!inContent && isWrapper(n)) {
      const holds = inCsr || n.name === CSR;
      out.push({ t: 'open', el: n, raw: [slice(n.openStart, n.openEnd)], holds });
      for (const c of n.children) flatten(c, false, holds, out);
      out.push({ t: 'close', el: n, raw: [slice(n.closeStart, n.closeEnd)], holds });
    } else out.push({ t: 'atom', raw: elementPieces(n), inContent });
  };

  const paragraphRange = (psr: XElement): Piece[] => {
    const toks: Tok[] = [];
    for (const c of psr.children) flatten(c, false, false, toks);
    // Whitespace between elements travels with the markup that follows it.
    const merged: Tok[] = [];
    let pending: Piece[] = [];
    for (const tok of toks) {
      if (tok.t === 'ws') pending.push(...tok.raw);
      else {
        merged.push({ ...tok, raw: [...pending, ...tok.raw] });
        pending = [];
      }
    }
    const pieces: Piece[] = [slice(psr.openStart, psr.openEnd)];
    let open: XElement[] = [];
    let region: Tok[] = [];
    const flush = () => {
      pieces.push(...paragraph(region, open));
      for (const tok of region) {
        if (tok.t === 'open') open = [...open, tok.el];
        else if (tok.t === 'close') open = open.filter((e) => e !== tok.el);
      }
      region = [];
    };
    for (const tok of merged) {
      if (tok.t === 'br') {
        flush();
        pieces.push(...tok.raw);
      } else region.push(tok);
    }
    flush();
    pieces.push(...pending, slice(psr.closeStart, psr.closeEnd));
    return pieces;
  };

  // Whether a range is in its paragraph's formatting, decided once per range: a range spanning many paragraphs is
  // asked once per paragraph, and looking through its children each time was quadratic.
  const plainRanges = new Map<XElement, boolean>();
  const isPlainRange = (el: XElement): boolean => {
    let known = plainRanges.get(el);
    if (known === undefined) {
      const own = el.children.some((c) => c.type === 'element' && c.name === 'Properties');
      known = el.name === CSR && !own && PLAIN_RANGE.test(slice(el.openStart, el.openEnd));
      plainRanges.set(el, known);
    }
    return known;
  };

  /** One paragraph: verbatim when it has no words, else a unit rendered from its translation. */
  const paragraph = (toks: Tok[], openAtStart: XElement[]): Piece[] => {
    const words = toks.map((t) => (t.t === 'text' ? t.text : '')).join('');
    if (!/[\p{L}\p{N}]/u.test(words)) return toks.flatMap((t) => t.raw);
    const info: MarkInfo[] = [];
    const marks: TagMark[] = [];
    const ids = new Map<XElement, number>();
    const stack: XElement[] = [];
    const pinnedStart = new Set<number>();
    const pinnedEnd = new Set<number>();
    const contentOpens: Piece[][] = [];
    const contentCloses: Piece[][] = [];
    let utext = '';
    const add = (m: MarkInfo) => info.push(m) - 1;
    // A range in the paragraph's own formatting: no character style, no overrides, no <Properties>.
    const plain = new Set<number>();
    const notePlain = (el: XElement, id: number) => {
      if (isPlainRange(el)) plain.add(id);
    };
    for (const el of openAtStart) {
      const id = add({ openRaw: [], closeRaw: [], holds: el.name === CSR || stack.some((s) => s.name === CSR), inContent: false });
      ids.set(el, id);
      notePlain(el, id);
      pinnedStart.add(id);
      stack.push(el);
      marks.push({ id, kind: 'open', pos: 0 });
    }
    for (const tok of toks) {
      if (tok.t === 'text') utext += tok.text;
      else if (tok.t === 'cOpen') contentOpens.push(tok.raw);
      else if (tok.t === 'cClose') contentCloses.push(tok.raw);
      else if (tok.t === 'open') {
        const id = add({ openRaw: tok.raw, closeRaw: [], holds: tok.holds, inContent: false });
        ids.set(tok.el, id);
        notePlain(tok.el, id);
        stack.push(tok.el);
        marks.push({ id, kind: 'open', pos: utext.length });
      } else if (tok.t === 'close') {
        const id = ids.get(tok.el)!;
        info[id]!.closeRaw = tok.raw;
        stack.splice(stack.lastIndexOf(tok.el), 1);
        marks.push({ id, kind: 'close', pos: utext.length });
      } else if (tok.t === 'atom') {
        marks.push({ id: add({ openRaw: tok.raw, closeRaw: [], holds: false, inContent: tok.inContent }), kind: 'empty', pos: utext.length });
      }
    }
    for (const el of [...stack].reverse()) {
      const id = ids.get(el)!;
      pinnedEnd.add(id);
      marks.push({ id, kind: 'close', pos: utext.length });
    }
    // Markup that is not part of the sentence (a range's <Properties>, trailing anchors) sticks to its range's tags.
    const prefix: Piece[] = [];
    const suffix: Piece[] = [];
    const kept: TagMark[] = [];
    for (const m of marks) {
      const prev = kept[kept.length - 1];
      if (m.kind === 'empty' && !info[m.id]!.inContent && (!prev || (prev.kind === 'open' && prev.pos === m.pos)) && (prev || m.pos === 0)) {
        if (prev) info[prev.id]!.openRaw.push(...info[m.id]!.openRaw);
        else prefix.push(...info[m.id]!.openRaw);
      } else kept.push(m);
    }
    const final: TagMark[] = [];
    for (let k = kept.length - 1; k >= 0; k--) {
      const m = kept[k]!;
      const next = final[0];
      if (m.kind === 'empty' && !info[m.id]!.inContent && (!next || (next.kind === 'close' && next.pos === m.pos)) && (next || m.pos === utext.length)) {
        if (next) info[next.id]!.closeRaw.unshift(...info[m.id]!.openRaw);
        else suffix.unshift(...info[m.id]!.openRaw);
      } else final.unshift(m);
    }
    const full: TaggedText = { text: utext, marks: final };
    const rules = { pinnedStart, pinnedEnd, holdsText: (id: number) => info[id]!.holds, plain: (id: number) => plain.has(id) };
    const sent = withoutRuns(full, rules);
    const unit = units.push(sent) - 1;
    return [
      ...prefix,
      {
        render(outputs: TaggedText[]): string {
          // Nested paragraphs (a footnote inside this one) render from the same outputs.
          const pieceText = (p: Piece[]) => renderPieces(p, outputs);
          const out = keepBlanksAroundAtoms(sent, outputs[unit] ?? sent, (id) => info[id]!.inContent);
          const arranged = arrangeRuns(restoreRuns(out, full, rules), rules, full);
          let s = '';
          let inContent = false;
          let k = 0;
          const text = (t: string) => {
            if (t === '') return;
            if (!inContent) s += pieceText(contentOpens[k] ?? ['<Content>']);
            inContent = true;
            s += escapeXml(t);
          };
          const endContent = () => {
            if (!inContent) return;
            s += pieceText(contentCloses[k] ?? ['</Content>']);
            k++;
            inContent = false;
          };
          let at = 0;
          for (const m of arranged.marks) {
            const pos = Math.max(at, Math.min(m.pos, arranged.text.length));
            text(arranged.text.slice(at, pos));
            at = pos;
            const i = info[m.id]!;
            if (m.kind === 'empty' && i.inContent) {
              if (!inContent) s += pieceText(contentOpens[k] ?? ['<Content>']);
              inContent = true;
            } else endContent();
            s += pieceText(m.kind === 'close' ? i.closeRaw : i.openRaw);
          }
          text(arranged.text.slice(at));
          endContent();
          return s;
        },
      },
      ...suffix,
    ];
  };

  return roots.flatMap(nodePieces);
}
