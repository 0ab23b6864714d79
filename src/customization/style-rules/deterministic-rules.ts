// Style rules that need no language model: rewritten on the engine's output with exact, local text transforms.
// Every other rule of the catalogue needs a language model (see StyleRuleService.resolve).
import { own } from '../../lib/own.js';

type Transform = (text: string) => string;
type Rules = Record<string, Record<string, string>>;

const NUMBER = /(?<![\p{L}\p{N}.,])\d{1,3}(?:([.,\u202f\u00a0 ])\d{3})*(?:([.,])\d+)?(?![\p{L}\p{N}]|[.,]\d)/gu;

/** Reads a number written with either convention: a single separator followed by exactly three digits is a thousands
 *  separator, anything else before the last digits is the decimal separator. */
function parseNumber(s: string): { int: string; frac: string | undefined } {
  const m = /^(.*?)(?:([.,])(\d{1,2}|\d{4,}))?$/.exec(s)!;
  const groups = m[1]!;
  if (m[2]) return { int: groups.replace(/[^\d]/g, ''), frac: m[3] };
  // "1,234" / "1.234": thousands; "1,5" was caught above (not three digits).
  return { int: s.replace(/[^\d]/g, ''), frac: undefined };
}

function formatNumber(n: { int: string; frac: string | undefined }, thousands: string, decimal: string, minGroupDigits = 4): string {
  let int = n.int;
  if (thousands && int.length >= minGroupDigits) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, thousands);
  return n.frac === undefined ? int : `${int}${decimal}${n.frac}`;
}

function numberTransform(thousands: string, decimal: string, minGroupDigits = 4): Transform {
  return (text) => text.replace(NUMBER, (s) => formatNumber(parseNumber(s), thousands, decimal, minGroupDigits));
}

const SEPARATOR_OPTIONS: Record<string, [string, string]> = {
  use_comma_as_decimal_separator_and_period_as_thousands_separator: ['.', ','],
  use_comma_as_decimal_separator_and_space_as_thousands_separator: ['\u202f', ','],
  use_period_as_decimal_separator_and_comma_as_thousands_separator: [',', '.'],
  use_period_as_decimal_separator_and_space_as_thousands_separator: ['\u202f', '.'],
};

const UNITS = '(?:km|kg|mg|cm|mm|ml|m|g|l|s|h|min|°C|°F|kB|MB|GB|TB|Hz|kHz|MHz|GHz|W|kW|V|A)';

