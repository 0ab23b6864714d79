// SubRip subtitles: a small block rewriter. Only cue text lines change; numbering, timing (with any coordinates),
// blank lines, stray lines and line endings (CRLF or LF) are copied byte for byte.
import { countCodePoints, decodeText, DocumentFormatError, type DocumentFormat, type ExtractedDocument } from './format.js';
import { protect, SRT_PLACEHOLDERS, type Protected } from './placeholders.js';

const TIMING = /^\s*\d{1,3}:\d{2}:\d{2}[,.]\d{1,3}\s*-->\s*\d{1,3}:\d{2}:\d{2}[,.]\d{1,3}/;
const INDEX = /^\s*\d+\s*$/;

interface Line {
  content: string;
  eol: string;
}

/** A speaker's dash opening a cue line ("- What you doing?"); not a minus before a number, not a second dash. */
const SPEAKER_DASH = /^[-‐–—]\s*(?=[^\s\d‐–—-])/u;

/**
 * One translated piece of a cue: the whole cue, or one speaker's lines when the cue holds a dialogue. A speaker's
 * dash is kept out of the engine's text and put back at the start of the speaker's first line.
 */
interface Cue {
  /** Indexes of the piece's text lines in `lines`. */
  lineIndexes: number[];
  /** The speaker's dash with its blank, as written ('' for none). */
  dash: string;
  protectedText: Protected;
  source: string;
}

/** Splits a cue's lines into speakers: a new piece starts at each line opening with a dash. */
function speakers(lines: Line[], lineIndexes: number[]): Cue[] {
  const pieces: { lineIndexes: number[]; dash: string; texts: string[] }[] = [];
  for (const k of lineIndexes) {
    const text = lines[k]!.content.trim();
    const dash = SPEAKER_DASH.exec(text)?.[0];
    const last = pieces[pieces.length - 1];
    if (dash === undefined && last) {
      last.lineIndexes.push(k);
      last.texts.push(text);
    } else pieces.push({ lineIndexes: [k], dash: dash ?? '', texts: [text.slice(dash?.length ?? 0)] });
  }
  return pieces.map(({ lineIndexes: own, dash, texts }) => {
    const source = texts.join(' ');
    return { lineIndexes: own, dash, source, protectedText: protect(source, SRT_PLACEHOLDERS) };
  });
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  const re = /([^\r\n]*)(\r\n|\n|\r|$)/g;
  for (const m of text.matchAll(re)) {
    if (m[0] === '' && m.index === text.length) break;
    lines.push({ content: m[1]!, eol: m[2]! });
  }
  return lines;
}

/** Breaks a translated cue back into `count` lines of similar length at spaces (linear in the words). */
export function reflow(text: string, count: number): string[] {
  if (count <= 1) return [text];
  const words = text.split(/ +/).filter(Boolean);
  const lines: string[] = [];
  let from = 0;
  // Length of the words not placed yet, joined by single spaces: kept up to date rather than joined again per line.
  let remaining = words.reduce((n, w) => n + w.length, 0) + Math.max(0, words.length - 1);
  for (let k = count; k > 1 && from < words.length; k--) {
    const goal = remaining / k;
    const left = words.length - from;
    let taken = 0;
    let length = 0;
    // take words while the line stays closer to its share than without the next word
    while (taken < left - (k - 1) && (taken === 0 || Math.abs(length + 1 + words[from + taken]!.length - goal) < Math.abs(length - goal))) {
      length += (taken === 0 ? 0 : 1) + words[from + taken]!.length;
      taken++;
    }
    if (taken === 0) break;
    lines.push(words.slice(from, from + taken).join(' '));
    from += taken;
    remaining -= length + (from < words.length ? 1 : 0);
  }
  if (from < words.length) lines.push(words.slice(from).join(' '));
  while (lines.length < count) lines.push('');
  return lines;
}

export const srtFormat: DocumentFormat = {
  id: 'srt',
  extensions: ['srt'],
  contentType: 'application/x-subrip; charset=utf-8',
  maxBytes: 10 * 1024 * 1024,
  minimumBilledCharacters: 0,
  extract(input: Buffer): ExtractedDocument {
    const { text, encode } = decodeText(input, 'srt');
    const lines = splitLines(text);
    const cues: Cue[] = [];
    let sawTiming = false;
    let i = 0;
    while (i < lines.length) {
      let j = i;
      if (INDEX.test(lines[j]!.content) && j + 1 < lines.length && TIMING.test(lines[j + 1]!.content)) j += 2;
      else if (TIMING.test(lines[j]!.content)) j += 1;
      else {
        i++;
        continue;
      }
      sawTiming = true;
      const lineIndexes: number[] = [];
      while (j < lines.length && lines[j]!.content.trim() !== '') lineIndexes.push(j++);
      if (lineIndexes.length > 0) cues.push(...speakers(lines, lineIndexes));
      i = j;
    }
    if (!sawTiming && text.trim() !== '') throw new DocumentFormatError('The srt file contains no subtitle cues.');
    return {
      segments: cues.map((c) => ({ text: c.protectedText.text, kind: 'text' as const })),
      characters: cues.reduce((n, c) => n + countCodePoints(c.source), 0),
      rebuild(translations) {
        const out = lines.map((l) => l.content);
        cues.forEach((cue, n) => {
          const translated = translations[n] === undefined ? cue.source : cue.protectedText.restore(translations[n]!.replace(/\s+/g, ' ').trim());
          const parts = reflow(translated, cue.lineIndexes.length);
          cue.lineIndexes.forEach((k, m) => {
            const indent = /^\s*/.exec(lines[k]!.content)![0];
            out[k] = indent + (m === 0 ? cue.dash : '') + parts[m]!;
          });
        });
        return encode(out.map((content, k) => content + lines[k]!.eol).join(''));
      },
    };
  },
};
