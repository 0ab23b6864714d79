// An OOXML part read and rendered window by window: the kept roots (paragraphs) of `windowChars` of source at a time
// are planned (ooxml-text.ts), translated and rendered, then dropped, so what a part holds beyond its source and
// output follows the window, not the part.
import type { TaggedText } from '../../markup/index.js';
import { planRoots, isKept } from './ooxml-text.js';
import { PartReader } from './ooxml-xml.js';

/** One window of a part: the units of a run of its paragraphs, rendered once translated. */
export interface PartWindow {
  units: TaggedText[];
  /** Per unit, the positions of its line breaks: the lines are translated apart (see lineRanges). */
  lineBreaks: number[][];
  /** Source characters the window covers. */
  size: number;
  /** Renders the window with one translated unit per unit (once, in the part's order). */
  render(outputs: TaggedText[]): void;
}

/**
 * A part read and rendered window by window (`windowChars` of source at a time): only one window's element trees and
 * paragraph plans are held, so memory follows the window, not the part (a part of 180,000 paragraphs is otherwise
 * ~25× its size in trees and plans).
 */
export interface PartStream {
  /** The next window, or undefined once the part was read. */
  next(): PartWindow | undefined;
  /** True for a Word main document, where finish's `append` adds a paragraph at the end of the body (once read). */
  readonly hasBody: boolean;
  /** The rendered part, every window rendered; `append` is inserted at the end of a Word body. */
  finish(append?: (prefix: string) => string): string;
}

/** Reads a part window by window; throws DocumentFormatError for malformed XML. */
export function streamPart(source: string, what: string, targetLang: string | undefined, windowChars: number): PartStream {
  const reader = new PartReader(source, isKept, what);
  const rendered: string[] = [];
  /** Where the last window handed out ends (the end of its last root). */
  let to = 0;
  return {
    next() {
      while (!reader.done) {
        const roots = reader.read(windowChars);
        if (roots.length === 0) continue;
        const from = to;
        to = roots[roots.length - 1]!.end;
        const plan = planRoots(source, roots, targetLang);
        const index = rendered.length;
        rendered.push('');
        return { units: plan.units, lineBreaks: plan.lineBreaks, size: to - from, render: (outs) => void (rendered[index] = plan.render(outs, from)) };
      }
      return undefined;
    },
    get hasBody() {
      return reader.bodyEnd !== undefined;
    },
    finish(append) {
      const bodyEnd = reader.bodyEnd;
      // the body's end follows its last paragraph (a body's sectPr comes last)
      const at = append && bodyEnd ? Math.max(bodyEnd.at, to) : source.length;
      const extra = append && bodyEnd ? append(bodyEnd.prefix) : '';
      return rendered.join('') + source.slice(to, at) + extra + source.slice(at);
    },
  };
}

