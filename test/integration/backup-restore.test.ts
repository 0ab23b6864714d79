// Backup and restore as an operator runs them (docs/operations.md), on the suite's database: a real `tolk serve`
// with data of every kind, translations in flight while the backup is taken (SQLite: `tolk backup`; PostgreSQL:
// pg_dump plus `tolk backup --no-database`), a restore into an empty folder (and an empty database), and a server
// started on it that has every kind of data back.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, testDatabase } from '../helpers/harness.js';
import { CLI, cliJson, startServe, type ServeProcess } from '../helpers/serve-process.js';
import { characterCount, checkInstallation, seedThroughApi } from '../helpers/installation-data.js';
import { freshPostgresDatabase, postgresClientUnavailable, type FreshDatabase } from '../helpers/postgres-database.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);
const db = testDatabase();

async function serverEnv(dataDir: string, databaseUrl: string | undefined): Promise<NodeJS.ProcessEnv> {
  return {
    ...process.env,
    TOLK_DATA_DIR: dataDir,
    TOLK_PORT: String(await freePort()),
    TOLK_FREE_PORT: String(await freePort()),
    TOLK_APERTIUM_PAIRS: 'en-es',
    ...(databaseUrl ? { TOLK_DATABASE_URL: databaseUrl } : {}),
  };
}

const baseOf = (env: NodeJS.ProcessEnv) => `http://127.0.0.1:${env.TOLK_PORT}`;
const tolk = (env: NodeJS.ProcessEnv, args: string[]) => run(process.execPath, [CLI, ...args], { env });

it(`backup while translations are in flight, restore into an empty folder: every kind of data is back (${db})`, async (t) => {
  const missing = db === 'postgres' ? postgresClientUnavailable() : undefined;
  if (missing) return t.skip(missing);
  const root = mkdtempSync(join(tmpdir(), 'tolk-backup-'));
  const databases: FreshDatabase[] = [];
  let server: ServeProcess | undefined;
  try {
    const source = db === 'postgres' ? await freshPostgresDatabase('tolk_backup') : undefined;
    if (source) databases.push(source);
    const env = await serverEnv(join(root, 'data'), source?.url);
    server = await startServe(env);
    const data = await seedThroughApi(baseOf(env), (args) => cliJson(env, args));
    const before = await characterCount(baseOf(env), data);

    // Translations keep coming while the backup runs.
    let stop = false;
    const statuses: number[] = [];
    const load = Promise.all(Array.from({ length: 4 }, async () => {
      while (!stop) {
        const res = await fetch(`${baseOf(env)}/v2/translate`, {
          method: 'POST',
          headers: { authorization: `Service-Auth-Key ${data.devKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ text: ['The cat sleeps in the warm kitchen.'], source_lang: 'EN', target_lang: 'ES' }),
        });
        await res.arrayBuffer();
        statuses.push(res.status);
      }
    }));
    await waitFor('the load to be under way', () => statuses.length >= 4);
    const answeredBefore = statuses.length;
    const archive = join(root, 'tolk-backup.zip');
    const dump = join(root, 'tolk.dump');
    let printed: string;
    if (source) {
      await run('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, `--dbname=${source.url}`]);
      printed = (await tolk(env, ['backup', '--no-database', archive])).stdout;
    } else {
      printed = (await tolk(env, ['backup', archive])).stdout;
    }
    const answeredDuring = statuses.length - answeredBefore;
    stop = true;
    await load;
    assert.ok(answeredDuring > 0, 'translations were answered while the backup ran');
    assert.deepEqual(new Set(statuses), new Set([200]));
    const after = await characterCount(baseOf(env), data);
    assert.ok(after > before, 'premise: the load was charged');

    assert.equal(statSync(archive).mode & 0o777, 0o600);
    assert.match(printed, /mode 0600/);
    assert.match(printed, source ? /database: not included/ : /server_secrets/);
    if (!source) assert.match(printed, /\.key-encryption-key/);
    assert.equal(await server.stop(), 0);
    server = undefined;

    // A data folder that is not empty is refused.
    const refused = await tolk({ ...env, TOLK_DATA_DIR: root }, ['restore', archive]).then(() => undefined, (err: { code: number; stderr: string }) => err);
    assert.equal(refused?.code, 1);
    assert.match(refused!.stderr, /data folder .* is not empty/);

    const target = source ? await freshPostgresDatabase('tolk_restored') : undefined;
    if (target) {
      databases.push(target);
      await run('pg_restore', ['--no-owner', `--dbname=${target.url}`, dump]);
    }
    const restoredEnv = await serverEnv(join(root, 'restored'), target?.url);
    const restored = (await tolk(restoredEnv, ['restore', archive])).stdout;
    assert.match(restored, /restored the backup of/);
    server = await startServe(restoredEnv);
    const count = await characterCount(baseOf(restoredEnv), data);
    assert.ok(count >= before && count <= after, `restored usage ${count} between ${before} (before the backup) and ${after} (after it)`);
    await checkInstallation(baseOf(restoredEnv), data);
  } finally {
    await server?.stop();
    for (const d of databases) await d.drop();
    rmSync(root, { recursive: true, force: true });
  }
});
