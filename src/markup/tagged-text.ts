// The format-neutral unit of markup translation: plain text with inline tag marks at positions. Every markup format
// (tag_handling, and document formats such as HTML, XML, XLIFF, DITA, DOCX runs) reduces its inline content to this.

export type MarkKind = 'open' | 'close' | 'empty';

/** One inline tag: `open`/`close` marks with the same id form a pair; `empty` stands alone (void tag, ignored span). */
export interface TagMark {
  id: number;
  kind: MarkKind;
  /** Position in `text` (UTF-16 index) where the tag sits. */
  pos: number;
}

/** Plain (decoded) text with its inline tags; marks are in document order and properly nested. */
export interface TaggedText {
  text: string;
  marks: TagMark[];
}

/** A node of the mark tree: a pair spanning [start, end) with children, or an empty tag at start (= end). */
export interface MarkNode {
  id: number;
  kind: 'pair' | 'empty';
  start: number;
  end: number;
  children: MarkNode[];
}

/** Builds the nesting tree of a unit's marks; unbalanced marks (never produced by the parsers) become empties. */
export function markTree(marks: TagMark[]): MarkNode[] {
  const root: MarkNode = { id: -1, kind: 'pair', start: 0, end: 0, children: [] };
  const stack: MarkNode[] = [root];
  for (const m of marks) {
    const top = stack[stack.length - 1]!;
    if (m.kind === 'empty') top.children.push({ id: m.id, kind: 'empty', start: m.pos, end: m.pos, children: [] });
    else if (m.kind === 'open') {
      const node: MarkNode = { id: m.id, kind: 'pair', start: m.pos, end: m.pos, children: [] };
      top.children.push(node);
      stack.push(node);
    } else if (stack.length > 1 && top.id === m.id) {
      top.end = m.pos;
      stack.pop();
    }
  }
  return root.children;
}

/** Flattens a (re-positioned) tree back into marks in document order. */
export function treeMarks(nodes: MarkNode[]): TagMark[] {
  const out: TagMark[] = [];
  const walk = (list: MarkNode[]) => {
    for (const n of list) {
      if (n.kind === 'empty') out.push({ id: n.id, kind: 'empty', pos: n.start });
      else {
        out.push({ id: n.id, kind: 'open', pos: n.start });
        walk(n.children);
        out.push({ id: n.id, kind: 'close', pos: n.end });
      }
    }
  };
  walk(nodes);
  return out;
}

/** Inserts rendered tags into text: `renderTag(mark)` gives the tag's markup, `escape` the text's. */
export function renderTagged(unit: TaggedText, renderTag: (m: TagMark) => string, escape: (s: string) => string): string {
  let out = '';
  let at = 0;
  for (const m of unit.marks) {
    const pos = Math.max(at, Math.min(m.pos, unit.text.length));
    out += escape(unit.text.slice(at, pos)) + renderTag(m);
    at = pos;
  }
  return out + escape(unit.text.slice(at));
}
