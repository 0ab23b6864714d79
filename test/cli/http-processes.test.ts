// `tolk serve` with TOLK_HTTP_PROCESSES=2, on SQLite and on PostgreSQL: the connections land on both processes (seen in
// /proc: each child holds some of the client's sockets), the rate limit and the usage ledger are exact across them, a
// revoked key is refused at once by both, a document is translated once, and SIGTERM leaves no process behind.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { freePort, TEST_POSTGRES_URL } from '../helpers/harness.js';
import { defaultHttpProcesses, loadConfig } from '../../src/config.js';
import { processShare } from '../../src/http-processes.js';
import { freshPostgresDatabase } from '../helpers/fresh-database.js';
import { cliJson, serveEnv, startServe } from '../helpers/serve-process.js';
import { alive, gone } from '../helpers/processes.js';
import { HUNG_TEST_MS, waitFor } from '../helpers/wait.js';

const RATE_LIMIT = 30;

/** The child processes of `pid` (Linux's /proc children lists, every thread's). */
function children(pid: number): number[] {
  const out: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    out.push(...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  }
  return out;
}

function descendants(pid: number): number[] {
  return children(pid).flatMap((c) => [c, ...descendants(c)]);
}

/** Inodes of the established TCP connections whose local port is `port` (the server's end). */
function serverSockets(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && parseInt(f[1]!.split(':')[1]!, 16) === port && f[3] === '01') inodes.add(f[9]!);
    }
  }
  return inodes;
}

/** How many of the server's connections each process holds. */
function connectionsHeld(pids: number[], port: number): number[] {
  const server = serverSockets(port);
  return pids.map((pid) => {
    let n = 0;
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && server.has(m[1]!)) n += 1;
      } catch {
        // closed meanwhile
      }
    }
    return n;
  });
}

interface Answer {
  status: number;
  body: string;
}

function call(agent: Agent, port: number, method: string, path: string, key: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: { authorization: `DeepL-Auth-Key ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `count` calls, `parallel` at a time, each on the agent's connections. */
async function burst(count: number, parallel: number, one: () => Promise<Answer>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        next += 1;
        const { status } = await one();
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

async function twoProcesses(databaseUrl: string | undefined, jobAttempts: (id: string) => Promise<number>, dataDir: string): Promise<void> {
  const [port, free] = [await freePort(), await freePort()];
  const env = {
    ...serveEnv(dataDir, databaseUrl, port, free),
    TOLK_HTTP_PROCESSES: '2',
    TOLK_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    TOLK_DOCUMENT_WORKERS: '2',
    TOLK_LOG_LEVEL: 'warn',
    // the client's connections stay open between the steps, which wait for CLI commands (seconds under load)
    TOLK_KEEP_ALIVE_TIMEOUT_MS: String(10 * HUNG_TEST_MS),
  };
  const server = await startServe({ ...env, TOLK_LOG_LEVEL: 'info' });
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  let family: number[] = [];
  try {
    const processes = children(server.child.pid!);
    assert.equal(processes.length, 2, `HTTP processes: ${processes.join(', ')}`);
    const account = await cliJson(env, ['account', 'create', '--plan', 'pro']);
    const limited = await cliJson(env, ['key', 'create', '--account', account.account_id!]);

    // The rate limit: one budget for the key, spent once whichever process counts it.
    const statuses = await burst(RATE_LIMIT + 20, 8, () => call(agent, port, 'GET', '/v2/usage', limited.key!));
    const held = connectionsHeld(processes, port);
    assert.ok(held.every((n) => n > 0), `premise: both processes hold connections (${held.join(', ')})`);
    assert.equal(statuses.get(200), RATE_LIMIT, `statuses: ${JSON.stringify([...statuses])}`);
    assert.equal(statuses.get(429), 20);

    // Usage: each charge counted once, and an account limit spent exactly, with both processes charging at once.
    const capped = await cliJson(env, ['account', 'create', '--plan', 'pro', '--character-limit', '250']);
    const text = 'The printer is out of paper.';
    const translate = () => call(agent, port, 'POST', '/v2/translate', capped.admin_key!, JSON.stringify({ text: [text], target_lang: 'ES' }));
    const charged = await burst(16, 8, translate);
    const fits = Math.floor(250 / text.length);
    assert.equal(charged.get(200), fits, `statuses: ${JSON.stringify([...charged])}`);
    assert.equal(charged.get(456), 16 - fits);
    const usage = JSON.parse((await call(agent, port, 'GET', '/v2/usage', capped.admin_key!)).body) as { character_count: number };
    assert.equal(usage.character_count, fits * text.length);

    // Revocation: a key both processes have verified (and cached) is refused by both at once.
    const revoked = await cliJson(env, ['key', 'create', '--account', account.account_id!]);
    const before = await burst(8, 8, () => call(agent, port, 'GET', '/v2/usage', revoked.key!));
    assert.equal(before.get(200), 8);
    await cliJson(env, ['key', 'revoke', revoked.key_id!]);
    const after = await burst(8, 8, () => call(agent, port, 'GET', '/v2/usage', revoked.key!));
    assert.deepEqual([...after], [[403, 8]]);

    // A document: claimed by one process's worker, translated once.
    const form = new FormData();
    form.set('target_lang', 'ES');
    form.set('file', new Blob(['The printer is out of paper.\nThe meeting starts at noon.\n']), 'note.txt');
    const auth = { authorization: `DeepL-Auth-Key ${account.admin_key}` };
    const up = await fetch(`http://127.0.0.1:${port}/v2/document`, { method: 'POST', headers: auth, body: form });
    assert.equal(up.status, 200, await up.clone().text());
    const { document_id: id, document_key: documentKey } = (await up.json()) as { document_id: string; document_key: string };
    await waitFor('the document to be done', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/v2/document/${id}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ document_key: documentKey }) });
      const status = ((await res.json()) as { status: string }).status;
      assert.notEqual(status, 'error');
      return status === 'done';
    });
    assert.equal(await jobAttempts(id), 1);
    const result = await fetch(`http://127.0.0.1:${port}/v2/document/${id}/result`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ document_key: documentKey }) });
    assert.match(await result.text(), /impresora/);

    // An HTTP process killed is replaced (logged), its engines' processes end with it, and the node serves on.
    const [victim, survivor] = processes as [number, number];
    const victimFamily = descendants(victim);
    process.kill(victim, 'SIGKILL');
    await waitFor('the killed HTTP process to be replaced', () => /HTTP process died; starting another/.test(server.logs()) && children(server.child.pid!).length === 2 && !children(server.child.pid!).includes(victim));
    for (const pid of victimFamily) assert.ok(await gone(pid), `process ${pid} of the killed HTTP process outlived it`);
    await waitFor('the new HTTP process to listen', () => server.logs().split('HTTP process listening').length - 1 === 3);
    assert.ok(children(server.child.pid!).includes(survivor));
    const served = await burst(8, 8, () => call(agent, port, 'GET', '/v2/usage', capped.admin_key!));
    assert.equal(served.get(200), 8);

    // SIGTERM: every process of the node (HTTP processes, their engines) ends, the primary with 0.
    family = descendants(server.child.pid!);
    agent.destroy();
    assert.equal(await server.stop('SIGTERM'), 0, server.logs().slice(-3000));
    for (const pid of family) assert.ok(await gone(pid), `process ${pid} outlived the node`);
  } catch (err) {
    // what the node said about it
    const said = server.logs().split('\n').filter((l) => /"level":[456]0/.test(l));
    throw new Error(`${(err as Error).stack}\n${said.slice(-20).join('\n')}`);
  } finally {
    agent.destroy();
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    for (const pid of family) if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
}

