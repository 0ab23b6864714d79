// Runs the compiled test suite: everything once on SQLite, then the HTTP-level suites again on PostgreSQL.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...find(path));
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out.sort();
}

// scripts/setup.sh --test leaves the URL of the PostgreSQL it set up here when the default one did not answer.
if (!process.env.TOLK_TEST_POSTGRES_URL && existsSync('.tolk-test-postgres-url')) {
  process.env.TOLK_TEST_POSTGRES_URL = readFileSync('.tolk-test-postgres-url', 'utf8').trim();
}

const all = find('dist/test');
const filter = process.argv.slice(2);
const selected = filter.length ? all.filter((f) => filter.some((x) => f.includes(x))) : all;
const dbSuites = selected.filter((f) => f.includes('/http/') || f.includes('/integration/'));

function run(files, database) {
  if (files.length === 0) return 0;
  console.log(`\n# ${files.length} test files on ${database}`);
  const r = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-reporter=spec', ...files], {
    stdio: 'inherit',
    env: { ...process.env, TOLK_TEST_DATABASE: database },
  });
  return r.status ?? 1;
}

let status = run(selected, 'sqlite');
status ||= run(dbSuites, 'postgres');
process.exit(status);
