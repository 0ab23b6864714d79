// The command line as a person meets it: every command's own help (which starts nothing), --version, listing and
// revoking keys with header rows, configuration errors naming the variable and its allowed values, a taken port.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { testStoreLocation } from '../helpers/harness.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const tolk = (args: string[], env: NodeJS.ProcessEnv = {}) => run(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
const failure = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  tolk(args, env).then(
    () => assert.fail(`tolk ${args.join(' ')} succeeded`),
    (err: { code: number; stdout: string; stderr: string }) => err,
  );

/** A port some other program holds for the duration of `fn`. */
async function withTakenPort<T>(fn: (port: number) => Promise<T>): Promise<T> {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    return await fn((holder.address() as AddressInfo).port);
  } finally {
    holder.close();
  }
}

it('every command listed in the usage has its own help, exit 0, and --help starts nothing', async () => {
  const usage = (await tolk(['--help'])).stdout;
  const commands = [...usage.matchAll(/^ {2}tolk ((?:[a-z]+ ?)+)/gm)].map((m) => m[1]!.trim()).filter((c) => !c.startsWith('models '));
  assert.deepEqual(commands, ['serve', 'account create', 'account list', 'key create', 'key list', 'key revoke', 'backup', 'restore']);
  // The paid port is taken: a `serve --help` that tried to listen would fail instead of printing its help.
  await withTakenPort(async (port) => {
    for (const command of commands) {
      const { stdout } = await tolk([...command.split(' '), '--help'], { TOLK_PORT: String(port), TOLK_DATABASE_URL: '/nonexistent/dir/tolk.db' });
      assert.match(stdout, new RegExp(`^Usage: tolk ${command}`), command);
    }
  });
  assert.match((await tolk(['account', 'create', '-h'])).stdout, /--character-limit N\s+characters per billing period/);
  assert.match((await tolk(['help', 'key', 'list'])).stdout, /^Usage: tolk key list --account ID/);
  assert.match((await tolk(['key', '--help'])).stdout, /tolk key create[\s\S]*tolk key list[\s\S]*tolk key revoke/);
  assert.match((await tolk(['models', '--help'])).stdout, /tolk models install/);
});

it('--version prints the package version and the API version', async () => {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal((await tolk(['--version'])).stdout, `tolk ${pkg.version} (Translation Service API v3.13.0)\n`);
});

it('account list, key list and key revoke: header rows, secrets never listed, a revoked key marked', async () => {
  const location = testStoreLocation('sqlite');
  const env = { TOLK_DATABASE_URL: location.url };
  try {
    assert.match((await tolk(['account', 'list'], env)).stdout, /^no accounts/);
    const account = JSON.parse((await tolk(['account', 'create', '--plan', 'free', '--name', 'Acme GmbH', '--json'], env)).stdout);
    const key = JSON.parse((await tolk(['key', 'create', '--account', account.account_id, '--label', 'ci', '--json'], env)).stdout);
    const accounts = (await tolk(['account', 'list'], env)).stdout.trimEnd().split('\n');
    assert.match(accounts[0]!, /^ACCOUNT ID\s+PLAN\s+CHARACTER LIMIT\s+FEATURES\s+CREATED \(UTC\)\s+NAME$/);
    assert.match(accounts[1]!, new RegExp(`^${account.account_id}\\s+free\\s+500000\\s+-\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+Acme GmbH$`));
    const keys = (await tolk(['key', 'list', '--account', account.account_id], env)).stdout.trimEnd().split('\n');
    assert.match(keys[0]!, /^KEY ID\s+KIND\s+KEY\s+STATUS\s+CHARACTER LIMIT\s+CREATED \(UTC\)\s+LABEL$/);
    assert.equal(keys.length, 3);
    assert.match(keys[2]!, new RegExp(`^${key.key_id}\\s+developer\\s+${key.key.slice(0, 4)}…${key.key.slice(-4)}\\s+active\\s`));
    assert.ok(!keys.join('\n').includes(key.key), 'the secret is never listed');

    assert.match((await tolk(['key', 'revoke', key.key_id], env)).stdout, new RegExp(`^revoked ${key.key_id} \\(developer key "ci"\\)`));
    const listed = JSON.parse((await tolk(['key', 'list', '--account', account.account_id, '--json'], env)).stdout) as { key_id: string; deactivated_at: string | null }[];
    assert.ok(listed.find((k) => k.key_id === key.key_id)!.deactivated_at);
    assert.equal(listed.filter((k) => k.deactivated_at === null).length, 1, 'the admin key stays active');

    const unknown = await failure(['key', 'revoke', 'nope'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^tolk: Key nope not found\n$/);
    const missing = await failure(['key', 'revoke'], env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^tolk: key revoke takes 1 argument \(KEY_ID\), got 0\nUsage: tolk key revoke KEY_ID\n/);
  } finally {
    location.cleanup();
  }
});

it('a bad variable is named with the values it allows', async () => {
  const err = await failure(['account', 'list'], { TOLK_LOG_LEVEL: 'loud' });
  assert.equal(err.code, 2);
  assert.match(err.stderr, /TOLK_LOG_LEVEL="loud": must be one of fatal, error, warn, info, debug, trace, silent/);
});

it('a port in use is reported in one line naming the port and its variable', async () => {
  const location = testStoreLocation('sqlite');
  try {
    await withTakenPort(async (port) => {
      const err = await failure(['serve'], { TOLK_PORT: String(port), TOLK_DATABASE_URL: location.url, TOLK_LOG_LEVEL: 'silent', TOLK_BERGAMOT_WORKERS: '0', TOLK_DOCUMENT_WORKERS: '0' });
      assert.equal(err.code, 1);
      assert.equal(err.stderr, `tolk: port ${port} on 127.0.0.1 is already in use (TOLK_PORT); stop the program using it or set TOLK_PORT to another port\n`);
    });
  } finally {
    location.cleanup();
  }
});
