// A Tolk cluster as an operator runs it: PostgreSQL (a fresh database per cluster), N `tolk serve` processes with
// data directories of their own (no shared disk), and HAProxy in front, all real processes with deadlines.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freshPostgresDatabase } from './fresh-database.js';
import { TEST_POSTGRES_URL, freePort } from './harness.js';
import { cliJson, startServe, type ServeProcess } from './serve-process.js';
import { HUNG_TEST_MS } from './wait.js';

export interface ClusterNode {
  name: string;
  /** The node's own paid-plan URL (bypassing the load balancer). */
  url: string;
  serve: ServeProcess;
  env: NodeJS.ProcessEnv;
  /** kill -9: no shutdown, no hand-back of jobs; resolves when the process is gone. */
  kill(): Promise<void>;
}

export interface Cluster {
  /** The load balancer's URL; responses name the node that answered in `x-tolk-node`. */
  url: string;
  databaseUrl: string;
  nodes: ClusterNode[];
  /** `tolk` CLI against the cluster's database (as an operator would run it on any node). */
  cli(args: string[]): Promise<Record<string, string>>;
  /** The cluster's own database, for checks on its tables. */
  query<T extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** Why a cluster cannot be started here (haproxy or PostgreSQL absent), or undefined when it can. */
export async function clusterUnavailable(): Promise<string | undefined> {
  const probe = spawnSync('haproxy', ['-v'], { timeout: 5000 });
  if (probe.error || probe.status !== 0) return 'haproxy is not installed (Debian package haproxy; scripts/setup.sh --test)';
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (err) {
    return `PostgreSQL does not answer at ${TEST_POSTGRES_URL}: ${(err as Error).message}`;
  } finally {
    await client.end().catch(() => {});
  }
  return undefined;
}

export interface ClusterOptions {
  nodes?: number;
  /** Environment of every node (e.g. TOLK_DOCUMENT_LEASE_MS, TOLK_APERTIUM_PAIRS). */
  env?: Record<string, string>;
}

function haproxyConfig(port: number, nodes: { name: string; port: number }[]): string {
  return [
    'global',
    '  maxconn 512',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 120s',
    '  timeout server 120s',
    // a node that died: the request goes to another one instead of failing
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure empty-response',
    'frontend tolk',
    `  bind 127.0.0.1:${port}`,
    '  option forwardfor',
    '  default_backend nodes',
    'backend nodes',
    '  balance roundrobin',
    '  option httpchk GET /health/live',
    '  http-response set-header x-tolk-node %s',
    // tolerant checks (a loaded node answers slowly, and is not dead); a dead one refuses connections, which the
    // retries above send elsewhere at once
    '  timeout check 3s',
    ...nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.port} check inter 1s fall 3 rise 1`),
    '',
  ].join('\n');
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const database = await freshPostgresDatabase('tolk_cluster');
  const databaseUrl = database.url;
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const dirs: string[] = [];
  const nodes: ClusterNode[] = [];
  let haproxy: ChildProcess | undefined;
  const close = async () => {
    haproxy?.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.serve.stop('SIGKILL')));
    await db.end().catch(() => {});
    await database.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  };
  try {
    // One after the other: the first node runs the migrations, the others find them done (as in docs/deployment.md).
    for (let i = 0; i < (options.nodes ?? 2); i++) {
      const name = `node${String.fromCharCode(97 + i)}`;
      const dataDir = mkdtempSync(join(tmpdir(), `tolk-${name}-`));
      dirs.push(dataDir);
      const port = await freePort();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        TOLK_DATABASE_URL: databaseUrl,
        TOLK_DATA_DIR: dataDir,
        TOLK_PORT: String(port),
        TOLK_FREE_PORT: String(await freePort()),
        TOLK_APERTIUM_PAIRS: 'en-es',
        // the load balancer (docs/deployment.md)
        TOLK_TRUST_PROXY: '127.0.0.1',
        ...options.env,
      };
      const serve = await startServe(env);
      nodes.push({
        name,
        url: `http://127.0.0.1:${port}`,
        serve,
        env,
        async kill() {
          await serve.stop('SIGKILL');
        },
      });
    }
    const lbPort = await freePort();
    const cfgDir = mkdtempSync(join(tmpdir(), 'tolk-haproxy-'));
    dirs.push(cfgDir);
    const cfg = join(cfgDir, 'haproxy.cfg');
    writeFileSync(cfg, haproxyConfig(lbPort, nodes.map((n) => ({ name: n.name, port: Number(new URL(n.url).port) }))));
    // -db: foreground, so it is this test's child and goes with it; -W is not needed for one process
    haproxy = spawn('haproxy', ['-f', cfg, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let haproxyLog = '';
    haproxy.stdout!.on('data', (d) => (haproxyLog += d));
    haproxy.stderr!.on('data', (d) => (haproxyLog += d));
    const url = `http://127.0.0.1:${lbPort}`;
    // ready when every node answers through it
    const seen = new Set<string>();
    for (const end = Date.now() + HUNG_TEST_MS; seen.size < nodes.length; ) {
      if (Date.now() > end || haproxy.exitCode !== null) throw new Error(`HAProxy did not reach every node:\n${haproxyLog}`);
      const res = await fetch(`${url}/health/live`).catch(() => undefined);
      const node = res?.headers.get('x-tolk-node');
      if (res?.ok && node) seen.add(node);
      else await new Promise((r) => setTimeout(r, 100));
    }
    return {
      url,
      databaseUrl,
      nodes,
      cli: (args) => cliJson(nodes[0]!.env, args),
      query: async <T extends pg.QueryResultRow>(text: string, values?: unknown[]) => (await db.query<T>(text, values)).rows,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
