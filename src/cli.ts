#!/usr/bin/env node
// The `tolk` command: serve the API, and manage accounts and keys directly in the store (server running or not).
// Every command has its own help (`tolk COMMAND --help`), which never opens the store nor starts anything. The server
// and the store are imported when a command needs them, so help and --version answer without loading every engine.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { AccountsService } from './accounts/accounts-service.js';
import { closest, parseCommandArgs, UsageError, type Command, type CommandOptions } from './lib/command-line.js';
import { isModelsError, modelsCommand, modelsUsage, MODELS_SUBCOMMANDS, MODELS_USAGE } from './models/cli.js';

const JSON_OPTION = { json: { type: 'boolean', default: false } } as const satisfies CommandOptions;

/** Where every TOLK_* variable is described: this installation's copy when it has the docs, else the name in the repository. */
const CONFIGURATION_DOC = ((): string => {
  const path = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
  return existsSync(path) ? path : 'docs/configuration.md in the Tolk repository';
})();

/**
 * Every command but `models` (src/models/cli.ts), keyed by its words ("key revoke"). A new command is one entry here
 * (its handler may live in a module of its own that exports the entry): the usage, its own help, the group help
 * (`tolk key --help`), option parsing, argument counts and suggestions for misspellings all follow from it.
 */
const COMMANDS: Record<string, Command> = {
  serve: {
    synopsis: 'serve',
    summary: 'start the HTTP API (configuration from TOLK_* environment variables)',
    details: `  The paid API listens on TOLK_HOST:TOLK_PORT (default 127.0.0.1:8080), the free one on TOLK_FREE_PORT
  (default TOLK_PORT+1). Open http://127.0.0.1:8080/ and sign in with an admin key from \`tolk account create\`.
  Stops gracefully on SIGINT or SIGTERM. Every variable: ${CONFIGURATION_DOC}`,
    options: {},
    run: () => serve(),
  },
  'account create': {
    synopsis: 'account create --plan pro|free [--features detection] [--character-limit N|unlimited] [--name NAME] [--json]',
    summary: 'create an account and print its admin key (shown only once)',
    details: `  --plan pro|free           the plan: which base URL the keys use, and the default character limit
  --features LIST            comma-separated features (detection)
  --character-limit N        characters per billing period, or "unlimited" (default: 500000 on free, none on pro)
  --name NAME                the account's name
  --json                     print {"account_id", "admin_key"}`,
    options: {
      plan: { type: 'string' },
      features: { type: 'string', multiple: true },
      'character-limit': { type: 'string' },
      name: { type: 'string' },
      ...JSON_OPTION,
    },
    run: accountCreate,
  },
  'account list': {
    synopsis: 'account list [--json]',
    summary: 'list the accounts: id, plan, character limit, features, name, creation date',
    options: JSON_OPTION,
    run: accountList,
  },
  'key create': {
    synopsis: 'key create --account ID [--label LABEL] [--json]',
    summary: 'create a developer key for an account and print it (shown only once)',
    details: `  --account ID               the account (see \`tolk account list\`)
  --label LABEL              a name for the key
  --json                     print {"key_id", "key"}`,
    options: { account: { type: 'string' }, label: { type: 'string' }, ...JSON_OPTION },
    run: keyCreate,
  },
  'key list': {
    synopsis: 'key list --account ID [--json]',
    summary: "list an account's keys (admin and developer, active and revoked); secrets are never shown",
    options: { account: { type: 'string' }, ...JSON_OPTION },
    run: keyList,
  },
  'key revoke': {
    synopsis: 'key revoke KEY_ID',
    summary: 'deactivate a key permanently: running servers refuse it from their next request (as the Admin API does)',
    options: JSON_OPTION,
    positionals: 1,
    run: keyRevoke,
  },
  backup: {
    synopsis: 'backup FILE [--no-database] [--json]',
    summary: 'write a backup of the installation (database, documents, secrets, list of models) while the server runs',
    details: `  FILE is one archive, written 0600 (it holds the server's secrets) and complete or absent, never half-written.
  SQLite: the database through SQLite's online backup, then TOLK_DATA_DIR's files; models are listed, not copied.
  --no-database              leave the database out (PostgreSQL: back it up with pg_dump; docs/operations.md)
  --json                     print the archive's manifest`,
    options: { 'no-database': { type: 'boolean', default: false }, ...JSON_OPTION },
    positionals: 1,
    run: async (values, [file]) => {
      const { backup, describeBackup } = await import('./ops/backup.js');
      const result = await backup(loadConfig(), file!, { noDatabase: values['no-database'] as boolean });
      out(values.json ? `${JSON.stringify({ path: result.path, bytes: result.bytes, ...result.manifest })}\n` : describeBackup(result));
    },
  },
  restore: {
    synopsis: 'restore FILE [--json]',
    summary: 'restore a backup into an empty TOLK_DATA_DIR (and the SQLite database); prints how to reinstall the models',
    options: JSON_OPTION,
    positionals: 1,
    run: async (values, [file]) => {
      const { restore, describeRestore } = await import('./ops/restore.js');
      const result = await restore(loadConfig(), file!);
      out(values.json ? `${JSON.stringify({ data_dir: result.dataDir, database: result.database ?? null, files: result.files, models: result.manifest.models })}\n` : describeRestore(result));
    },
  },
};

