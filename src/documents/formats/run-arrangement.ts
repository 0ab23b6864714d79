// Formats whose text must always sit inside a formatting run (IDML character ranges, MIF font spans) fix up the inline
// tags the markup layer placed on a translation: runs whose tag lies outside the rewritten region stay pinned to its
// edges, and text that ended up between runs is absorbed by a neighbouring run so that no text is left unformatted.
import { markTree, treeMarks, type MarkNode, type TaggedText, type TagMark } from '../../translate/markup/tagged-text.js';

export interface RunRules {
  /** Pairs whose open tag lies before the region: they must start at the region's start (first among siblings). */
  pinnedStart: ReadonlySet<number>;
  /** Pairs whose close tag lies after the region: they must end at the region's end (last among siblings). */
  pinnedEnd: ReadonlySet<number>;
  /** Pairs that may hold text directly; text directly inside any other pair (or at top level) is absorbed. */
  holdsText(id: number): boolean;
}

const WORDS = /[\p{L}\p{N}]/u;

/** Facts of the source unit that steer the arrangement of its translation. */
interface SourceFacts {
  /** Pairs whose source text starts / ends with a blank: a blank gap next to them belongs to them. */
  leadingBlank: Set<number>;
  trailingBlank: Set<number>;
  /** Top-level pairs holding only the unit's final punctuation (e.g. a plain "." after italic words). */
  tail: Map<number, string>;
  /** Length of each pair's source text: a gap between two runs goes to the longer one (usually the plain text). */
  length: Map<number, number>;
}

function sourceFacts(source: TaggedText): SourceFacts {
  const facts: SourceFacts = { leadingBlank: new Set(), trailingBlank: new Set(), tail: new Map(), length: new Map() };
  const walk = (nodes: MarkNode[], top: boolean) => {
    for (const n of nodes) {
      if (n.kind !== 'pair') continue;
      const span = source.text.slice(n.start, n.end);
      facts.length.set(n.id, span.trim().length);
      if (/^\s/u.test(span)) facts.leadingBlank.add(n.id);
      if (/\s$/u.test(span)) facts.trailingBlank.add(n.id);
      if (top && span.trim() !== '' && !WORDS.test(span) && source.text.slice(n.end).trim() === '') facts.tail.set(n.id, span.trim());
      walk(n.children, false);
    }
  };
  walk(markTree(source.marks), true);
  return facts;
}

/** Top-level pinned pairs of a unit: their place is fixed, so the engine need not (and should not) locate them. */
function topPinned(source: TaggedText, rules: RunRules): MarkNode[] {
  return markTree(source.marks).filter((n) => n.kind === 'pair' && (rules.pinnedStart.has(n.id) || rules.pinnedEnd.has(n.id)));
}

/** The unit sent for translation: without the tags of top-level pinned runs (long runs that cross the region's edges). */
export function withoutPinned(source: TaggedText, rules: RunRules): TaggedText {
  const ids = new Set(topPinned(source, rules).map((n) => n.id));
  return { text: source.text, marks: source.marks.filter((m) => !ids.has(m.id)) };
}

/**
 * Puts the top-level pinned runs back around a translation of `withoutPinned(source)`: a run pinned to the start takes
 * the text up to the first tag that is not its own, a run pinned to the end the text after the last such tag. Its own
 * tags that the translation moved past another run's stay inside it, empty at its edge.
 */
export function restorePinned(out: TaggedText, source: TaggedText, rules: RunRules): TaggedText {
  const len = out.text.length;
  const top = topPinned(source, rules);
  const owner = new Map<number, number>();
  for (const p of top) walk(p.children, (d) => owner.set(d.id, p.id));
  const both = top.find((p) => rules.pinnedStart.has(p.id) && rules.pinnedEnd.has(p.id));
  const open = (id: number, pos: number): TagMark => ({ id, kind: 'open', pos });
  const close = (id: number, pos: number): TagMark => ({ id, kind: 'close', pos });
  if (both) return { text: out.text, marks: [open(both.id, 0), ...out.marks, close(both.id, len)] };
  // The translation's top-level subtrees, each owned by a pinned run or by none.
  const blocks: TagMark[][] = [];
  let depth = 0;
  for (const m of out.marks) {
    if (depth === 0) blocks.push([]);
    blocks[blocks.length - 1]!.push(m);
    depth += m.kind === 'open' ? 1 : m.kind === 'close' ? -1 : 0;
  }
  const ownerOf = (b: TagMark[]) => owner.get(b[0]!.id);
  const at = (b: TagMark[], pos: number) => b.map((m) => ({ ...m, pos }));
  const marks: TagMark[] = [];
  let rest = blocks;
  let cut = 0;
  const start = top.find((p) => rules.pinnedStart.has(p.id));
  if (start) {
    const first = rest.findIndex((b) => ownerOf(b) !== start.id);
    cut = first < 0 ? len : rest[first]![0]!.pos;
    const own = rest.flatMap((b, i) => (ownerOf(b) !== start.id ? [] : i > first && first >= 0 ? at(b, cut) : b));
    marks.push(open(start.id, 0), ...own, close(start.id, cut));
    rest = rest.filter((b) => ownerOf(b) !== start.id);
  }
  const end = top.find((p) => rules.pinnedEnd.has(p.id));
  if (!end) return { text: out.text, marks: [...marks, ...rest.flat()] };
  let last = -1;
  rest.forEach((b, i) => {
    if (ownerOf(b) !== end.id) last = i;
  });
  const from = last < 0 ? cut : rest[last]![rest[last]!.length - 1]!.pos;
  const others = rest.filter((b) => ownerOf(b) !== end.id).flat();
  const own = rest.flatMap((b, i) => (ownerOf(b) !== end.id ? [] : i < last ? at(b, from) : b));
  return { text: out.text, marks: [...marks, ...others, open(end.id, from), ...own, close(end.id, len)] };
}