describe('TOLK_HTTP_PROCESSES=2', { timeout: 3 * HUNG_TEST_MS }, () => {
  it('SQLite: both processes serve; rate limit, usage, revocation and documents exact; SIGTERM ends all', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tolk-processes-'));
    try {
      await twoProcesses(undefined, async (id) => {
        const db = new SqliteDatabase(join(dataDir, 'tolk.db'), { readonly: true });
        try {
          return (db.prepare('SELECT attempts FROM documents WHERE id = ?').get(id) as { attempts: number }).attempts;
        } finally {
          db.close();
        }
      }, dataDir);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: the same', async (t) => {
    const probe = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3000 });
    try {
      await probe.connect();
    } catch (err) {
      return t.skip(`PostgreSQL does not answer at ${TEST_POSTGRES_URL}: ${(err as Error).message}`);
    } finally {
      await probe.end().catch(() => {});
    }
    const db = await freshPostgresDatabase('tolk_processes');
    const dataDir = mkdtempSync(join(tmpdir(), 'tolk-processes-'));
    const client = new pg.Client({ connectionString: db.url });
    try {
      await client.connect();
      await twoProcesses(db.url, async (id) => Number((await client.query<{ attempts: number }>('SELECT attempts FROM documents WHERE id = $1', [id])).rows[0]!.attempts), dataDir);
    } finally {
      await client.end().catch(() => {});
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

it('each HTTP process gets its share of the engines: what one process would start, divided', () => {
  const base = { TOLK_HTTP_PROCESSES: '4', TOLK_APERTIUM_PIPELINES_PER_PAIR: '8', TOLK_BERGAMOT_WORKERS: '16', TOLK_BERGAMOT_MEMORY_MB: '8192' };
  const share = processShare(loadConfig({ ...base, TOLK_APERTIUM_MEMORY_MB: '4096', TOLK_DOCUMENT_WORKERS: '2', TOLK_HUNSPELL_PROCESSES: '3' }));
  assert.equal(share.apertium.maxPipelinesPerPair, 2);
  assert.equal(share.apertium.memoryBudgetMb, 1024);
  assert.equal(share.bergamot.workers, 4);
  assert.equal(share.bergamot.memoryBudgetMb, 2048);
  // rounded up: the node never runs fewer than asked
  assert.equal(share.documents.workers, 1);
  assert.equal(share.hunspellProcesses, 1);
  // off stays off; a neural budget never drops below one base-memory direction
  const off = processShare(loadConfig({ ...base, TOLK_BERGAMOT_WORKERS: '0', TOLK_DOCUMENT_WORKERS: '0', TOLK_BERGAMOT_MEMORY_MB: '2048' }));
  assert.equal(off.bergamot.workers, 0);
  assert.equal(off.documents.workers, 0);
  assert.equal(off.bergamot.memoryBudgetMb, 1024);
});

it('TOLK_HTTP_PROCESSES: auto is one process below 4 cores, one per 4 cores above; never several on a database in memory', () => {
  assert.deepEqual([2, 3, 4, 8, 16, 64, 128].map((cores) => defaultHttpProcesses(cores)), [1, 1, 1, 2, 4, 16, 16]);
  assert.equal(loadConfig({ TOLK_HTTP_PROCESSES: '3' }).httpProcesses, 3);
  assert.equal(loadConfig({ TOLK_HTTP_PROCESSES: 'auto', TOLK_DATABASE_URL: ':memory:' }).httpProcesses, 1);
  assert.throws(() => loadConfig({ TOLK_HTTP_PROCESSES: '2', TOLK_DATABASE_URL: ':memory:' }), /TOLK_HTTP_PROCESSES above 1 needs a database file/);
  assert.throws(() => loadConfig({ TOLK_HTTP_PROCESSES: '0' }), /TOLK_HTTP_PROCESSES/);
});
