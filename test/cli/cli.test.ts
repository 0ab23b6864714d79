// The `tolk` command creates accounts and keys directly in the store, with or without a running server.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Store } from '../../src/store/store.js';
import { AccountsService } from '../../src/accounts/accounts-service.js';
import { testStoreLocation } from '../helpers/harness.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

it('account create and key create print JSON and the keys authenticate', async () => {
  // The CLI is database-agnostic (the store contract covers both databases); SQLite keeps this test self-contained.
  const location = testStoreLocation('sqlite');
  const env = { ...process.env, TOLK_DATABASE_URL: location.url };
  const store = await Store.open({ url: location.url });
  try {
    const account = JSON.parse(
      (await run(process.execPath, [CLI, 'account', 'create', '--plan', 'free', '--features', 'detection', '--character-limit', '1000', '--json'], { env })).stdout,
    );
    assert.match(account.account_id, /^[0-9a-f-]{36}$/);
    assert.match(account.admin_key, /:fx$/);
    const key = JSON.parse((await run(process.execPath, [CLI, 'key', 'create', '--account', account.account_id, '--label', 'ci', '--json'], { env })).stdout);
    assert.match(key.key_id, /:/);
    const accounts = new AccountsService(store.repositories.accounts, store.changes);
    const ctx = await accounts.authenticate(key.key);
    assert.equal(ctx?.account.id, account.account_id);
    assert.equal(ctx?.account.characterLimit, 1000);
    assert.ok(ctx?.account.features.has('detection'));
    assert.equal(ctx?.key.label, 'ci');
    assert.equal(ctx?.key.kind, 'developer');
  } finally {
    await store.close();
    location.cleanup();
  }
});

it('rejects bad arguments with exit code 2 and a usage text', async () => {
  await assert.rejects(run(process.execPath, [CLI, 'account', 'create', '--plan', 'gold']), (err: { code: number; stderr: string }) => {
    assert.equal(err.code, 2);
    assert.match(err.stderr, /--plan/);
    return true;
  });
  await assert.rejects(run(process.execPath, [CLI, 'key', 'create', '--account', 'nope'], { env: { ...process.env, TOLK_DATABASE_URL: testStoreLocation('sqlite').url } }), (err: { code: number; stderr: string }) => {
    assert.equal(err.code, 1);
    assert.match(err.stderr, /not found/);
    return true;
  });
});

it('reports invalid configuration clearly', async () => {
  await assert.rejects(run(process.execPath, [CLI, 'account', 'create', '--plan', 'pro'], { env: { ...process.env, TOLK_PORT: 'eighty' } }), (err: { code: number; stderr: string }) => {
    assert.equal(err.code, 2);
    assert.match(err.stderr, /TOLK_PORT/);
    return true;
  });
});
