// Splits a text into engine segments per split_sentences and puts the engine output back into the text's layout.
import type { SplitSentences } from './translate-request.js';

export interface Segment {
  /** Whitespace around the segment, kept verbatim (engines may trim or normalise it). */
  leading: string;
  core: string;
  trailing: string;
}

export interface SegmentedText {
  /** Text between segments (newlines for split_sentences=1), so that text = gaps[0] + seg0 + gaps[1] + seg1 + … */
  separators: string[];
  segments: Segment[];
}

function splitWhitespace(s: string): Segment {
  const m = /^(\s*)([\s\S]*?)(\s*)$/u.exec(s)!;
  return { leading: m[1]!, core: m[2]!, trailing: m[3]! };
}

/**
 * `1`: newlines are segment boundaries (each line translated on its own); `nonewlines` and `0`: the whole text is one
 * segment and the engine's own sentence handling applies. Whitespace-only pieces never reach the engine.
 */
export function segmentText(text: string, mode: SplitSentences): SegmentedText {
  const pieces = mode === '1' ? text.split(/(\r\n|\n|\r|\u2028|\u2029)/u) : [text];
  const separators: string[] = [];
  const segments: Segment[] = [];
  let pendingSeparator = '';
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    if (i % 2 === 1) {
      pendingSeparator += piece; // a newline captured by split
      continue;
    }
    const seg = splitWhitespace(piece);
    if (seg.core === '') {
      pendingSeparator += piece;
      continue;
    }
    separators.push(pendingSeparator);
    pendingSeparator = '';
    segments.push(seg);
  }
  separators.push(pendingSeparator);
  return { separators, segments };
}

/** Rebuilds the text; with preserve_formatting the first letter keeps the source's case. */
export function restoreFormatting(segmented: SegmentedText, outputs: string[], preserveFormatting: boolean): string {
  let out = segmented.separators[0] ?? '';
  segmented.segments.forEach((seg, i) => {
    let text = outputs[i] ?? '';
    if (preserveFormatting) text = matchInitialCase(seg.core, text);
    out += seg.leading + text + seg.trailing + (segmented.separators[i + 1] ?? '');
  });
  return out;
}

function matchInitialCase(source: string, output: string): string {
  const s = source.charAt(0);
  const o = output.charAt(0);
  if (!s || !o || s.toLowerCase() === s.toUpperCase()) return output;
  const wantUpper = s === s.toUpperCase();
  return (wantUpper ? o.toUpperCase() : o.toLowerCase()) + output.slice(1);
}