const curlyApostrophes: Transform = (t) => t.replace(/(?<=\p{L})'(?=\p{L})/gu, '\u2019');
const straightApostrophes: Transform = (t) => t.replace(/(?<=\p{L})[\u2019\u02bc](?=\p{L})/gu, "'");

function quotes(open: string, close: string): Transform {
  return (t) => t.replace(/["“”„«»]([^"“”„«»]*)["“”„«»]/g, (_m, inner: string) => `${open}${inner}${close}`);
}

/** category → rule → option → transform. */
const TRANSFORMS: Record<string, Record<string, Record<string, Transform>>> = {
  punctuation: {
    apostrophe: { use_curly_apostrophes: curlyApostrophes, use_straight_apostrophes: straightApostrophes },
    quotation_mark: {
      use_curly_quotation_marks: quotes('“', '”'),
      use_double_curly_quotation_marks: quotes('“', '”'),
      use_double_straight_quotation_marks: quotes('"', '"'),
      use_straight_quotation_marks: quotes('"', '"'),
      use_guillemets: quotes('«', '»'),
    },
    ellipsis: {
      use_ellipsis_character: (t) => t.replace(/\.\.\./g, '…'),
      use_one_ellipsis_character: (t) => t.replace(/\.\.\.|…+/g, '…'),
      use_three_dots_at_the_bottom: (t) => t.replace(/…/g, '...'),
    },
    exclamation_marks: { do_not_use: (t) => t.replace(/!+/g, '.').replace(/¡/g, '') },
    slash: {
      do_not_use_spaces_before_and_after_slashes: (t) => t.replace(/(?<=\S) +\/ +(?=\S)/g, '/'),
      use_spaces_before_and_after_slashes: (t) => t.replace(/(?<=[\p{L}\p{N}])\/(?=[\p{L}\p{N}])/gu, ' / '),
    },
  },
  numbers: {
    decimal_separator: {
      use_comma_as_decimal_separator: (t) => t.replace(/(?<![\d.,])(\d+)\.(\d{1,2}|\d{4,})(?![\d.,]*\d)/g, '$1,$2'),
      use_period_as_decimal_separator: (t) => t.replace(/(?<![\d.,])(\d+),(\d{1,2}|\d{4,})(?![\d.,]*\d)/g, '$1.$2'),
      use_comma_and_do_not_use_thousands_separator: numberTransform('', ','),
      use_period_and_do_not_use_thousands_separator: numberTransform('', '.'),
    },
    numbers_of_5_digits_or_more: Object.fromEntries(
      Object.entries(SEPARATOR_OPTIONS).map(([k, [th, dec]]) => [k, numberTransform(th, dec, 5)]),
    ),
    numbers_up_to_4_digits: Object.fromEntries(Object.entries(SEPARATOR_OPTIONS).map(([k, [th, dec]]) => [k, numberTransform(th, dec, 4)])),
    thousands_separator: {
      do_not_use: (t) => t.replace(/(?<=\d)[,.\u202f\u00a0 ](?=\d{3}(?!\d))/g, ''),
      do_not_use_thousands_separator: (t) => t.replace(/(?<=\d)[,.\u202f\u00a0 ](?=\d{3}(?!\d))/g, ''),
    },
    dimensions_separator: {
      use_multiplication_sign_between_dimensions_with_space_on_either_side: (t) => t.replace(/(?<=\d) ?[x×] ?(?=\d)/g, ' × '),
      use_multiplication_sign_between_dimensions_without_space_on_either_side: (t) => t.replace(/(?<=\d) ?[x×] ?(?=\d)/g, '×'),
      use_x_between_dimensions_with_space_on_either_side: (t) => t.replace(/(?<=\d) ?[x×] ?(?=\d)/g, ' x '),
      use_x_between_dimensions_without_space_on_either_side: (t) => t.replace(/(?<=\d) ?[x×] ?(?=\d)/g, 'x'),
    },
    percentage_format: {
      use_arabic_numerals_followed_by_percent_symbol_without_space: (t) => t.replace(/(?<=\d)[ \u00a0\u202f]+%/g, '%'),
    },
    units_of_measure_spacing: {
      do_not_use_space_between_numeral_and_unit_of_measure: (t) => t.replace(new RegExp(`(?<=\\d)[ \\u00a0](?=${UNITS}(?![\\p{L}]))`, 'gu'), ''),
      use_space_between_numeral_and_unit_of_measure: (t) => t.replace(new RegExp(`(?<=\\d)(?=${UNITS}(?![\\p{L}]))`, 'gu'), '\u00a0'),
    },
  },
  dates_and_times: {
    calendar_era: {
      use_bc_and_ad: (t) => t.replace(/\bBCE\b/g, 'BC').replace(/\bCE\b/g, 'AD'),
      use_bce_and_ce: (t) => t.replace(/\bBC\b/g, 'BCE').replace(/\bAD\b/g, 'CE'),
    },
    date_format: {
      use_dd_slash_mm_slash_yyyy_with_leading_zeros_for_single_digit_days_and_months: (t) => t.replace(/\b(\d{4})-(\d{2})-(\d{2})\b/g, '$3/$2/$1'),
      use_mm_slash_dd_slash_yyyy_with_leading_zeros_for_single_digit_days_and_months: (t) => t.replace(/\b(\d{4})-(\d{2})-(\d{2})\b/g, '$2/$3/$1'),
      use_dd_period_mm_period_yyyy: (t) => t.replace(/\b(\d{4})-(\d{2})-(\d{2})\b/g, (_m, y, mo, d) => `${Number(d)}.${Number(mo)}.${y}`),
    },
  },
  spelling_and_grammar: {
    eszett: { replace_eszett_with_ss: (t) => t.replace(/ß/g, 'ss').replace(/ẞ/g, 'SS') },
    umlauts: {
      replace_umlauts_with_ae_oe_ue: (t) =>
        t.replace(/[äöüÄÖÜ]/g, (c) => ({ ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'Ae', Ö: 'Oe', Ü: 'Ue' })[c] ?? c),
    },
  },
};

function transformFor(category: string, rule: string, option: string): Transform | undefined {
  const rules = own(TRANSFORMS, category);
  const options = rules && own(rules, rule);
  return options && own(options, option);
}

export function isDeterministic(category: string, rule: string, option: string): boolean {
  return transformFor(category, rule, option) !== undefined;
}

/** Every deterministic (category, rule, option) — for documentation and tests. */
export function deterministicRules(): string[] {
  return Object.entries(TRANSFORMS).flatMap(([c, rules]) => Object.entries(rules).flatMap(([r, opts]) => Object.keys(opts).map((o) => `${c}.${r}=${o}`)));
}

/** Applies the deterministic rules of a configured rule set to translated outputs (others are left for an LLM). */
export function applyStyleRules(rules: Rules, outputs: readonly string[]): string[] {
  const transforms: Transform[] = [];
  for (const [category, set] of Object.entries(rules)) {
    for (const [rule, option] of Object.entries(set)) {
      const t = transformFor(category, rule, option);
      if (t) transforms.push(t);
    }
  }
  return outputs.map((o) => transforms.reduce((text, t) => t(text), o));
}
