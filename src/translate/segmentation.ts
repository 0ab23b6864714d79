// Splits a text into engine segments per split_sentences and puts the engine output back into the text's layout.
import { segment as sentencexSegment } from 'sentencex';
import type { SplitSentences } from './translate-job.js';

/**
 * sentencex slows down superlinearly (40k characters: ~140 ms, Intl.Segmenter ~1 s) and mis-splits very long input,
 * so it runs on chunks of at most this many UTF-16 units, cut after sentence punctuation or a blank.
 */
export const SENTENCE_CHUNK = 2000;

/** Cuts text into pieces of at most `size` UTF-16 units, preferring a cut after `. ` then after a blank. Linear. */
export function chunkText(text: string, size = SENTENCE_CHUNK): string[] {
  const out: string[] = [];
  const half = Math.floor(size / 2);
  let rest = text;
  while (rest.length > size) {
    const window = rest.slice(half, size);
    let cut = -1;
    for (const m of window.matchAll(/[.!?。！？]\s+/gu)) cut = half + m.index + m[0].length;
    if (cut < 0) {
      const blank = window.search(/\s\S*$/u);
      cut = blank >= 0 ? half + blank + 1 : size;
    }
    if (/[\uD800-\uDBFF]/u.test(rest[cut - 1] ?? '')) cut--;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest) out.push(rest);
  return out;
}

/**
 * A text that is one sentence in any language: words of letters, digits, marks, commas, apostrophes and hyphens
 * between single spaces, then at most one `.`, `!` or `?` at its end. Checked against sentencex on every word prefix
 * of the FLORES sentences of 59 languages: sentencex splits off a closing quote after the stop and long runs of
 * blanks, hence none here. Anything else, and anything longer, goes to sentencex.
 */
const ONE_SENTENCE = /^[\p{L}\p{M}\p{N},'’-]+(?: [\p{L}\p{M}\p{N},'’-]+)*[.!?]?$/u;
const ONE_SENTENCE_MAX = 500;

/**
 * Sentences of a text (pieces that concatenate back to it exactly), with sentencex, which keeps abbreviations such as
 * "Dr." and "z. B." inside their sentence; a result that does not rebuild the input falls back to one piece.
 */
export function splitIntoSentences(text: string, lang: string): string[] {
  // Most requests are one short sentence: nothing to split, and sentencex's native call is skipped
  if (text.length <= ONE_SENTENCE_MAX && ONE_SENTENCE.test(text)) return [text];
  const out: string[] = [];
  for (const chunk of chunkText(text)) {
    let pieces: string[];
    try {
      pieces = sentencexSegment(lang, chunk);
    } catch {
      pieces = [chunk];
    }
    out.push(...(pieces.join('') === chunk ? pieces : [chunk]));
  }
  return out;
}

/**
 * Joins the translations of a segment's pieces (chunkText): each piece's trailing blanks, which engines may drop,
 * are restored between them, and a piece cut mid-sentence starts in its source's case, not capitalised.
 */
export function joinPieces(sources: string[], outputs: string[]): string {
  if (sources.length === 1) return outputs[0] ?? '';
  return outputs
    .map((out, i) => {
      const text = i > 0 ? matchInitialCase(sources[i]!, out, new Set()) : out;
      return i < outputs.length - 1 ? text.trimEnd() + sources[i]!.slice(sources[i]!.trimEnd().length) : text;
    })
    .join('');
}

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
 * `1`: newlines and sentence ends are segment boundaries; `nonewlines`: sentence ends only (a newline inside a sentence
 * stays in it); `0`: the whole text is one segment. With `lang` omitted, sentences are not split (only newlines for
 * `1`). Whitespace-only pieces never reach the engine.
 */
export function segmentText(text: string, mode: SplitSentences, lang?: string): SegmentedText {
  const lines = mode === '1' ? text.split(/(\r\n|\n|\r|\u2028|\u2029)/u) : [text];
  // Sentences of each line; odd indexes stay the captured newlines.
  const pieces: string[] = [];
  lines.forEach((line, i) => {
    if (i % 2 === 1 || mode === '0' || lang === undefined || !/\S/u.test(line)) {
      pieces.push(line);
      return;
    }
    splitIntoSentences(line, lang).forEach((sentence, k) => {
      if (k > 0) pieces.push(''); // empty separator between sentences of one line
      pieces.push(sentence);
    });
  });
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

/**
 * Rebuilds the text (whitespace and newlines between and around segments exactly as in the source); with
 * preserve_formatting the first letter keeps the source's case and sentence-final/bullet punctuation follows the source.
 */
export function restoreFormatting(
  segmented: SegmentedText,
  outputs: string[],
  preserveFormatting: boolean,
  keepCase: ReadonlySet<string> = new Set(),
): string {
  let out = segmented.separators[0] ?? '';
  segmented.segments.forEach((seg, i) => {
    // The segment's own blanks are restored from the source; the engine's edge blanks are not kept.
    let text = (outputs[i] ?? '').trim();
    // Apertium sometimes doubles a blank ("antes de que  empiezas"): runs of spaces the source did not have become one.
    if (!seg.core.includes('  ')) text = text.replace(/ {2,}/gu, ' ');
    if (preserveFormatting) text = matchEdgePunctuation(seg.core, matchInitialCase(seg.core, text, keepCase));
    out += seg.leading + text + seg.trailing + (segmented.separators[i + 1] ?? '');
  });
  return out;
}

/**
 * The first letter of the output takes the case of the first letter of the source (after any bullet or quote), except
 * that a glossary term (`keepCase`) starting the output is never lower-cased: its case is the glossary's.
 */
function matchInitialCase(source: string, output: string, keepCase: ReadonlySet<string>): string {
  const s = /\p{L}/u.exec(source)?.[0];
  const o = /\p{L}/u.exec(output);
  if (!s || !o || s.toLowerCase() === s.toUpperCase()) return output;
  const wantUpper = s === s.toUpperCase();
  if (!wantUpper && [...keepCase].some((t) => t !== '' && output.startsWith(t, o.index))) return output;
  return output.slice(0, o.index) + (wantUpper ? o[0].toUpperCase() : o[0].toLowerCase()) + output.slice(o.index + o[0].length);
}

const FINAL = /[.!?…。！？]$/u;
const BULLET = /^[-–—•*·]\s*/u;

/** Keeps the source's final punctuation (none added, none dropped) and a leading bullet the engine lost. */
function matchEdgePunctuation(source: string, output: string): string {
  let out = output;
  const s = FINAL.exec(source)?.[0];
  const o = FINAL.exec(out)?.[0];
  if (!s && o) out = out.slice(0, -o.length).trimEnd();
  else if (s && !o && out) out += s;
  const bullet = BULLET.exec(source)?.[0];
  if (bullet && !BULLET.test(out)) out = bullet + out;
  return out;
}
