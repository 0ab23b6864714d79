// Turns plain text into Apertium's stream format and back (what apertium-destxt/-retxt do), without spawning them.

/** Characters that are syntax in the Apertium stream; destxt backslash-escapes them. `*` and `#` are escaped too so user text is never taken for a mark. */
const SPECIAL = new Set(['\\', '[', ']', '^', '$', '/', '@', '<', '>', '{', '}', '*', '#']);
/** Characters that must travel as format (inside a superblank) or the pipeline eats them: newlines and `~` (the generator's join marker). */
const FORMAT = new Set(['\n', '\r', '\t', '\f', '\v', '~']);
const SENTENCE_END = '.[]';

/** Leading/trailing whitespace split off so it can be restored exactly (the pipeline moves and trims blanks at the edges). */
export function splitEdges(text: string): { lead: string; core: string; trail: string } {
  const core = text.trim();
  if (!core) return { lead: text, core: '', trail: '' };
  const start = text.indexOf(core);
  return { lead: text.slice(0, start), core, trail: text.slice(start + core.length) };
}

/**
 * Deformats one block: escapes stream syntax, wraps line breaks/`~` in superblanks (with a `.[]` sentence end
 * before paragraph breaks, like apertium-destxt), and ends the block with `.[]` so the last sentence is closed
 * and its final punctuation survives. NUL characters are removed (they are the flush marker).
 */
export function deformat(core: string): string {
  let out = '';
  let blank = '';
  const flushBlank = () => {
    if (!blank) return;
    if ((blank.match(/\n/g) ?? []).length >= 2) out += SENTENCE_END;
    out += `[${blank}]`;
    blank = '';
  };
  for (const c of core) {
    if (c === '\0') continue;
    if (FORMAT.has(c)) {
      blank += c;
      continue;
    }
    flushBlank();
    out += SPECIAL.has(c) ? `\\${c}` : c;
  }
  flushBlank();
  // some analysers (sv, nb, da) read a number or abbreviation and its period as one token ("1979."), which would glue
  // our end mark to it and lose the text's own period: an empty superblank keeps them apart
  return out + (out.endsWith('.') && !out.endsWith('\\.') ? '[]' : '') + SENTENCE_END;
}

/** Reformats pipeline output: drops our `.[]` sentence ends, opens superblanks, unescapes, removes NULs. */
export function reformat(stream: string): string {
  let out = '';
  for (let i = 0; i < stream.length; i++) {
    const c = stream[i]!;
    if (c === '\\' && i + 1 < stream.length) {
      out += stream[++i];
    } else if (c === '.' && stream[i + 1] === '[' && stream[i + 2] === ']') {
      // "X.[].[]": the text's own period, kept apart from our end mark by an empty superblank (see deformat)
      if (stream.startsWith('.[]', i + 3)) out += c;
      i += 2;
    } else if (c === '[' || c === ']' || c === '\0') {
      // superblank delimiters: keep their content, drop the brackets
    } else {
      out += c;
    }
  }
  return out;
}

/** Mark characters Apertium prefixes to unknown (`*`), ungenerated (`#`) and untranslated (`@`) words. */
const MARKS = ['*', '#', '@'] as const;

/**
 * Safety net behind `-n` generation: removes word-initial `*`/`#`/`@` marks, but only for a mark character
 * the source text did not contain at all (so user text like "C# or *important*" is left alone).
 */
export function stripMarks(output: string, source: string): string {
  let out = output;
  for (const m of MARKS) {
    if (!out.includes(m) || source.includes(m)) continue;
    const re = new RegExp(`(^|[\\s\\p{P}\\p{S}])[${m}]+(?=[\\p{L}\\p{N}])`, 'gu');
    out = out.replace(re, '$1');
  }
  return out;
}

/**
 * A block cut from a sentence's middle comes back capitalised as if a sentence started there: its first letter is
 * lower-cased again when the source's was lower case.
 */
export function lowerFirstLikeSource(source: string, output: string): string {
  const s = /\p{L}/u.exec(source)?.[0];
  const o = /\p{L}/u.exec(output);
  if (!s || !o || s !== s.toLowerCase() || o[0] === o[0].toLowerCase()) return output;
  return output.slice(0, o.index) + o[0].toLowerCase() + output.slice(o.index + 1);
}

/** Linux PIPE_BUF; blocks are kept below it so one write never interleaves or stalls a stage. */
export const PIPE_BUF = 4096;

/**
 * Splits text into chunks of at most `maxBytes` UTF-8 bytes, preferring to cut after a sentence end, then after
 * whitespace, in the second half of the window (as apertium-apy's split_for_translation does).
 */
export function splitForPipe(text: string, maxBytes = PIPE_BUF - 512): string[] {
  if (Buffer.byteLength(text) <= maxBytes) return [text];
  const chunks: string[] = [];
  let rest = text;
  while (Buffer.byteLength(rest) > maxBytes) {
    // largest prefix (in chars) that fits maxBytes
    let hard = Math.min(rest.length, maxBytes);
    while (hard > 0 && Buffer.byteLength(rest.slice(0, hard)) > maxBytes) hard = Math.floor(hard * 0.9);
    // avoid cutting a surrogate pair
    if (hard > 0 && /[\uD800-\uDBFF]/.test(rest[hard - 1]!)) hard--;
    const soft = Math.floor(hard / 2);
    const window = rest.slice(soft, hard);
    let cut = -1;
    const sentence = /[.!?…。！？]\s+/g;
    for (let m = sentence.exec(window); m; m = sentence.exec(window)) cut = soft + m.index + m[0].length;
    if (cut < 0) {
      const space = window.search(/\s\S*$/);
      if (space >= 0) cut = soft + space + 1;
    }
    if (cut <= 0) cut = Math.max(1, hard);
    chunks.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest) chunks.push(rest);
  return chunks;
}