const USAGE = `Usage: tolk COMMAND [OPTIONS]   (tolk COMMAND --help for a command's own help)

${Object.values(COMMANDS)
  .map((c) => `  tolk ${c.synopsis}\n      ${c.summary}`)
  .join('\n')}
${MODELS_USAGE}

  tolk --version
      print Tolk's version and the API version it implements
`;

function commandHelp(name: string): string {
  const c = COMMANDS[name]!;
  return `Usage: tolk ${c.synopsis}\n\n  ${c.summary}\n${c.details ? `\n${c.details}\n` : ''}`;
}

/** The help of a group (`tolk account --help`): its commands' synopses. */
function groupHelp(group: string): string {
  const names = Object.keys(COMMANDS).filter((n) => n.startsWith(`${group} `));
  return `Usage:\n${names.map((n) => `  tolk ${COMMANDS[n]!.synopsis}\n      ${COMMANDS[n]!.summary}`).join('\n')}\n`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return `tolk ${pkg.version} (Translation Service API v3.13.0)\n`;
}

/** Columns padded to their widest cell, the header row first. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return `${[header, ...rows].map(line).join('\n')}\n`;
}

const date = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().slice(0, 16).replace('T', ' '));
const out = (s: string) => process.stdout.write(s);

async function withAccounts<T>(fn: (accounts: AccountsService) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const [{ Store }, { AccountsService }] = await Promise.all([import('./store/store.js'), import('./accounts/accounts-service.js')]);
  const store = await Store.open({ url: config.databaseUrl });
  try {
    return await fn(new AccountsService(store.repositories.accounts, store.changes));
  } finally {
    await store.close();
  }
}

async function accountCreate(values: Record<string, unknown>): Promise<void> {
  if (values.plan !== 'pro' && values.plan !== 'free') throw new UsageError('--plan must be "pro" or "free"');
  let characterLimit: number | null | undefined;
  const raw = values['character-limit'] as string | undefined;
  if (raw !== undefined) {
    if (raw === 'unlimited') characterLimit = null;
    else if (/^\d+$/.test(raw)) characterLimit = Number(raw);
    else throw new UsageError('--character-limit must be a non-negative integer or "unlimited"');
  }
  const features = ((values.features as string[] | undefined) ?? []).flatMap((f) => f.split(',')).map((f) => f.trim()).filter(Boolean);
  const created = await withAccounts((accounts) =>
    accounts.createAccount({
      plan: values.plan as 'pro' | 'free',
      features,
      ...(characterLimit !== undefined ? { characterLimit } : {}),
      ...(values.name ? { name: values.name as string } : {}),
    }),
  );
  if (values.json) out(`${JSON.stringify({ account_id: created.account.id, admin_key: created.adminKey })}\n`);
  else out(`account_id: ${created.account.id}\nadmin_key:  ${created.adminKey}\n(the key is shown only once)\n`);
}

async function accountList(values: Record<string, unknown>): Promise<void> {
  const accounts = await withAccounts((service) => service.listAccounts());
  if (values.json) {
    out(`${JSON.stringify(accounts.map((a) => ({ account_id: a.id, name: a.name, plan: a.plan, character_limit: a.characterLimit, features: [...a.features], created_at: new Date(a.createdAt).toISOString() })))}\n`);
    return;
  }
  if (accounts.length === 0) {
    out('no accounts (tolk account create --plan pro)\n');
    return;
  }
  out(table(
    ['ACCOUNT ID', 'PLAN', 'CHARACTER LIMIT', 'FEATURES', 'CREATED (UTC)', 'NAME'],
    accounts.map((a) => [a.id, a.plan, a.characterLimit === null ? 'unlimited' : String(a.characterLimit), [...a.features].join(',') || '-', date(a.createdAt), a.name]),
  ));
}

async function keyCreate(values: Record<string, unknown>): Promise<void> {
  if (!values.account) throw new UsageError('--account is required');
  const account = values.account as string;
  const label = values.label as string | undefined;
  const created = await withAccounts((accounts) => accounts.createKey(account, label !== undefined ? { label } : {}));
  if (values.json) out(`${JSON.stringify({ key_id: created.key.id, key: created.secret })}\n`);
  else out(`key_id: ${created.key.id}\nkey:    ${created.secret}\n(the key is shown only once)\n`);
}

async function keyList(values: Record<string, unknown>): Promise<void> {
  if (!values.account) throw new UsageError('--account is required');
  const keys = await withAccounts((accounts) => accounts.listKeys(values.account as string));
  if (values.json) {
    out(`${JSON.stringify(keys.map((k) => ({ key_id: k.id, kind: k.kind, label: k.label, key: `${k.keyStart}…${k.keyEnd}`, scopes: k.scopes, character_limit: k.characterLimit, created_at: new Date(k.createdAt).toISOString(), deactivated_at: k.deactivatedAt === null ? null : new Date(k.deactivatedAt).toISOString() })))}\n`);
    return;
  }
  out(table(
    ['KEY ID', 'KIND', 'KEY', 'STATUS', 'CHARACTER LIMIT', 'CREATED (UTC)', 'LABEL'],
    keys.map((k) => [k.id, k.kind, `${k.keyStart}…${k.keyEnd}`, k.deactivatedAt === null ? 'active' : `revoked ${date(k.deactivatedAt)}`, k.characterLimit === null ? '-' : String(k.characterLimit), date(k.createdAt), k.label]),
  ));
}

async function keyRevoke(values: Record<string, unknown>, positionals: string[]): Promise<void> {
  const key = await withAccounts((accounts) => accounts.revokeKey(positionals[0]!));
  if (values.json) out(`${JSON.stringify({ key_id: key.id, deactivated_at: new Date(key.deactivatedAt!).toISOString() })}\n`);
  else out(`revoked ${key.id} (${key.kind} key "${key.label}") at ${date(key.deactivatedAt)} UTC\n`);
}

/** The variable that sets each port the server listens on, to name it when the port is taken. */
function portVariable(config: Config, port: number): string {
  if (port === config.port) return 'TOLK_PORT';
  if (port === config.freePort) return 'TOLK_FREE_PORT';
  return 'TOLK_METRICS_PORT';
}

