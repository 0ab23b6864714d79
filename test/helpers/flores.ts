// FLORES-200 dev sentences for tests and benches; one place names where they are (TOLK_FLORES_DIR).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Compiled to dist/test/helpers/, so the repository root is three levels up.
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Directory of flores-dev.LANG files: TOLK_FLORES_DIR, else ../shared/data/flores-dev beside the repository. */
export const FLORES_DIR = process.env.TOLK_FLORES_DIR ?? join(repoRoot, '..', 'shared', 'data', 'flores-dev');

/** The non-empty sentences of one language (FLORES code as in the file name, e.g. `en`, `nb`). */
export function floresLines(lang: string): string[] {
  return readFileSync(join(FLORES_DIR, `flores-dev.${lang}`), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** Cuts at the last whitespace within `max` characters (code points); hard cut when there is none (zh, ja, th). */
export function truncateAtWord(text: string, max: number): string {
  const cps = [...text];
  if (cps.length <= max) return text;
  const head = cps.slice(0, max + 1).join('');
  const cut = head.search(/\s\S*$/u);
  if (cut > 0) return head.slice(0, cut).trim();
  return cps.slice(0, max).join('');
}
