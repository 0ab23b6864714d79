// Test harness: an isolated store (SQLite file or a fresh PostgreSQL schema per suite), real engines, and an app.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { buildServices, type BuildServicesOptions, type Services } from '../../src/services.js';
import { buildApp, type BuildAppOptions } from '../../src/app.js';
import { ApertiumEngine } from '../../src/engines/apertium/index.js';
import { LOAD_FACTOR } from './wait.js';
import type { TranslationEngine } from '../../src/engines/engine.js';

export type TestDatabase = 'sqlite' | 'postgres';

/** Which database this run uses: .ci/run and scripts/run-tests.mjs run the whole suite once per database. */
export function testDatabase(): TestDatabase {
  return process.env.TOLK_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
}

export const TEST_POSTGRES_URL = process.env.TOLK_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestStoreLocation {
  url: string;
  pgSchema?: string;
  cleanup(): void;
}

export function testStoreLocation(db: TestDatabase = testDatabase()): TestStoreLocation {
  if (db === 'postgres') {
    return { url: TEST_POSTGRES_URL, pgSchema: `t_${randomBytes(6).toString('hex')}`, cleanup() {} };
  }
  const dir = mkdtempSync(join(tmpdir(), 'tolk-test-'));
  return { url: join(dir, 'tolk.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Pairs the HTTP suites need: few, so engine start-up (probing) stays short. */
export const TEST_PAIRS = ['en-es', 'es-en', 'es-pt', 'es-pt-br', 'es-en-us', 'es-ca', 'ca-es', 'fr-es'];

export function testEngines(pairs: string[] = TEST_PAIRS): TranslationEngine[] {
  // Warm at start, as the suites assume (a first request to a cold pair also starts its pipeline: engine tests).
  // The request deadline grows with the machine's load, as the tests' own waits do (the engine's default is 15 s).
  return [new ApertiumEngine({ pairs, warmPairs: pairs, maxPipelinesPerPair: 1, memoryBudgetMb: 2048, requestTimeoutMs: Math.round(15_000 * LOAD_FACTOR) })];
}

export interface TestContext {
  app: FastifyInstance;
  services: Services;
  config: Config;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  engines?: TranslationEngine[];
  now?: () => number;
  /** Document queue timing (BuildServicesOptions.documents). */
  documents?: BuildServicesOptions['documents'];
  /** A pino logger for the app (tests that read its lines); silent otherwise. */
  loggerInstance?: BuildAppOptions['loggerInstance'];
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestContext> {
  const location = testStoreLocation();
  // Each app gets its own data directory (uploads, memories) unless the test names one.
  const ownDataDir = options.env?.TOLK_DATA_DIR === undefined ? mkdtempSync(join(tmpdir(), 'tolk-data-')) : undefined;
  const config = loadConfig({
    TOLK_DATABASE_URL: location.url,
    TOLK_PORT: '8080',
    TOLK_FREE_PORT: '8081',
    ...(ownDataDir ? { TOLK_DATA_DIR: ownDataDir } : {}),
    ...options.env,
  });
  const services = await buildServices(config, {
    engineOverride: options.engines ?? testEngines(),
    ...(location.pgSchema ? { pgSchema: location.pgSchema } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.documents ? { documents: options.documents } : {}),
  });
  const app = await buildApp({ config, services, ...(options.loggerInstance ? { loggerInstance: options.loggerInstance } : { logger: false }) });
  await app.ready();
  return {
    app,
    services,
    config,
    async close() {
      await app.close();
      await services.close({ dropSchema: true });
      location.cleanup();
      if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
    },
  };
}

export interface TestAccount {
  accountId: string;
  adminKey: string;
  key: string;
  keyId: string;
  /** Host header of the endpoint that matches the account's plan. */
  host: string;
}

export async function createAccount(
  ctx: TestContext,
  input: { plan?: 'pro' | 'free'; features?: string[]; characterLimit?: number | null } = {},
): Promise<TestAccount> {
  const plan = input.plan ?? 'pro';
  const created = await ctx.services.accounts.createAccount({
    plan,
    features: input.features ?? [],
    ...(input.characterLimit !== undefined ? { characterLimit: input.characterLimit } : {}),
  });
  const dev = await ctx.services.accounts.createKey(created.account.id, { label: 'test' });
  const host = new URL(plan === 'free' ? ctx.config.freeBaseUrl : ctx.config.baseUrl).host;
  return { accountId: created.account.id, adminKey: created.adminKey, key: dev.secret, keyId: dev.key.id, host };
}

export function authHeaders(account: TestAccount, scheme = 'Service-Auth-Key'): Record<string, string> {
  return { authorization: `${scheme} ${account.key}`, host: account.host };
}

/** A port free on loopback right now (for servers whose URL must be known before they listen). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
