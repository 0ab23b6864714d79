// Why: n-gram scores confuse close neighbours on short text (cs/sk, ru/bg/uk, sl/hr, da/nb); letters a language never writes and a few function words settle most of those cases cheaply.

/**
 * Non-ASCII lower-case letters each language writes in its own orthography (Latin-script
 * languages) or its whole alphabet (Cyrillic-script languages). Languages absent from this table
 * are never ruled out. Codes are eld's (`no` = Norwegian Bokmål, `ms` = Malay/Indonesian).
 */
const LATIN_EXTRAS: Record<string, string> = {
  en: '',
  de: 'äöüß',
  fr: 'àâæçéèêëîïôœùûüÿ',
  es: 'áéíñóúü',
  pt: 'áâãàçéêíóôõú',
  it: 'àèéìíîòóùú',
  nl: 'áàéèëïóöüêîôûç',
  pl: 'ąćęłńóśźż',
  cs: 'áčďéěíňóřšťúůýž',
  sk: 'áäčďéíĺľňóôŕšťúýž',
  sl: 'čšž',
  hr: 'čćđšž',
  da: 'æøåé',
  no: 'æøåéóòô',
  sv: 'åäöé',
  et: 'õäöüšž',
  fi: 'äöåšž',
  hu: 'áéíóöőúüű',
  lt: 'ąčęėįšųūž',
  lv: 'āčēģīķļņšūž',
  ro: 'ăâîșşțţ',
  tr: 'çğıöşüâîû',
  az: 'çəğıöşü',
  ms: 'é',
  ca: 'àçéèíïòóúü·',
  is: 'áðéíóúýþæö',
  sq: 'çë',
  eu: 'ñ',
};

const CYRILLIC_ALPHABETS: Record<string, string> = {
  ru: 'абвгдеёжзийклмнопрстуфхцчшщъыьэюя',
  uk: 'абвгґдеєжзиіїйклмнопрстуфхцчшщьюя',
  bg: 'абвгдежзийклмнопрстуфхцчшщъьюя',
  sr: 'абвгдђежзијклљмнњопрстћуфхцчџш',
  be: 'абвгдеёжзійклмнопрстуўфхцчшыьэюя',
};

/** Letters Arabic does not use but Persian, Urdu or Kurdish do. */
const ARABIC_FOREIGN = 'پچژگکیٹڈڑںےھۆێەڤ';

const latinSets = new Map(Object.entries(LATIN_EXTRAS).map(([k, v]) => [k, new Set(v)]));
const cyrillicSets = new Map(Object.entries(CYRILLIC_ALPHABETS).map(([k, v]) => [k, new Set(v)]));
const arabicForeign = new Set(ARABIC_FOREIGN);

/**
 * Occurrences of letters outside a language's alphabet needed, as a share of all letters, before
 * that language is ruled out. One stray letter in a 20-character snippet is decisive; a foreign
 * name in a long sentence is not.
 */
const FOREIGN_SHARE = 0.02;

/** Counts of each non-ASCII lower-case letter in the text (ASCII letters are shared by all Latin orthographies). */
export function nonAsciiLetterCounts(lowerText: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const ch of lowerText) {
    if (ch.charCodeAt(0) < 0x80) continue;
    counts.set(ch, (counts.get(ch) ?? 0) + 1);
  }
  return counts;
}

/** True unless the text holds enough letters that `lang` never writes. Unknown languages are always compatible. */
export function isCompatible(lang: string, letterCounts: ReadonlyMap<string, number>, letters: number): boolean {
  const latin = latinSets.get(lang);
  const cyrillic = cyrillicSets.get(lang);
  if (!latin && !cyrillic && lang !== 'ar') return true;
  let foreign = 0;
  for (const [ch, n] of letterCounts) {
    const cp = ch.codePointAt(0) ?? 0;
    if (latin) {
      // Only Latin letters (incl. Latin Extended and Vietnamese) are judged against a Latin alphabet.
      const isLatin = (cp >= 0xc0 && cp < 0x250 && cp !== 0xd7 && cp !== 0xf7) || (cp >= 0x1e00 && cp <= 0x1eff);
      if ((isLatin || ch === '·') && !latin.has(ch)) foreign += n;
    } else if (cyrillic) {
      if (cp >= 0x400 && cp <= 0x52f && !cyrillic.has(ch)) foreign += n;
    } else if (arabicForeign.has(ch)) {
      foreign += n;
    }
  }
  return foreign === 0 || foreign < FOREIGN_SHARE * letters ? true : false;
}

/**
 * Letters that, among the 33 detection languages, only one writes (Tolk codes). A short text whose n-gram winner is
 * that language and which holds one of its letters is decided even when the margin is thin: on FLORES dev 0–499 cut
 * to 20 characters these decisions were all right (da/nb share ø, sv/fi/de/et share ä, so they have none).
 */
const SIGNATURE_LETTERS: Readonly<Record<string, string>> = {
  hu: 'őű', pl: 'łśźżćń', cs: 'řů', ro: 'șțăşţ', tr: 'ğı', lt: 'ėįųū', lv: 'āēīģķļņ', uk: 'їєґі', ru: 'ыэё',
  de: 'ß', es: 'ñ', pt: 'ã', fr: 'œ', sk: 'ľĺŕô',
  vi: 'ơưđạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ',
};

/** True when `lowerText` holds a letter that, among the 33, only `lang` (Tolk code) writes. */
export function hasSignatureLetter(lang: string, lowerText: string): boolean {
  const letters = SIGNATURE_LETTERS[lang];
  if (letters === undefined) return false;
  for (const ch of letters) if (lowerText.includes(ch)) return true;
  return false;
}

const DANISH_WORDS = new Set([
  'af', 'efter', 'nogle', 'noget', 'mig', 'dig', 'sig', 'blev', 'havde', 'mellem', 'hvad', 'nu', 'ud', 'op',
  'meget', 'bliver', 'igen', 'uden', 'mod', 'gør', 'sagde', 'siger', 'anden', 'andet', 'vores', 'jeres', 'end',
  'sådan', 'giver', 'blandt', 'tog', 'fik', 'gik', 'kendt', 'været', 'hende', 'jer', 'lidt', 'hvorfor',
]);
const NORWEGIAN_WORDS = new Set([
  'av', 'etter', 'noen', 'noe', 'meg', 'deg', 'seg', 'ble', 'hadde', 'mellom', 'hva', 'nå', 'ut', 'opp', 'mye',
  'blir', 'igjen', 'uten', 'mot', 'gjør', 'sa', 'sier', 'annen', 'annet', 'vår', 'våre', 'enn', 'slik', 'gir',
  'ga', 'blant', 'tok', 'fikk', 'gikk', 'kjent', 'vært', 'dere', 'lite', 'ikkje', 'ei', 'hvorfor',
]);

/**
 * Danish vs Norwegian Bokmål share an alphabet; count function words only one of them uses.
 * Returns 'da', 'no' or undefined when the evidence is even.
 */
export function danishOrNorwegian(lowerText: string): 'da' | 'no' | undefined {
  let da = 0;
  let no = 0;
  for (const word of lowerText.split(/[^\p{L}]+/u)) {
    if (word === '') continue;
    const inDa = DANISH_WORDS.has(word);
    const inNo = NORWEGIAN_WORDS.has(word);
    if (inDa && !inNo) da++;
    else if (inNo && !inDa) no++;
  }
  if (da === no) return undefined;
  return da > no ? 'da' : 'no';
}
