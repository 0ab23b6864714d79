// Repeated text ("Hello world. " × 2000) is detected on one copy of its content: the n-gram statistics of a repeat
// otherwise weigh its few words as if they were a whole text.

/** Characters of a text looked at for repeats (a repeated unit may be longer than what is analysed). */
const REPEAT_SCAN_CHARS = 20_000;

/** Text shorter than this is taken as it is (see distinctContent). */
const REPEAT_MIN_CHARS = 64;

/** A sentence or line with its end: the unit of repetition in running text. */
const SENTENCE = /[^.!?…。！？\n]*(?:[.!?…。！？\n]+|$)/gu;

/**
 * The text with its repeats taken out: text mostly made of repeated sentences or lines keeps each once, in order;
 * then text that is one unit over and over without sentence ends ("the <b>cat</b>" × 7000) is cut to that unit (its
 * shortest period, by the prefix function). Text without repeats comes back unchanged. Linear in the length.
 */
export function distinctContent(text: string, scanChars = REPEAT_SCAN_CHARS): string {
  // Short text (the hot path) has no repeats worth the scan; words may repeat a syllable ("couscous").
  if (text.length < REPEAT_MIN_CHARS) return text;
  const scanned = text.length > scanChars ? text.slice(0, scanChars) : text;
  const sentences = (scanned.match(SENTENCE) ?? []).filter((sentence) => sentence !== '');
  // A sentence cut by the scan limit is not new content.
  if (scanned !== text && sentences.length > 1 && !/[.!?…。！？\n]$/u.test(sentences.at(-1)!)) sentences.pop();
  const seen = new Set<string>();
  const kept: string[] = [];
  let repeatedChars = 0;
  for (const sentence of sentences) {
    const key = sentence.trim();
    if (key === '') continue;
    if (seen.has(key)) repeatedChars += sentence.length;
    else {
      seen.add(key);
      kept.push(key);
    }
  }
  // Only text mostly made of repeats is rewritten: a sentence that repeats an abbreviation ("kv. mi.") stays as it is.
  const distinct = repeatedChars * 2 >= scanned.length ? kept.join(' ') : scanned;
  const n = distinct.length;
  if (n < REPEAT_MIN_CHARS) return distinct;
  const prefix = new Uint32Array(n);
  for (let i = 1; i < n; i++) {
    let k = prefix[i - 1]!;
    while (k > 0 && distinct[i] !== distinct[k]) k = prefix[k - 1]!;
    if (distinct[i] === distinct[k]) k++;
    prefix[i] = k;
  }
  const period = n - prefix[n - 1]!;
  // At least three whole units: a text merely ending the way it began keeps its length.
  return period * 3 <= n ? distinct.slice(0, period) : distinct;
}
