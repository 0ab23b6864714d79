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