/** Re-nests the marks of a translated unit under the rules; the text is unchanged. */
export function arrangeRuns(unit: TaggedText, rules: RunRules, source: TaggedText): TaggedText {
  const tree = markTree(unit.marks);
  const facts = sourceFacts(source);
  // A trailing punctuation run keeps the translation's final punctuation when the engine kept it.
  const body = unit.text.trimEnd();
  for (const n of tree) {
    const tail = facts.tail.get(n.id);
    if (tail === undefined || !body.endsWith(tail)) continue;
    const at = body.length - tail.length;
    walk(tree, (m) => {
      if (m === n) return;
      m.start = Math.min(m.start, at);
      m.end = Math.min(m.end, at);
    });
    n.start = at;
    n.end = Math.max(n.end, body.length);
  }
  arrange(tree, 0, unit.text.length, false, rules, facts, unit.text);
  return { text: unit.text, marks: treeMarks(tree) };
}

function walk(nodes: MarkNode[], fn: (n: MarkNode) => void): void {
  for (const n of nodes) {
    fn(n);
    walk(n.children, fn);
  }
}

function arrange(nodes: MarkNode[], lo: number, hi: number, parentHolds: boolean, rules: RunRules, facts: SourceFacts, text: string): void {
  const first = nodes.filter((n) => n.kind === 'pair' && rules.pinnedStart.has(n.id));
  const last = nodes.filter((n) => n.kind === 'pair' && rules.pinnedEnd.has(n.id) && !rules.pinnedStart.has(n.id));
  const middle = nodes.filter((n) => !first.includes(n) && !last.includes(n)).sort((a, b) => a.start - b.start || a.end - b.end);
  const order = [...first, ...middle, ...last];
  let cursor = lo;
  for (const n of order) {
    n.start = rules.pinnedStart.has(n.id) && n.kind === 'pair' ? lo : Math.min(Math.max(n.start, cursor), hi);
    if (n.kind === 'empty') n.end = n.start;
    else n.end = rules.pinnedEnd.has(n.id) ? hi : Math.min(Math.max(n.end, n.start), hi);
    cursor = n.end;
  }
  nodes.splice(0, nodes.length, ...order);
  if (!parentHolds) {
    // Text between (or around) the runs of a level that cannot hold text joins the run before it (or the first run);
    // a blank joins the run that had the blank in the source.
    const pairs = order.filter((n) => n.kind === 'pair');
    pairs.forEach((p, i) => {
      if (i === 0) p.start = lo;
      const next = pairs[i + 1];
      if (!next) p.end = hi;
      else if (text.slice(p.end, next.start).trim() === '') {
        if (facts.leadingBlank.has(next.id) && !facts.trailingBlank.has(p.id)) next.start = p.end;
        else p.end = next.start;
      } else if ((facts.length.get(next.id) ?? 0) > (facts.length.get(p.id) ?? 0)) next.start = p.end;
      else p.end = next.start;
    });
  }
  for (const n of order) if (n.kind === 'pair') arrange(n.children, n.start, n.end, rules.holdsText(n.id), rules, facts, text);
}

const blank = (c: string | undefined) => c !== undefined && /\s/u.test(c);

/**
 * Empty tags that stand for content (page numbers, variables, cross-references) keep their place at the start of a
 * paragraph and the blanks around them, which the engine's placeholder handling may have moved or merged.
 */
export function keepBlanksAroundAtoms(source: TaggedText, out: TaggedText, isAtom: (id: number) => boolean): TaggedText {
  let text = out.text;
  const marks = out.marks.map((m) => ({ ...m }));
  for (const sm of source.marks) {
    if (sm.kind !== 'empty' || !isAtom(sm.id)) continue;
    const k = marks.findIndex((m) => m.id === sm.id && m.kind === 'empty');
    const om = marks[k];
    if (!om) continue;
    if (source.text.slice(0, sm.pos).trim() === '' && text.slice(0, om.pos).trim() === '') om.pos = 0;
    else if (blank(source.text[sm.pos - 1]) && blank(source.text[sm.pos]) && blank(text[om.pos - 1]) && !blank(text[om.pos]) && om.pos < text.length) {
      text = `${text.slice(0, om.pos)} ${text.slice(om.pos)}`;
      for (let j = k + 1; j < marks.length; j++) if (marks[j]!.pos >= om.pos) marks[j]!.pos++;
    }
  }
  return { text, marks };
}
