#!/usr/bin/env node
// The `tolk` command: serve the API, and manage accounts and keys directly in the store (server running or not).
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { AccountsService } from './accounts/accounts-service.js';
import { Store } from './store/store.js';
import { startServer } from './server.js';
import { isModelsError, modelsCommand, MODELS_USAGE } from './models/cli.js';

const USAGE = `Usage:
  tolk serve                                   start the HTTP API (configuration from TOLK_* environment variables)
  tolk account create --plan pro|free [--features detection] [--character-limit N] [--name NAME] [--json]
  tolk key create --account ID [--label LABEL] [--json]
${MODELS_USAGE}`;

class UsageError extends Error {}

async function withAccounts<T>(fn: (accounts: AccountsService) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await Store.open({ url: config.databaseUrl });
  try {
    return await fn(new AccountsService(store.repositories.accounts, store.changes));
  } finally {
    await store.close();
  }
}

async function accountCreate(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      plan: { type: 'string' },
      features: { type: 'string', multiple: true },
      'character-limit': { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.plan !== 'pro' && values.plan !== 'free') throw new UsageError('--plan must be "pro" or "free"');
  let characterLimit: number | null | undefined;
  if (values['character-limit'] !== undefined) {
    const raw = values['character-limit'];
    if (raw === 'unlimited') characterLimit = null;
    else if (/^\d+$/.test(raw)) characterLimit = Number(raw);
    else throw new UsageError('--character-limit must be a non-negative integer or "unlimited"');
  }
  const features = (values.features ?? []).flatMap((f) => f.split(',')).map((f) => f.trim()).filter(Boolean);
  const created = await withAccounts((accounts) =>
    accounts.createAccount({
      plan: values.plan as 'pro' | 'free',
      features,
      ...(characterLimit !== undefined ? { characterLimit } : {}),
      ...(values.name ? { name: values.name } : {}),
    }),
  );
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ account_id: created.account.id, admin_key: created.adminKey })}\n`);
  } else {
    process.stdout.write(`account_id: ${created.account.id}\nadmin_key:  ${created.adminKey}\n(the key is shown only once)\n`);
  }
}

async function keyCreate(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { account: { type: 'string' }, label: { type: 'string' }, json: { type: 'boolean', default: false } },
    strict: true,
  });
  if (!values.account) throw new UsageError('--account is required');
  const created = await withAccounts((accounts) =>
    accounts.createKey(values.account!, values.label !== undefined ? { label: values.label } : {}),
  );
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ key_id: created.key.id, key: created.secret })}\n`);
  } else {
    process.stdout.write(`key_id: ${created.key.id}\nkey:    ${created.secret}\n(the key is shown only once)\n`);
  }
}

async function serve(): Promise<void> {
  const server = await startServer(loadConfig());
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
  // A promise some library leaves unhandled (pdf.js can, after reading a damaged file) must not take every request
  // and queued job down with it: log it with its stack and keep serving.
  process.on('unhandledRejection', (reason) => server.app.log.error({ err: reason }, 'unhandled promise rejection'));
}

export async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  try {
    if (command === 'serve') await serve();
    else if (command === 'account' && sub === 'create') await accountCreate(rest);
    else if (command === 'key' && sub === 'create') await keyCreate(rest);
    else if (command === 'models') return await modelsCommand(sub, rest, loadConfig, (m) => new UsageError(m));
    else if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      process.stdout.write(USAGE);
    } else {
      throw new UsageError(`unknown command: ${argv.join(' ')}`);
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError || String((err as { code?: string }).code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`tolk: ${(err as Error).message}\n\n${USAGE}`);
      return 2;
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`tolk: ${err.message}\n`);
      return 2;
    }
    if (isModelsError(err)) {
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