class PortInUseError extends Error {}

async function serve(): Promise<void> {
  let config = loadConfig();
  // Several HTTP processes: this one is their primary, or one of them (forked by it with node:cluster).
  const processes = config.httpProcesses > 1 ? await import('./http-processes.js') : undefined;
  const { default: cluster } = await import('node:cluster');
  if (processes && cluster.isPrimary) return processes.runHttpProcesses(config);
  const role = processes?.httpProcessRole();
  if (processes) config = processes.processShare(config);
  const { startServer } = await import('./server.js');
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config, role);
  } catch (err) {
    const { code, port, address } = err as { code?: string; port?: number; address?: string };
    if (code === 'EADDRINUSE' && port !== undefined) {
      const variable = portVariable(config, port);
      throw new PortInUseError(`port ${port} on ${address ?? config.host} is already in use (${variable}); stop the program using it or set ${variable} to another port`);
    }
    if (code === 'EACCES' && port !== undefined) {
      throw new PortInUseError(`not allowed to listen on port ${port} (${portVariable(config, port)}); ports below 1024 need privileges`);
    }
    throw err;
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (err) => {
        server.app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  if (role) {
    // a primary that is gone (killed) leaves no HTTP process behind
    process.on('disconnect', () => stop('primary gone'));
    role.ready();
  }
  // A promise some library leaves unhandled (pdf.js can, after reading a damaged file) must not take every request
  // and queued job down with it: log it with its stack and keep serving.
  process.on('unhandledRejection', (reason) => server.app.log.error({ err: reason }, 'unhandled promise rejection'));
}

const wantsHelp = (args: string[]) => args.includes('--help') || args.includes('-h');

/** The lines printed after a usage error: the command's own synopsis, or where the list of commands is. */
function usageAfterError(command: string | undefined): string {
  if (command === 'models') return 'tolk models --help lists them\n';
  if (command?.startsWith('models ')) return `Usage:\n${modelsUsage(command.slice('models '.length))}`;
  const entry = command ? COMMANDS[command] : undefined;
  if (entry) return `Usage: tolk ${entry.synopsis}\n(tolk ${command} --help explains it)\n`;
  if (command && isGroup(command)) return groupHelp(command);
  return 'tolk --help lists every command\n';
}

const isGroup = (word: string) => Object.keys(COMMANDS).some((n) => n.startsWith(`${word} `));

/** Every command's words, for suggestions: "account create", …, "models install", …. */
const commandNames = () => [
  ...new Set([...Object.keys(COMMANDS).flatMap((n) => [n, n.split(' ')[0]!]), 'models', ...MODELS_SUBCOMMANDS.map((m) => `models ${m}`), 'help', 'version']),
];

/** An unknown command, with the closest known one; within a group (`tolk key revok`), followed by the group's commands. */
function unknownCommand(words: string, group?: string): UsageError {
  const suggestion = closest(words, commandNames());
  return new UsageError(`unknown command: ${words}${suggestion ? ` (did you mean tolk ${suggestion}?)` : ''}`, group);
}

async function dispatch(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h') return out(USAGE), 0;
  if (command === '--version' || command === '-V' || command === 'version') return out(version()), 0;
  if (command.startsWith('-')) {
    const suggestion = closest(command, ['--help', '--version']);
    throw new UsageError(`unknown option ${command}${suggestion ? ` (did you mean ${suggestion}?)` : ''}: tolk takes a command first`);
  }
  if (command === 'help') {
    const name = [sub, ...rest].filter(Boolean).join(' ');
    if (COMMANDS[name]) return out(commandHelp(name)), 0;
    if (name && isGroup(name)) return out(groupHelp(name)), 0;
    if (name.startsWith('models')) return await modelsCommand(name.split(' ')[1] ?? 'help', ['--help'], loadConfig);
    if (name) throw unknownCommand(name);
    return out(USAGE), 0;
  }
  if (command === 'models') return await modelsCommand(sub, rest, loadConfig);
  const name = COMMANDS[command] ? command : `${command} ${sub ?? ''}`.trim();
  const args = COMMANDS[command] ? argv.slice(1) : rest;
  const entry = COMMANDS[name];
  if (!entry) {
    if (!isGroup(command)) throw unknownCommand(command);
    if (sub === undefined || wantsHelp([sub])) return out(groupHelp(command)), 0;
    throw sub.startsWith('-') ? new UsageError(`${command} needs a command before its options`, command) : unknownCommand(name, command);
  }
  if (wantsHelp(args)) return out(commandHelp(name)), 0;
  const { values, positionals } = parseCommandArgs(name, args, entry.options);
  const wanted = entry.positionals ?? 0;
  if (positionals.length !== wanted) {
    const words = name.split(' ').length;
    const what = wanted ? `${wanted} argument${wanted > 1 ? 's' : ''} (${entry.synopsis.split(' ').slice(words, words + wanted).join(' ')})` : 'no arguments';
    throw new UsageError(`${name} takes ${what}, got ${positionals.length}${positionals.length ? `: ${positionals.join(' ')}` : ''}`, name);
  }
  try {
    await entry.run(values, positionals);
  } catch (err) {
    // a mistake `run` finds in the values is reported with this command's usage
    if (err instanceof UsageError && err.command === undefined) throw new UsageError(err.message, name);
    throw err;
  }
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`tolk: ${err.message}\n${usageAfterError(err.command)}`);
      return 2;
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`tolk: ${err.message}\n`);
      return 2;
    }
    if (err instanceof PortInUseError || isModelsError(err)) {
      process.stderr.write(`tolk: ${(err as Error).message}\n`);
      return 1;
    }
    const code = (err as { code?: string }).code;
    if (code === 'not_found' || code === 'invalid_request') {
      process.stderr.write(`tolk: ${(err as Error).message}\n`);
      return 1;
    }
    throw err;
  }
}

const exitCode = await main(process.argv.slice(2));
if (process.argv[2] !== 'serve') process.exitCode = exitCode;
else if (exitCode !== 0) process.exit(exitCode);
