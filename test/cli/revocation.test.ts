// `tolk key revoke` while `tolk serve` runs: the key the server has just verified (and cached) is refused by the very
// next request, on SQLite (the CLI writes the file the server reads) and on PostgreSQL (the change feed).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, TEST_POSTGRES_URL } from '../helpers/harness.js';
import { cliJson, serveEnv, startServe } from '../helpers/serve-process.js';

/** A database of its own on the test server, or why there is none. */
async function scratchPostgres(): Promise<{ url: string; drop(): Promise<void> } | string> {
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (err) {
    return `PostgreSQL does not answer at ${TEST_POSTGRES_URL}: ${(err as Error).message}`;
  }
  const name = `tolk_revoke_${randomBytes(5).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function revokedAtOnce(databaseUrl: string | undefined): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-revoke-'));
  const [port, free] = [await freePort(), await freePort()];
  const env = { ...serveEnv(dataDir, databaseUrl, port, free), TOLK_DOCUMENT_WORKERS: '0' };
  const server = await startServe(env);
  try {
    const account = await cliJson(env, ['account', 'create', '--plan', 'pro']);
    const key = await cliJson(env, ['key', 'create', '--account', account.account_id!]);
    const usage = () => fetch(`http://127.0.0.1:${port}/v2/usage`, { headers: { authorization: `Service-Auth-Key ${key.key}` } });
    // verified, then served from the server's cache of verified keys
    assert.equal((await usage()).status, 200);
    assert.equal((await usage()).status, 200);
    await cliJson(env, ['key', 'revoke', key.key_id!]);
    const after = await usage();
    assert.equal(after.status, 403, await after.text());
    // the account's other key is untouched
    assert.equal((await fetch(`http://127.0.0.1:${port}/v2/usage`, { headers: { authorization: `Service-Auth-Key ${account.admin_key}` } })).status, 200);
    assert.equal(await server.stop('SIGTERM'), 0);
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

it('a key revoked from the CLI is refused by the running server\'s next request (SQLite)', async () => {
  await revokedAtOnce(undefined);
});

it('a key revoked from the CLI is refused by the running server\'s next request (PostgreSQL)', async (t) => {
  const db = await scratchPostgres();
  if (typeof db === 'string') return t.skip(db);
  try {
    await revokedAtOnce(db.url);
  } finally {
    await db.drop();
  }
});
