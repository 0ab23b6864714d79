// Formats whose text must always sit inside a formatting run (IDML character ranges, MIF font spans) fix up the inline
// tags the markup layer placed on a translation: only formatted runs are placed by the engine pass, runs whose tag
// lies outside the rewritten region stay pinned to its edges, and plain runs take the text left between the others.
import { markTree, treeMarks, type MarkNode, type TaggedText, type TagMark } from '../../markup/tagged-text.js';

export interface RunRules {
  /** Pairs whose open tag lies before the region: they must start at the region's start (first among siblings). */
  pinnedStart: ReadonlySet<number>;
  /** Pairs whose close tag lies after the region: they must end at the region's end (last among siblings). */
  pinnedEnd: ReadonlySet<number>;
  /** Pairs that may hold text directly; text directly inside any other pair (or at top level) is absorbed. */
  holdsText(id: number): boolean;
  /** Runs in the paragraph's own formatting (no character style, no overrides). */
  plain?(id: number): boolean;
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

/**
 * Top-level runs the engine is not asked to place: pinned runs (their place is fixed) and plain runs (the paragraph's
 * own formatting). Long plain runs located by fuzzy matching would push the formatted runs off their words; instead
 * they take the text the formatted runs leave.
 */
function unsentRuns(source: TaggedText, rules: RunRules): MarkNode[] {
  return markTree(source.marks).filter(
    (n) => n.kind === 'pair' && (rules.pinnedStart.has(n.id) || rules.pinnedEnd.has(n.id) || (rules.plain?.(n.id) ?? false)),
  );
}

/** The unit sent for translation: without the tags of unsent runs. */
export function withoutRuns(source: TaggedText, rules: RunRules): TaggedText {
  const ids = new Set(unsentRuns(source, rules).map((n) => n.id));
  return { text: source.text, marks: source.marks.filter((m) => !ids.has(m.id)) };
}

/**
 * Puts the unsent runs back into a translation of `withoutRuns(source)`, as empty runs that the arrangement then
 * grows over the text around them: a start-pinned run first, an end-pinned run last, any other one right after the
 * tag that preceded it in the source. Tags inside an unsent run (a page number in plain text) stay inside it.
 */
export function restoreRuns(out: TaggedText, source: TaggedText, rules: RunRules): TaggedText {
  const tree = markTree(source.marks);
  const unsent = new Set(unsentRuns(source, rules).map((n) => n.id));
  const owner = new Map<number, number>();
  const anchorOf = new Map<number, number | undefined>();
  let previous: number | undefined;
  for (const n of tree) {
    if (unsent.has(n.id)) {
      walk(n.children, (d) => owner.set(d.id, n.id));
      anchorOf.set(n.id, previous);
    } else previous = n.id;
  }
  const blocks: TagMark[][] = [];
  let depth = 0;
  for (const m of out.marks) {
    if (depth === 0) blocks.push([]);
    blocks[blocks.length - 1]!.push(m);
    depth += m.kind === 'open' ? 1 : m.kind === 'close' ? -1 : 0;
  }
  const owned = new Map<number, TagMark[]>();
  const free: TagMark[][] = [];
  for (const b of blocks) {
    const o = owner.get(b[0]!.id);
    if (o === undefined) free.push(b);
    else {
      let list = owned.get(o);
      if (!list) owned.set(o, (list = []));
      list.push(...b);
    }
  }
  const marks: TagMark[] = [];
  const emit = (id: number, pos: number) => marks.push({ id, kind: 'open', pos }, ...(owned.get(id) ?? []), { id, kind: 'close', pos });
  const runs = tree.filter((n) => unsent.has(n.id)).map((n) => n.id);
  const isEnd = (id: number) => rules.pinnedEnd.has(id) && !rules.pinnedStart.has(id);
  for (const id of runs) if (!isEnd(id) && (rules.pinnedStart.has(id) || anchorOf.get(id) === undefined)) emit(id, 0);
  // The runs that follow each tag, found by lookup rather than by scanning every run per tag (quadratic).
  const following = new Map<number, number[]>();
  for (const id of runs) {
    const anchor = anchorOf.get(id);
    if (anchor === undefined || isEnd(id) || rules.pinnedStart.has(id)) continue;
    let list = following.get(anchor);
    if (!list) following.set(anchor, (list = []));
    list.push(id);
  }
  let pos = 0;
  for (const b of free) {
    marks.push(...b);
    pos = b[b.length - 1]!.pos;
    for (const id of following.get(b[0]!.id) ?? []) emit(id, pos);
  }
  for (const id of runs) if (isEnd(id)) emit(id, pos);
  return { text: out.text, marks };
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
