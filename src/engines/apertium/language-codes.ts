// Maps Apertium's language codes (ISO 639-3 or 639-1, optional "_VARIANT") to Tolk's lower-case BCP 47 codes.

/** ISO 639-3 (and a few legacy) codes used by Apertium pairs → ISO 639-1. Two-letter codes pass through unchanged. */
const ISO3_TO_ISO1: Readonly<Record<string, string>> = {
  eng: 'en', spa: 'es', cat: 'ca', ita: 'it', fra: 'fr', fre: 'fr', por: 'pt', ron: 'ro', rum: 'ro',
  rus: 'ru', ukr: 'uk', bel: 'be', swe: 'sv', dan: 'da', nob: 'nb', nno: 'nn', nor: 'no', isl: 'is',
  glg: 'gl', oci: 'oc', eus: 'eu', deu: 'de', ger: 'de', nld: 'nl', dut: 'nl', afr: 'af', arg: 'an',
  ast: 'ast', epo: 'eo', cym: 'cy', bre: 'br', gle: 'ga', gla: 'gd', mlt: 'mt', ara: 'ar', heb: 'he',
  hin: 'hi', urd: 'ur', kaz: 'kk', tat: 'tt', tur: 'tr', pol: 'pl', ces: 'cs', slk: 'sk', slv: 'sl',
  hrv: 'hr', srp: 'sr', bos: 'bs', mkd: 'mk', bul: 'bg', fin: 'fi', est: 'et', sme: 'se', fao: 'fo',
  ind: 'id', msa: 'ms', zlm: 'ms', lav: 'lv', lit: 'lt', hun: 'hu', ell: 'el', sqi: 'sq', kir: 'ky',
  uzb: 'uz', tgk: 'tg', hye: 'hy', kat: 'ka', srd: 'sc', cos: 'co', snd: 'sd', mar: 'mr', ben: 'bn',
};

/**
 * Variant suffixes with a meaning in Tolk, keyed by "<tolk base>_<apertium variant>".
 * Variants not listed (e.g. cat_valencia_uni, *_iec2017) make the mode unusable for Tolk and it is skipped.
 */
export const DEFAULT_VARIANTS: Readonly<Record<string, string>> = {
  en_US: 'en-us',
  en_GB: 'en-gb',
  pt_BR: 'pt-br',
  pt_PT: 'pt-pt',
};

/** Tolk code for one side of a mode name ("eng", "pt_BR"), or null when it has no Tolk meaning. */
export function toTolkCode(apertiumCode: string, variants: Readonly<Record<string, string>> = DEFAULT_VARIANTS): string | null {
  const [lang, ...rest] = apertiumCode.split('_');
  if (!lang || !/^[a-z]{2,3}$/.test(lang)) return null;
  const base = lang.length === 2 ? lang : ISO3_TO_ISO1[lang];
  if (!base) return null;
  if (rest.length === 0) return base;
  return variants[`${base}_${rest.join('_')}`] ?? null;
}

/** "pt-br" → "pt"; a code without variant is its own base. */
export function baseOf(code: string): string {
  const i = code.indexOf('-');
  return i < 0 ? code : code.slice(0, i);
}
