// Pronunciations of spoken terms for keyword spotting: PocketSphinx's own CMU dictionary for known words, and for
// out-of-vocabulary words (product names, jargon) flite's letter-to-sound rules (`t2p`, CMU's rules trained on the
// same dictionary), mapped to the dictionary's phone set. A term with a word neither can pronounce is left out.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** ARPAbet phones of the en-us acoustic model (CMU dictionary set, stress removed). */
const PHONES = new Set(
  'AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH'.split(' '),
);
/** flite's US phone set differs from the dictionary's only in the schwa and its pause symbol. */
const FLITE_TO_CMU: Record<string, string> = { AX: 'AH' };
const T2P_TIMEOUT_MS = 5000;

export class PronunciationDictionary {
  private constructor(private readonly entries: Map<string, string[]>) {}

  /** Reads a CMU-format dictionary ("word PH ON ES", alternatives as "word(2) …"). */
  static async load(path: string): Promise<PronunciationDictionary> {
    const entries = new Map<string, string[]>();
    for (const line of (await readFile(path, 'utf8')).split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0) entries.set(line.slice(0, space), line.slice(space + 1).trim().split(/\s+/));
    }
    return new PronunciationDictionary(entries);
  }

  /** Phones of a dictionary word, alternatives included ("to(2)"); null when unknown. */
  phones(word: string): string[] | null {
    return this.entries.get(word.toLowerCase()) ?? null;
  }
}

/** flite's letter-to-sound rules for one word; null when t2p is missing or gives nothing usable. */
export function letterToSound(word: string): Promise<string[] | null> {
  return new Promise((resolve) => {
    execFile('t2p', [word], { timeout: T2P_TIMEOUT_MS }, (err, stdout) => {
      if (err) return resolve(null);
      const phones = stdout
        .trim()
        .split(/\s+/)
        .filter((p) => p !== '' && p !== 'pau')
        .map((p) => p.replace(/\d+$/, '').toUpperCase())
        .map((p) => FLITE_TO_CMU[p] ?? p);
      resolve(phones.length > 0 && phones.every((p) => PHONES.has(p)) ? phones : null);
    });
  });
}

/** The words of a written term, as a dictionary spells them ("Wi-Fi" stays one word; "C++" keeps its letters). */
export function termWords(term: string): string[] {
  return term
    .split(/\s+/)
    .map((w) => w.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((w) => w !== '');
}

/** A term's pronunciation: each word from the dictionary, else from letter-to-sound rules; null if any word fails. */
export async function pronounceTerm(term: string, dictionary: PronunciationDictionary): Promise<string[] | null> {
  const words = termWords(term);
  if (words.length === 0) return null;
  const phones: string[] = [];
  for (const word of words) {
    const known = dictionary.phones(word) ?? (await letterToSound(word));
    if (!known) return null;
    phones.push(...known);
  }
  return phones;
}
