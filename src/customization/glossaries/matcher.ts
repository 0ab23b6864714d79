// Aho–Corasick multi-pattern matcher over glossary sources: one pass over the text finds every term, whatever the
// dictionary size (a 10 MiB dictionary is matched in time linear in the text, not in the number of terms).
import type { GlossaryEntry } from './entries.js';

export interface TermMatch {
  start: number;
  end: number;
  /** Index of the matched entry in the entries the matcher was built from. */
  entry: number;
}

/** Lower-cases one UTF-16 unit at a time so that offsets in the folded text equal offsets in the original. */
export function foldCase(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const l = c.toLowerCase();
    out += l.length === 1 ? l : c;
  }
  return out;
}

const WORD = /[\p{L}\p{N}_]/u;
/** Scripts written without spaces: terms in them match without word boundaries. */
const UNSPACED = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\u0e00-\u0e7f\uac00-\ud7af]/u;

function isBoundary(text: string, i: number, inner: string): boolean {
  const c = text[i];
  if (c === undefined) return true;
  if (UNSPACED.test(c) || UNSPACED.test(inner)) return true;
  return !WORD.test(c);
}

/**
 * Trie edges (node, UTF-16 unit) → child in an open-addressing hash table over typed arrays: millions of edges of a
 * 10 MiB dictionary stay compact and never become heap-allocated Map keys.
 */
class EdgeTable {
  private nodes = new Int32Array(1024).fill(-1);
  private chars = new Uint16Array(1024);
  private children = new Int32Array(1024);
  private mask = 1023;
  private size = 0;

  private slot(node: number, ch: number): number {
    let h = (Math.imul(node, 0x9e3779b1) ^ Math.imul(ch + 1, 0x85ebca77)) >>> 0;
    h ^= h >>> 15;
    let i = h & this.mask;
    while (this.nodes[i] !== -1 && (this.nodes[i] !== node || this.chars[i] !== ch)) i = (i + 1) & this.mask;
    return i;
  }

  get(node: number, ch: number): number | undefined {
    const i = this.slot(node, ch);
    return this.nodes[i] === -1 ? undefined : this.children[i];
  }

  set(node: number, ch: number, child: number): void {
    if ((this.size + 1) * 2 > this.mask + 1) this.grow();
    const i = this.slot(node, ch);
    if (this.nodes[i] === -1) this.size++;
    this.nodes[i] = node;
    this.chars[i] = ch;
    this.children[i] = child;
  }

  private grow(): void {
    const [nodes, chars, children] = [this.nodes, this.chars, this.children];
    const cap = nodes.length * 2;
    this.nodes = new Int32Array(cap).fill(-1);
    this.chars = new Uint16Array(cap);
    this.children = new Int32Array(cap);
    this.mask = cap - 1;
    for (let i = 0; i < nodes.length; i++) {
      if (nodes[i] === -1) continue;
      const j = this.slot(nodes[i]!, chars[i]!);
      this.nodes[j] = nodes[i]!;
      this.chars[j] = chars[i]!;
      this.children[j] = children[i]!;
    }
  }
}

export class GlossaryMatcher {
  private readonly edges = new EdgeTable();
  private readonly firstChild: number[] = [-1];
  private readonly nextSibling: number[] = [-1];
  private readonly fail: number[] = [0];
  /** Entry ids ending at a node (several when sources differ only in case). */
  private readonly terminal: (number[] | undefined)[] = [undefined];
  /** Nearest node on the fail chain that is terminal (-1: none). */
  private readonly dictLink: number[] = [-1];
  private readonly depth: number[] = [0];

  constructor(readonly entries: readonly GlossaryEntry[]) {
    entries.forEach((e, id) => this.insert(foldCase(e.source), id));
    this.link();
  }

  get nodeCount(): number {
    return this.depth.length;
  }

