// The language catalogue: API codes (case-insensitive, with variants) ↔ Tolk codes (lower-case BCP 47) and names.

export interface LanguageInfo {
  /** Tolk code, lower-case BCP 47. */
  code: string;
  name: string;
}

/** Every language code Tolk knows how to name; whether it is usable depends on the installed engines. */
const NAMES: Record<string, string> = {
  af: 'Afrikaans',
  an: 'Aragonese',
  ar: 'Arabic',
  ast: 'Asturian',
  be: 'Belarusian',
  bg: 'Bulgarian',
  br: 'Breton',
  ca: 'Catalan',
  cs: 'Czech',
  cy: 'Welsh',
  da: 'Danish',
  de: 'German',
  el: 'Greek',
  en: 'English',
  'en-gb': 'English (British)',
  'en-us': 'English (American)',
  eo: 'Esperanto',
  es: 'Spanish',
  'es-419': 'Spanish (Latin American)',
  et: 'Estonian',
  eu: 'Basque',
  fi: 'Finnish',
  fr: 'French',
  frp: 'Arpitan',
  gl: 'Galician',
  he: 'Hebrew',
  hi: 'Hindi',
  hr: 'Croatian',
  hu: 'Hungarian',
  id: 'Indonesian',
  is: 'Icelandic',
  it: 'Italian',
  ja: 'Japanese',
  ko: 'Korean',
  lt: 'Lithuanian',
  lv: 'Latvian',
  mk: 'Macedonian',
  ms: 'Malay',
  nb: 'Norwegian Bokmål',
  nl: 'Dutch',
  nn: 'Norwegian Nynorsk',
  oc: 'Occitan',
  pl: 'Polish',
  pt: 'Portuguese',
  'pt-br': 'Portuguese (Brazilian)',
  'pt-pt': 'Portuguese (European)',
  ro: 'Romanian',
  ru: 'Russian',
  sc: 'Sardinian',
  sh: 'Serbo-Croatian',
  sk: 'Slovak',
  sl: 'Slovenian',
  sr: 'Serbian',
  sv: 'Swedish',
  szl: 'Silesian',
  th: 'Thai',
  tr: 'Turkish',
  uk: 'Ukrainian',
  ur: 'Urdu',
  vi: 'Vietnamese',
  zh: 'Chinese',
  'zh-hans': 'Chinese (simplified)',
  'zh-hant': 'Chinese (traditional)',
};

/** Aliases clients send (the reference's legacy codes) mapped to Tolk codes. */
const ALIASES: Record<string, string> = {
  no: 'nb',
  'zh-cn': 'zh-hans',
  'zh-tw': 'zh-hant',
};

/** The variant a bare target code means when an engine only offers variants (the reference's defaults). */
export const DEFAULT_TARGET_VARIANT: Record<string, string> = {
  en: 'en-gb',
  pt: 'pt-pt',
  zh: 'zh-hans',
};

/** Normalises an API language code ("EN-us", "pt_BR") to a Tolk code, or undefined when unknown. */
export function normalizeLangCode(raw: string): string | undefined {
  const code = raw.trim().toLowerCase().replace(/_/g, '-');
  const resolved = ALIASES[code] ?? code;
  return NAMES[resolved] === undefined ? undefined : resolved;
}

export function baseLang(code: string): string {
  const i = code.indexOf('-');
  return i === -1 ? code : code.slice(0, i);
}

export function languageName(code: string): string {
  return NAMES[code] ?? code;
}

/** v2 style: upper case ("EN-GB", "ZH-HANS"). */
export function toApiCode(code: string): string {
  return code.toUpperCase();
}

/** v3 style: BCP 47 casing ("en-GB", "zh-Hans", "es-419"). */
export function toBcp47(code: string): string {
  const [base, variant] = code.split('-');
  if (!variant) return base!;
  if (variant.length === 4) return `${base}-${variant[0]!.toUpperCase()}${variant.slice(1)}`;
  return `${base}-${variant.toUpperCase()}`;
}
