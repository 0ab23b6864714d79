// Mistakes on the command line as a person makes them: each answered with one line saying what is wrong (the closest
// known option or command when it looks like a slip) and the usage of the command that was meant, not the whole
// usage; every kind of model named where models are; serve --help pointing at a configuration guide that exists and
// covers every variable; the test-model script's own help.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { closest, parseCommandArgs, UsageError } from '../../src/lib/command-line.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const tolk = (args: string[]) => run(process.execPath, [CLI, ...args], { env: { ...process.env, TOLK_DATABASE_URL: '/nonexistent/dir/tolk.db' } });

/** A command that must fail: its exit code and stderr. */
async function failure(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return tolk(args).then(
    () => assert.fail(`tolk ${args.join(' ')} succeeded`),
    (err: { code: number; stdout: string; stderr: string }) => err,
  );
}

/** The full usage's line count, which no usage error may print. */
const fullUsageLines = async () => (await tolk(['--help'])).stdout.trimEnd().split('\n').length;

it('an unknown option is one line naming the command and the closest option, then that command\'s usage only', async () => {
  const full = await fullUsageLines();
  assert.ok(full > 20, `the full usage has ${full} lines`);
  const cases: [string[], RegExp][] = [
    [['key', 'create', '--acount', 'x'], /^tolk: unknown option --acount for tolk key create \(did you mean --account\?\)\nUsage: tolk key create --account ID/],
    [['account', 'create', '--plan=pro', '--charcter-limit=5'], /^tolk: unknown option --charcter-limit for tolk account create \(did you mean --character-limit\?\)\n/],
    [['account', 'list', '--verbose'], /^tolk: unknown option --verbose for tolk account list \(its options: --json\)\nUsage: tolk account list \[--json\]\n/],
    [['serve', '--port', '80'], /^tolk: unknown option --port for tolk serve \(it takes no options\)\nUsage: tolk serve\n/],
    [['models', 'list', '--jsn'], /^tolk: unknown option --jsn for tolk models list \(did you mean --json\?\)\nUsage:\n {2}tolk models list /],
  ];
  for (const [args, expected] of cases) {
    const err = await failure(args);
    assert.equal(err.code, 2, args.join(' '));
    assert.match(err.stderr, expected);
    // quotes come in pairs (Node's own message left one open), and the whole usage is not repeated
    assert.equal((err.stderr.match(/'/g) ?? []).length % 2, 0, err.stderr);
    assert.ok(err.stderr.trimEnd().split('\n').length < full / 2, err.stderr);
    assert.equal(err.stdout, '');
  }
});

it('a missing or wrong value, or a wrong count of arguments, prints that command\'s usage', async () => {
  const cases: [string[], RegExp][] = [
    [['key', 'create'], /^tolk: --account is required\nUsage: tolk key create --account ID \[--label LABEL\] \[--json\]\n\(tolk key create --help explains it\)\n$/],
    [['key', 'create', '--account'], /^tolk: --account needs a value\nUsage: tolk key create /],
    [['key', 'list', '--json=yes', '--account', 'a'], /^tolk: --json takes no value\nUsage: tolk key list /],
    [['account', 'create', '--plan', 'gold'], /^tolk: --plan must be "pro" or "free"\nUsage: tolk account create --plan pro\|free/],
    [['key', 'revoke', 'a', 'b'], /^tolk: key revoke takes 1 argument \(KEY_ID\), got 2: a b\nUsage: tolk key revoke KEY_ID\n/],
    [['account', 'list', 'extra'], /^tolk: account list takes no arguments, got 1: extra\nUsage: tolk account list/],
  ];
  for (const [args, expected] of cases) {
    const err = await failure(args);
    assert.equal(err.code, 2, args.join(' '));
    assert.match(err.stderr, expected);
  }
});

it('an unknown command suggests the closest one; within a group its commands are listed', async () => {
  let err = await failure(['acount', 'list']);
  assert.equal(err.stderr, 'tolk: unknown command: acount (did you mean tolk account?)\ntolk --help lists every command\n');
  err = await failure(['key', 'revok', 'x']);
  assert.match(err.stderr, /^tolk: unknown command: key revok \(did you mean tolk key revoke\?\)\nUsage:\n {2}tolk key create[\s\S]* {2}tolk key revoke KEY_ID\n/);
  assert.doesNotMatch(err.stderr, /tolk account/);
  err = await failure(['models', 'instal', 'en-de']);
  assert.equal(err.stderr, 'tolk: unknown models command: instal (did you mean tolk models install?)\ntolk models --help lists them\n');
  err = await failure(['frobnicate']);
  assert.equal(err.stderr, 'tolk: unknown command: frobnicate\ntolk --help lists every command\n');
  err = await failure(['--verison']);
  assert.equal(err.stderr, 'tolk: unknown option --verison (did you mean --version?): tolk takes a command first\ntolk --help lists every command\n');
  err = await failure(['help', 'acount']);
  assert.match(err.stderr, /did you mean tolk account\?/);
});

it('models install and remove name every kind of model in their help and errors', async () => {
  const kinds = [/\bPAIR\b|en-de/, /whisper-NAME/, /whisper-onnx-NAME/, /llm-NAME/];
  for (const sub of ['install', 'remove']) {
    const help = (await tolk(['models', sub, '--help'])).stdout;
    for (const kind of kinds) assert.match(help, kind, `models ${sub} --help names ${kind}`);
    const err = await failure(['models', sub, 'a', 'b', 'c/']);
    assert.equal(err.code, 2);
    const [message] = err.stderr.split('\n');
    for (const kind of kinds.slice(1)) assert.match(message!, kind, `models ${sub}'s error names ${kind}: ${message}`);
    assert.match(err.stderr, new RegExp(`\\nUsage:\\n {2}tolk models ${sub} `));
    assert.doesNotMatch(err.stderr, /tolk models (list|available|update|verify)/);
  }
});

it('serve --help names the configuration guide, which exists and describes every variable the server reads', async () => {
  const help = (await tolk(['serve', '--help'])).stdout;
  const path = /Every variable: (\S+configuration\.md)/.exec(help)?.[1];
  assert.ok(path && existsSync(path), help);
  const guide = readFileSync(path, 'utf8');
  const variables = new Set(readFileSync(`${ROOT}src/config.ts`, 'utf8').match(/TOLK_[A-Z0-9_]+/g));
  assert.ok(variables.size > 30);
  for (const variable of variables) assert.ok(guide.includes(`\`${variable}`), `${variable} is described in docs/configuration.md`);
  assert.match(readFileSync(`${ROOT}README.md`, 'utf8'), /docs\/configuration\.md/);
});

it('scripts/make-test-llm.mjs answers --help and refuses an unknown option with its usage', async () => {
  const script = `${ROOT}scripts/make-test-llm.mjs`;
  const { stdout } = await run(process.execPath, [script, '--help']);
  assert.match(stdout, /^usage: node scripts\/make-test-llm\.mjs --out FILE\.gguf/);
  const err = await run(process.execPath, [script, '--bogus']).then(
    () => assert.fail('an unknown option was accepted'),
    (e: { code: number; stderr: string }) => e,
  );
  assert.equal(err.code, 2);
  assert.match(err.stderr, /--bogus[\s\S]*usage: node scripts\/make-test-llm\.mjs/);
});

it('closest() suggests only what is near enough to be a slip', () => {
  assert.equal(closest('--acount', ['--account', '--label', '--json']), '--account');
  assert.equal(closest('--jsno', ['--account', '--label', '--json']), '--json');
  assert.equal(closest('--colour', ['--account', '--label', '--json']), undefined);
  assert.equal(closest('x', ['y']), 'y');
  assert.throws(() => parseCommandArgs('key list', ['--account'], { account: { type: 'string' } }), (err: unknown) => err instanceof UsageError && err.command === 'key list' && err.message === '--account needs a value');
  // an option's value that starts with a dash is a value, not an unknown option
  assert.equal(parseCommandArgs('key create', ['--label=-x-'], { label: { type: 'string' } }).values.label, '-x-');
});
