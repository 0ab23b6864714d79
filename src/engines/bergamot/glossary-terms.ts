// Glossary terms through a Marian model: each source term goes in as an HTML element around its own words, which the
// runtime's HTML mode carries to the target words aligned with them (the model sees the real sentence, and no tag is
// ever dropped); the element's words are then replaced by the glossary's target term. A term whose element did not
// come back is reported, so the caller can recover it.
import { parseFragment } from 'parse5';
import type { DefaultTreeAdapterMap } from 'parse5';

type Node = DefaultTreeAdapterMap['childNode'];

const ID_PREFIX = 'tolk-term-';
const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);

export interface MarkedSegment {
  /** The segment as HTML, each term occurrence in an element of its own. */
  html: string;
  /** Target term of each element, by element number. */
  targets: string[];
  /** The segment cut at its terms: text, term number, text, … (for recovery without the model's help). */
  pieces: (string | number)[];
}

/**
 * Marks the occurrences of the glossary's source terms in a segment (whole words, case-insensitive, longest term
 * first, no overlaps); undefined when none occurs.
 */
export function markTerms(segment: string, glossary: readonly { source: string; target: string }[]): MarkedSegment | undefined {
  const lower = segment.toLowerCase();
  const spans: { start: number; end: number; target: string }[] = [];
  for (const term of [...glossary].filter((t) => t.source.trim() !== '').sort((a, b) => b.source.length - a.source.length)) {
    const needle = term.source.toLowerCase();
    for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) {
      const end = at + needle.length;
      if (isWordChar(segment[at - 1]) || isWordChar(segment[end])) continue;
      if (spans.some((s) => at < s.end && end > s.start)) continue;
      spans.push({ start: at, end, target: term.target });
    }
  }
  if (spans.length === 0) return undefined;
  spans.sort((a, b) => a.start - b.start);
  let html = '';
  let last = 0;
  const pieces: (string | number)[] = [];
  spans.forEach((s, n) => {
    html += `${escapeText(segment.slice(last, s.start))}<span id="${ID_PREFIX}${n}">${escapeText(segment.slice(s.start, s.end))}</span>`;
    pieces.push(segment.slice(last, s.start), n);
    last = s.end;
  });
  html += escapeText(segment.slice(last));
  pieces.push(segment.slice(last));
  return { html, targets: spans.map((s) => s.target), pieces };
}

/**
 * The translation as plain text with each term element's words replaced by its target term (a term split over
 * several elements is put in the first, the others' words dropped). `lost` lists the terms with no element.
 */
export function placeTerms(html: string, targets: readonly string[]): { text: string; lost: number[] } {
  const placed = new Set<number>();
  let text = '';
  let afterTerm = false;
  const walk = (nodes: Node[]): void => {
    for (const node of nodes) {
      if (node.nodeName === '#text') {
        const value = (node as DefaultTreeAdapterMap['textNode']).value;
        // The term stands as a word of its own, whatever the model glued to its element.
        text += (afterTerm && isWordChar(value[0]) ? ' ' : '') + value;
        afterTerm = false;
      } else if ('childNodes' in node) {
        const id = 'attrs' in node ? node.attrs.find((a) => a.name === 'id')?.value : undefined;
        const n = id?.startsWith(ID_PREFIX) ? Number(id.slice(ID_PREFIX.length)) : NaN;
        if (Number.isInteger(n) && n >= 0 && n < targets.length) {
          if (placed.has(n)) continue;
          placed.add(n);
          text += (isWordChar(text.at(-1)) ? ' ' : '') + targets[n];
          afterTerm = true;
        } else walk(node.childNodes);
      }
    }
  };
  walk(parseFragment(html).childNodes);
  const lost = targets.map((_, n) => n).filter((n) => !placed.has(n));
  return { text: text.replace(/ {2,}/g, ' ').trim(), lost };
}

/**
 * Recovery of segments whose terms the model lost: the text between the terms is translated on its own (one call for
 * every segment) and the target terms put between the pieces, so a term is never dropped.
 */
export async function translateAround(segments: readonly MarkedSegment[], translate: (texts: string[]) => Promise<string[]>): Promise<string[]> {
  const texts = segments.flatMap((m) => m.pieces.filter((p): p is string => typeof p === 'string' && p.trim() !== ''));
  const done = await translate(texts);
  let k = 0;
  return segments.map((m) =>
    m.pieces
      .map((p) => (typeof p === 'number' ? m.targets[p]! : p.trim() === '' ? '' : done[k++]!.trim()))
      .filter((p) => p !== '')
      .join(' '),
  );
}
