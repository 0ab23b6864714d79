#!/usr/bin/env node
// Lists the TypeScript files under src/ longer than the project's limit (400 lines), longest first; exits 1 when any
// is. Generated data belongs in a data file, not in a long .ts file. Usage: node scripts/check-file-sizes.mjs [max]
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const max = Number(process.argv[2] ?? 400);

function* tsFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* tsFiles(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

const lines = (text) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
const over = [...tsFiles(join(root, 'src'))]
  .map((path) => ({ path: relative(root, path), lines: lines(readFileSync(path, 'utf8')) }))
  .filter((f) => f.lines > max)
  .sort((a, b) => b.lines - a.lines || a.path.localeCompare(b.path));

for (const f of over) console.log(`${String(f.lines).padStart(6)}  ${f.path}`);
console.log(over.length ? `${over.length} file(s) under src/ over ${max} lines` : `no file under src/ over ${max} lines`);
process.exit(over.length ? 1 : 0);
