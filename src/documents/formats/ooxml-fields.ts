// Word complex fields (fldChar begin … instrText … separate … result … end) inside a paragraph become one pair around
// their result text, or one empty tag when they show no text, so a translation that reorders words can never put
// a field's end before its begin (Word refuses such documents); the result text itself is still translated.

export type FieldEvent = 'begin' | 'separate' | 'end';

/** A paragraph's content in document order, as flattened for one tagged unit. */
export type Item<S = unknown> =
  | { kind: 'text'; text: string; style: S }
  /** role: a line break (the lines are translated apart), or a zero-width marker (bookmark) kept out of words. */
  | { kind: 'empty'; render: () => string; fields?: FieldEvent[]; role?: 'break' | 'marker' }
  | { kind: 'open' | 'close'; render: () => string };

interface Piece<S> {
  start: number;
  end: number; // inclusive
  item: Item<S>;
}

const joined = <S>(items: Item<S>[], from: number, to: number): (() => string) => {
  const parts = items.slice(from, to + 1) as { render: () => string }[];
  return () => parts.map((p) => p.render()).join('');
};

/** Rewrites `items` so that every complete field of one nesting level is a pair (or one empty tag). */
export function groupFields<S>(items: Item<S>[]): Item<S>[] {
  if (!items.some((it) => it.kind === 'empty' && it.fields?.length)) return items;
  // `low`: the lowest depth a close mark reached while the field was on top; a field whose wrapper closed under it
  // crosses a hyperlink or other wrapper. Passed down when a field ends, so each close costs O(1), not O(open fields).
  const open: { begin: number; depth: number; sep?: number; ok: boolean; low: number }[] = [];
  const ops: Piece<S>[][] = [];
  let depth = 0;
  items.forEach((it, i) => {
    if (it.kind === 'open') depth++;
    else if (it.kind === 'close') {
      depth--;
      const top = open[open.length - 1];
      if (top) top.low = Math.min(top.low, depth);
    } else if (it.kind === 'text') {
      const top = open[open.length - 1];
      if (top && top.sep === undefined) top.ok = false; // text inside the instruction: leave it alone
    }
    if (it.kind !== 'empty' || !it.fields) return;
    it.fields.forEach((ev, k) => {
      const top = open[open.length - 1];
      if (ev === 'begin') open.push({ begin: i, depth, ok: k === 0, low: depth });
      else if (ev === 'separate' && top) {
        top.sep = i;
        if (k !== it.fields!.length - 1) top.ok = false;
      } else if (ev === 'end' && top) {
        open.pop();
        const under = open[open.length - 1];
        if (under) under.low = Math.min(under.low, top.low);
        if (!top.ok || top.low < top.depth || top.depth !== depth || it.fields!.length !== 1) return;
        const span = items.slice(top.begin, i + 1);
        const allEmpty = span.every((s) => s.kind === 'empty');
        if (allEmpty) ops.push([{ start: top.begin, end: i, item: { kind: 'empty', render: joined(items, top.begin, i) } }]);
        else if (top.sep !== undefined && top.sep < i) {
          ops.push([
            { start: top.begin, end: top.sep, item: { kind: 'open', render: joined(items, top.begin, top.sep) } },
            { start: i, end: i, item: { kind: 'close', render: joined(items, i, i) } },
          ]);
        }
      }
    });
  });
  // Outer fields first; a field inside another's instruction is covered by it.
  ops.sort((a, b) => a[0]!.start - b[0]!.start || b[0]!.end - a[0]!.end);
  // Chosen pieces never overlap, so kept sorted by start they are sorted by end too: one binary search tells whether
  // a piece overlaps any of them (checking each against all was quadratic in the fields of a paragraph).
  const chosen: Piece<S>[] = [];
  const firstAfter = (at: number) => {
    let lo = 0;
    let hi = chosen.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (chosen[mid]!.start > at) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const overlaps = (p: Piece<S>) => {
    const before = chosen[firstAfter(p.end) - 1];
    return before !== undefined && before.end >= p.start;
  };
  for (const op of ops) {
    if (op.some(overlaps)) continue;
    for (const p of op) chosen.splice(firstAfter(p.start), 0, p);
  }
  // One pass: each chosen piece replaces its items.
  const out: Item<S>[] = [];
  let next = 0;
  for (const p of chosen) {
    for (let i = next; i < p.start; i++) out.push(items[i]!);
    out.push(p.item);
    next = p.end + 1;
  }
  for (let i = next; i < items.length; i++) out.push(items[i]!);
  return out;
}
