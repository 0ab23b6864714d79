// Which script a Chinese text is written in: LibreTranslate's API names simplified and traditional Chinese apart
// (zh-Hans, zh-Hant) where the detector only says "zh". OpenCC's character tables tell which characters exist in
// one script only (traditional 國, simplified 国); the script with more such characters in the text wins.
import TS_CHARACTERS from 'opencc-js/dict/TSCharacters';
import ST_CHARACTERS from 'opencc-js/dict/STCharacters';

export type ChineseScript = 'hans' | 'hant';

/** The characters of a table's entries ("國 国|說 说|…"): each entry's first one, that is, the form converted from. */
function sources(table: string): Set<string> {
  const out = new Set<string>();
  for (const entry of table.split('|')) {
    const first = entry.split(' ', 1)[0];
    if (first) out.add(first);
  }
  return out;
}

let tables: { traditionalOnly: Set<string>; simplifiedOnly: Set<string> } | undefined;

/** Built on first use (~5,000 characters each), not at start: a server that never sees Chinese does not pay it. */
function scriptTables() {
  if (tables) return tables;
  const traditional = sources(TS_CHARACTERS);
  const simplified = sources(ST_CHARACTERS);
  // A character converted in both directions (后, 乾) is written in both scripts: evidence for neither.
  const traditionalOnly = new Set([...traditional].filter((c) => !simplified.has(c)));
  const simplifiedOnly = new Set([...simplified].filter((c) => !traditional.has(c)));
  tables = { traditionalOnly, simplifiedOnly };
  return tables;
}

/** 'hant' or 'hans' when the text has characters of one script only (more of them), undefined when it has none. */
export function chineseScript(text: string): ChineseScript | undefined {
  const { traditionalOnly, simplifiedOnly } = scriptTables();
  let hant = 0;
  let hans = 0;
  for (const ch of text) {
    if (traditionalOnly.has(ch)) hant++;
    else if (simplifiedOnly.has(ch)) hans++;
  }
  if (hant === hans) return undefined;
  return hant > hans ? 'hant' : 'hans';
}
