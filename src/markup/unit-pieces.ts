// Translating a tagged unit piece by piece: an ICU message's branch texts, a Word paragraph's lines. The engine sees
// each piece alone; the text between pieces (ICU structure, blanks around a line break) comes back as written.
import { markTree, treeMarks, type MarkNode, type TaggedText, type TagMark } from './tagged-text.js';

/** [start, end) of a unit's text. */
export interface TextRange {
  start: number;
  end: number;
}

/**
 * Translates units cut into pieces by `piecesOf` (undefined: the unit goes whole). Tags wholly inside a piece travel
 * with it; the others stay in the text between pieces, a pair that reaches into a piece opening at the piece's start
 * or closing at its end, so that the result nests as the source did. Pieces without letters or digits are not sent.
 * `translate` is told the piece each unit it gets was cut as (undefined for a whole unit).
 */
export async function translateInPieces<P extends TextRange>(
  units: TaggedText[],
  piecesOf: (u: TaggedText) => P[] | undefined,
  translate: (units: TaggedText[], pieces: (P | undefined)[]) => Promise<TaggedText[]>,
): Promise<TaggedText[]> {
  const split = units.map((u) => {
    const pieces = piecesOf(u)?.filter((p) => /[\p{L}\p{N}]/u.test(u.text.slice(p.start, p.end)));
    return pieces && pieces.length > 0 ? { pieces, carried: carriedMarks(u, pieces) } : undefined;
  });
  const jobs: TaggedText[] = [];
  const from: (P | undefined)[] = [];
  units.forEach((u, i) => {
    const s = split[i];
    if (!s) {
      jobs.push(u);
      from.push(undefined);
    } else {
      s.pieces.forEach((p, k) => jobs.push({ text: u.text.slice(p.start, p.end), marks: s.carried[k]!.map((m) => ({ ...m, pos: m.pos - p.start })) }));
      from.push(...s.pieces);
    }
  });
  const out = await translate(jobs, from);
  let next = 0;
  return units.map((u, i) => {
    const s = split[i];
    if (!s) return out[next++]!;
    const carried = new Set(s.carried.flat().map((m) => m.id));
    // Tags left between pieces, at their source place, or at the edge of the piece they reach into.
    const between = u.marks
      .filter((m) => !carried.has(m.id))
      .map((m) => {
        const p = s.pieces[pieceAt(s.pieces, m.pos)];
        return { ...m, pos: p && m.pos > p.start && m.pos < p.end ? (m.kind === 'close' ? p.end : p.start) : m.pos };
      })
      .map((m, order) => ({ m, order }))
      .sort((a, b) => a.m.pos - b.m.pos || a.order - b.order)
      .map((x) => x.m);
    const marks: TagMark[] = [];
    let text = '';
    let at = 0;
    let b = 0;
    const structure = (to: number) => {
      for (; b < between.length && between[b]!.pos <= to; b++) marks.push({ ...between[b]!, pos: text.length + between[b]!.pos - at });
      text += u.text.slice(at, to);
    };
    for (const p of s.pieces) {
      structure(p.start);
      const t = out[next++]!;
      for (const m of t.marks) marks.push({ ...m, pos: text.length + m.pos });
      text += t.text;
      at = p.end;
    }
    structure(u.text.length);
    return { text, marks };
  });
}

/** Index of the last piece starting at or before `pos` (-1 for none), by binary search: pieces are in order. */
function pieceAt(pieces: TextRange[], pos: number): number {
  let lo = 0;
  let hi = pieces.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pieces[mid]!.start <= pos) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/**
 * Per piece, the marks of the tags that lie wholly inside it (a pair with all it holds), in document order; the
 * mark tree is walked once. A tag of no width on a piece's edge (the line break between two lines) stays between.
 */
function carriedMarks(u: TaggedText, pieces: TextRange[]): TagMark[][] {
  const inside: MarkNode[][] = pieces.map(() => []);
  const walk = (nodes: MarkNode[]) => {
    for (const n of nodes) {
      const k = pieceAt(pieces, n.start);
      const p = pieces[k];
      const edge = n.start === n.end && p !== undefined && (n.start === p.start || n.end === p.end);
      if (p && n.end <= p.end && !edge) inside[k]!.push(n);
      else walk(n.children);
    }
  };
  walk(markTree(u.marks));
  return inside.map(treeMarks);
}