  private insert(term: string, id: number): void {
    let node = 0;
    for (let i = 0; i < term.length; i++) {
      const ch = term.charCodeAt(i);
      let child = this.edges.get(node, ch);
      if (child === undefined) {
        child = this.depth.length;
        this.edges.set(node, ch, child);
        this.firstChild.push(-1);
        this.nextSibling.push(this.firstChild[node]!);
        this.firstChild[node] = child;
        this.fail.push(0);
        this.terminal.push(undefined);
        this.dictLink.push(-1);
        this.depth.push(this.depth[node]! + 1);
        this.charOf.push(term.charCodeAt(i));
      }
      node = child;
    }
    (this.terminal[node] ??= []).push(id);
  }

  private readonly charOf: number[] = [0];

  /** Breadth-first failure links. */
  private link(): void {
    const queue: number[] = [];
    for (let c = this.firstChild[0]!; c !== -1; c = this.nextSibling[c]!) queue.push(c);
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]!;
      for (let child = this.firstChild[node]!; child !== -1; child = this.nextSibling[child]!) {
        const ch = this.charOf[child]!;
        let f = this.fail[node]!;
        let target = this.edges.get(f, ch);
        while (target === undefined && f !== 0) {
          f = this.fail[f]!;
          target = this.edges.get(f, ch);
        }
        const fl = target !== undefined && target !== child ? target : 0;
        this.fail[child] = fl;
        this.dictLink[child] = this.terminal[fl] ? fl : this.dictLink[fl]!;
        queue.push(child);
      }
    }
  }

  /** Chooses among entries whose sources fold to the same text: the exact-case source first, else a lower-case
   *  (generic) source, which matches any capitalisation; sources with capitals (names) match only exactly. */
  private pick(ids: number[], original: string): number | undefined {
    let generic: number | undefined;
    for (const id of ids) {
      const src = this.entries[id]!.source;
      if (src === original) return id;
      if (generic === undefined && src === foldCase(src)) generic = id;
    }
    return generic;
  }

  /** All whole-word matches, leftmost first, longest at each position, without overlaps. */
  find(text: string): TermMatch[] {
    const folded = foldCase(text);
    const found: TermMatch[] = [];
    let node = 0;
    for (let i = 0; i < folded.length; i++) {
      const ch = folded.charCodeAt(i);
      let next = this.edges.get(node, ch);
      while (next === undefined && node !== 0) {
        node = this.fail[node]!;
        next = this.edges.get(node, ch);
      }
      node = next ?? 0;
      for (let t = this.terminal[node] ? node : this.dictLink[node]!; t !== -1; t = this.dictLink[t]!) {
        const end = i + 1;
        const start = end - this.depth[t]!;
        if (!isBoundary(text, start - 1, text[start]!) || !isBoundary(text, end, text[end - 1]!)) continue;
        const entry = this.pick(this.terminal[t]!, text.slice(start, end));
        if (entry !== undefined) found.push({ start, end, entry });
      }
    }
    found.sort((a, b) => a.start - b.start || b.end - a.end);
    const chosen: TermMatch[] = [];
    let covered = 0;
    for (const m of found) {
      if (m.start < covered) continue;
      chosen.push(m);
      covered = m.end;
    }
    return chosen;
  }
}

/** The baseline the benchmark compares against: try every term at every word start. */
export function naiveFind(entries: readonly GlossaryEntry[], text: string, foldedSources = entries.map((e) => foldCase(e.source))): TermMatch[] {
  const folded = foldCase(text);
  const out: TermMatch[] = [];
  let covered = 0;
  for (let i = 0; i < folded.length; i++) {
    if (i < covered || !isBoundary(text, i - 1, text[i] ?? '')) continue;
    let best: TermMatch | undefined;
    foldedSources.forEach((s, id) => {
      if (folded.startsWith(s, i) && isBoundary(text, i + s.length, s[s.length - 1]!) && (!best || s.length > best.end - best.start)) {
        best = { start: i, end: i + s.length, entry: id };
      }
    });
    if (best) {
      out.push(best);
      covered = best.end;
    }
  }
  return out;
}
