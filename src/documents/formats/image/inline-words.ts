// A paragraph's translation as the painter lays it out: a line of text in which each unsure inline word (an empty tag
// of the markup layer) stands as one character, painted as the word's original pixels.
import type { TaggedText } from '../../../markup/index.js';
import type { InlineWord } from './paragraphs.js';

/**
 * A paragraph's translation: tagged (each empty tag an unsure word, painted as its original pixels) as the markup
 * layer gives it back, or plain text from a caller without it (an unsure word painted as the recognizer read it).
 */
export type PaintedText = string | TaggedText;

/**
 * In a line being laid out, the private-use character U+E000 + k stands for the plan's inline word k, and wraps and
 * measures as one character. The translation's own private-use characters are dropped: the face has no glyph for them.
 */
const SLOT = 0xe000;
const PRIVATE_USE = /[\uE000-\uF8FF]/gu;

/** The translation as a line to lay out: each empty tag a slot character; tags of no inline word are dropped. */
export function slotted(t: PaintedText, inline: readonly InlineWord[]): string {
  if (typeof t === 'string') return t.replace(PRIVATE_USE, '');
  let out = '';
  let at = 0;
  for (const m of t.marks) {
    out += t.text.slice(at, m.pos).replace(PRIVATE_USE, '') + (m.kind === 'empty' && m.id < inline.length ? String.fromCharCode(SLOT + m.id) : '');
    at = m.pos;
  }
  return out + t.text.slice(at).replace(PRIVATE_USE, '');
}

/** The inline word a character stands for, if it is a slot. */
const slotWord = (ch: string, inline: readonly InlineWord[]) => inline[ch.charCodeAt(0) - SLOT];

/** A line cut into text and inline words, in order. */
export function pieces(line: string, inline: readonly InlineWord[]): (string | InlineWord)[] {
  const out: (string | InlineWord)[] = [];
  let text = '';
  for (const ch of line) {
    const word = slotWord(ch, inline);
    if (word === undefined) text += ch;
    else {
      if (text !== '') out.push(text);
      out.push(word);
      text = '';
    }
  }
  if (text !== '') out.push(text);
  return out;
}

/** A laid-out line as text, each inline word as it was read. */
export const readLine = (line: string, inline: readonly InlineWord[]) => pieces(line, inline).map((p) => (typeof p === 'string' ? p : p.text)).join('');

/** A translation as plain text, each inline word's tag as the word was read (an invisible text layer shows it so). */
export const readText = (t: PaintedText, inline: readonly InlineWord[]): string => readLine(slotted(t, inline), inline);

