// Two Tolk nodes in one process, each with its own services, app and data directory, sharing one fresh PostgreSQL
// schema (as several machines share one database): for the tests of what a cluster must share (issue 25). Also one
// such node on any database, for tests that stop and start nodes (document recovery).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { buildServices } from '../../src/services.js';
import { buildApp } from '../../src/app.js';
import type { TranslationEngine } from '../../src/engines/engine.js';
import { TEST_POSTGRES_URL, type TestContext } from './harness.js';

/** An engine that answers en→es with "[es] " before each segment: translation without an engine's CPU cost. */
export class TaggingEngine implements TranslationEngine {
  readonly name = 'tagging';
  readonly features = { context: true };
  async start() {}
  async close() {}
  pairs() {
    return [{ source: 'en', target: 'es', formality: false }];
  }
  async translate(_pair: unknown, segments: string[]) {
    return segments.map((s) => `[es] ${s}`);
  }
}

export interface TestCluster {
  a: TestContext;
  b: TestContext;
  close(): Promise<void>;
}

export interface TestClusterOptions {
  /** Environment of both nodes (TOLK_DATABASE_URL and TOLK_DATA_DIR are set here). */
  env?: Record<string, string>;
  /** A clock for both nodes; a frozen one keeps cached keys from expiring, so only the change feed can drop them. */
  now?: () => number;
}

/** One node of a test: its own services and app on the given database, as a separate machine would run them. */
export interface TestNodeOptions extends TestClusterOptions {
  /** The database the node opens: a SQLite file or PostgreSQL, with the schema it uses there. */
  store: { url: string; pgSchema?: string };
  /** A data directory the caller owns (nodes sharing the documents directory); else a fresh one, removed at close. */
  dataDir?: string;
  /** Default: the TaggingEngine. */
  engines?: TranslationEngine[];
}

export type TestNode = TestContext & { close(options?: { dropSchema?: boolean }): Promise<void> };

export async function startTestNode(options: TestNodeOptions): Promise<TestNode> {
  const ownDataDir = options.dataDir === undefined ? mkdtempSync(join(tmpdir(), 'tolk-node-')) : undefined;
  const config = loadConfig({
    TOLK_DATABASE_URL: options.store.url,
    TOLK_PORT: '8080',
    TOLK_FREE_PORT: '8081',
    TOLK_DATA_DIR: options.dataDir ?? ownDataDir!,
    ...options.env,
  });
  const services = await buildServices(config, {
    engineOverride: options.engines ?? [new TaggingEngine()],
    ...(options.store.pgSchema ? { pgSchema: options.store.pgSchema } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const app = await buildApp({ config, services, logger: false });
  await app.ready();
  return {
    app,
    services,
    config,
    async close(closeOptions: { dropSchema?: boolean } = {}) {
      await app.close();
      await services.close(closeOptions);
      if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
    },
  };
}

const startNode = (schema: string, options: TestClusterOptions) => startTestNode({ ...options, store: { url: TEST_POSTGRES_URL, pgSchema: schema } });

/** Starts node A (which runs the migrations) then node B on one new schema; close() drops the schema. */
export async function createTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  const schema = `c_${randomBytes(6).toString('hex')}`;
  const a = await startNode(schema, options).catch(async (err: unknown) => {
    await dropSchema(schema);
    throw err;
  });
  const b = await startNode(schema, options).catch(async (err: unknown) => {
    await a.close({ dropSchema: true });
    throw err;
  });
  return {
    a,
    b,
    async close() {
      await b.close();
      await a.close({ dropSchema: true });
    },
  };
}

/** Drops a schema whose node failed to start (its store is closed already). */
async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${client.escapeIdentifier(schema)} CASCADE`);
  } finally {
    await client.end();
  }
}

export const TEST_REDIS_URL = process.env.TOLK_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Why the Redis tests cannot run here (no Redis answering PING at TEST_REDIS_URL), or undefined when they can. */
export async function redisUnavailable(): Promise<string | undefined> {
  const { hostname, port } = new URL(TEST_REDIS_URL);
  const answer = await new Promise<string>((resolve) => {
    const socket = connect(Number(port || 6379), hostname);
    let data = '';
    const done = (text: string) => {
      socket.destroy();
      resolve(text);
    };
    socket.setTimeout(1_000, () => done('timeout'));
    socket.on('error', (err) => done(err.message));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      data += d.toString();
      if (data.includes('\r\n')) done(data);
    });
  });
  return answer.startsWith('+PONG') ? undefined : `no Redis answers at ${TEST_REDIS_URL} (${answer.trim()}); set TOLK_TEST_REDIS_URL`;
}
