// Why: cheap single-pass script census so unambiguous writing systems (Hangul, Kana, Thai, …) and "no letters at all" are decided without n-gram scoring.

/** Writing systems the detector distinguishes; `other` covers every remaining letter (Devanagari, Georgian, …). */
export type Script =
  | 'latin'
  | 'cyrillic'
  | 'greek'
  | 'hebrew'
  | 'arabic'
  | 'thai'
  | 'hangul'
  | 'kana'
  | 'han'
  | 'other';

export interface ScriptProfile {
  /** Letters counted per script (marks are not counted). */
  readonly counts: Readonly<Record<Script, number>>;
  /** Total letters counted. */
  readonly letters: number;
  /**
   * Script with the highest weighted count, or undefined when there are no letters. Han, Kana and
   * Hangul characters weigh 3 (one syllable/ideograph carries roughly as much as three alphabetic
   * letters), so a Korean sentence quoting an English product name is still Hangul-dominant.
   */
  readonly dominant: Script | undefined;
  /** Weighted share (0–1) of the dominant script among all weighted letters. */
  readonly dominantShare: number;
}

const DENSE_WEIGHT = 3;
const LETTER = /\p{L}/u;

function emptyCounts(): Record<Script, number> {
  return { latin: 0, cyrillic: 0, greek: 0, hebrew: 0, arabic: 0, thai: 0, hangul: 0, kana: 0, han: 0, other: 0 };
}

/** Classifies a code point already known to be a letter. */
export function scriptOf(cp: number): Script {
  if (cp < 0x250) return 'latin';
  if (cp >= 0x1e00 && cp <= 0x1eff) return 'latin';
  if ((cp >= 0x370 && cp <= 0x3ff) || (cp >= 0x1f00 && cp <= 0x1fff)) return 'greek';
  if (cp >= 0x400 && cp <= 0x52f) return 'cyrillic';
  if (cp >= 0x590 && cp <= 0x5ff) return 'hebrew';
  if ((cp >= 0x600 && cp <= 0x6ff) || (cp >= 0x750 && cp <= 0x77f) || (cp >= 0xfb50 && cp <= 0xfeff)) return 'arabic';
  if (cp >= 0xe00 && cp <= 0xe7f) return 'thai';
  if ((cp >= 0xac00 && cp <= 0xd7af) || (cp >= 0x1100 && cp <= 0x11ff) || (cp >= 0x3130 && cp <= 0x318f)) {
    return 'hangul';
  }
  if ((cp >= 0x3040 && cp <= 0x30ff) || (cp >= 0x31f0 && cp <= 0x31ff) || (cp >= 0xff66 && cp <= 0xff9f)) {
    return 'kana';
  }
  if (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x20000 && cp <= 0x3134f) ||
    cp === 0x3005 // 々 iteration mark
  ) {
    return 'han';
  }
  if ((cp >= 0xff21 && cp <= 0xff3a) || (cp >= 0xff41 && cp <= 0xff5a)) return 'latin'; // full-width Latin
  return 'other';
}

/** Counts letters per script in `text` (callers cap the length beforehand). */
export function profileScripts(text: string): ScriptProfile {
  const counts = emptyCounts();
  let letters = 0;
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    // Fast path: ASCII letters are Latin, other ASCII is never a letter.
    if (cp < 0x80) {
      if ((cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a)) {
        counts.latin++;
        letters++;
      }
      continue;
    }
    let ch: string;
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      cp = text.codePointAt(i) ?? cp;
      ch = String.fromCodePoint(cp);
      i++;
    } else {
      ch = text[i] ?? '';
    }
    if (!LETTER.test(ch)) continue;
    counts[scriptOf(cp)]++;
    letters++;
  }
  let dominant: Script | undefined;
  let best = 0;
  let total = 0;
  for (const script of Object.keys(counts) as Script[]) {
    const weighted = counts[script] * (script === 'han' || script === 'kana' || script === 'hangul' ? DENSE_WEIGHT : 1);
    total += weighted;
    if (weighted > best) {
      best = weighted;
      dominant = script;
    }
  }
  return { counts, letters, dominant, dominantShare: total === 0 ? 0 : best / total };
}
