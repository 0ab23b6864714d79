// Translation-memory jobs on any node (issue 25): two nodes on one database with data directories of their own and
// job files in the database. An import uploaded through one node exports and downloads through the other; a job whose
// node died is taken over by the other once its lease expired; a node that starts leaves a live node's job alone.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { buildServices, type Services } from '../../src/services.js';
import { buildApp } from '../../src/app.js';
import { authHeaders, createAccount, testStoreLocation, type TestAccount } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

const tmx = readFileSync(new URL('../../../test/fixtures/customization/small.tmx', import.meta.url));
const location = testStoreLocation();
const dirs: string[] = [];

interface Node {
  app: FastifyInstance;
  services: Services;
  close(drop?: boolean): Promise<void>;
}

/** Lease of 1 s, the shortest allowed, so a dead node's job is taken over within a test's patience. */
async function startNode(): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-tm-node-'));
  dirs.push(dataDir);
  const config = loadConfig({
    TOLK_DATABASE_URL: location.url,
    TOLK_DATA_DIR: dataDir,
    TOLK_PORT: '8080',
    TOLK_FREE_PORT: '8081',
    TOLK_DOCUMENT_STORE: 'database',
    TOLK_DOCUMENT_LEASE_MS: '1000',
  });
  const services = await buildServices(config, { engineOverride: [], ...(location.pgSchema ? { pgSchema: location.pgSchema } : {}) });
  const app = await buildApp({ config, services, logger: false });
  await app.ready();
  return {
    app,
    services,
    async close(drop = false) {
      await app.close();
      await services.close({ dropSchema: drop });
    },
  };
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  await waitFor(what, check);
}

let a: Node;
let b: Node;
let account: TestAccount;
before(async () => {
  a = await startNode();
  b = await startNode();
  account = await createAccount({ ...a, config: loadConfig({ TOLK_PORT: '8080', TOLK_FREE_PORT: '8081' }), close: async () => {} });
});
after(async () => {
  await a.close();
  await b.close(true);
  location.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const req = (node: Node, method: string, url: string, payload?: unknown) =>
  node.app.inject({ method: method as 'GET', url, headers: authHeaders(account), ...(payload !== undefined ? { payload: payload as string } : {}) });
const job = async (node: Node, id: string) => (await req(node, 'GET', `/v3/translation_memories/jobs/${id}`)).json().results[0];
const startImport = async (node: Node) => {
  const res = await req(node, 'POST', '/v3/translation_memories/import', { source_file: { file_name: 'a.tmx', content_length: tmx.length }, parameters: { display_name: 'Nodes' } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { job_id: string; upload_url: string };
};

describe('translation-memory jobs on any node', () => {
  it('imports through one node, exports and downloads through the other, with no file on either disk', async () => {
    const start = await startImport(a);
    const upload = new URL(start.upload_url);
    const up = await a.app.inject({ method: 'PUT', url: upload.pathname + upload.search, headers: { host: account.host, 'content-type': 'application/xml' }, payload: tmx });
    assert.equal(up.statusCode, 204, up.body);
    await until('the import to complete', async () => (await job(b, start.job_id)).status === 'completed');
    const memoryId = (await job(b, start.job_id)).translation_memory_id;
    const exp = await req(b, 'POST', `/v3/translation_memories/${memoryId}/export`);
    assert.equal(exp.statusCode, 202, exp.body);
    await until('the export to complete', async () => (await job(a, exp.json().job_id)).status === 'completed');
    const url = new URL((await job(a, exp.json().job_id)).download_url);
    // the URL node B signed is good on node A, whose disk never saw the file
    const dl = await a.app.inject({ method: 'GET', url: url.pathname + url.search, headers: { host: account.host } });
    assert.equal(dl.statusCode, 200, dl.body);
    assert.match(dl.body, /La impresora no tiene papel\./);
    assert.equal(a.services.memories.files.store.kind, 'database');
  });

  it('a job whose node died is taken over by another node once its lease expired, from its stored upload', async () => {
    const start = await startImport(a);
    const db = a.services.store.db;
    // the dead node had received the upload and imported part of it into the memory
    await a.services.memories.files.write(start.job_id, 'upload', Readable.from([tmx]));
    const memoryId = '0f0e0d0c-0b0a-4909-8807-060504030201';
    const now = Date.now();
    await db.insertInto('translation_memories').values({ id: memoryId, account_id: account.accountId, name: 'Nodes', source_lang: 'en', target_langs: '[]', segment_count: -1, created_at: now, updated_at: now }).execute();
    await db.insertInto('tm_segments').values({ memory_id: memoryId, target_lang: 'es', source: 'half', target: 'mitad' }).execute();
    await db
      .updateTable('tm_jobs')
      .set({ status: 'processing', memory_id: memoryId, lease_owner: 'dead', lease_expires_at: now + 300, attempts: 1 })
      .where('id', '=', start.job_id)
      .execute();
    // no restart anywhere: the nodes' runners look for abandoned jobs on their own
    await until('the job to be taken over and completed', async () => (await job(b, start.job_id)).status === 'completed');
    const row = await db.selectFrom('tm_jobs').select(['attempts', 'lease_owner']).where('id', '=', start.job_id).executeTakeFirstOrThrow();
    assert.equal(Number(row.attempts), 2);
    assert.equal(row.lease_owner, null);
    const memory = (await req(b, 'GET', `/v3/translation_memories/${memoryId}`)).json();
    assert.equal(memory.segment_count, 2, 'the half-made import was replaced, not added to');
    assert.equal(await a.services.memories.files.store.has(a.services.memories.files.fileId(start.job_id), 'upload'), false);
  });

  it('a node that starts leaves a job a live node is running alone', async () => {
    const start = await startImport(a);
    const db = a.services.store.db;
    await db
      .updateTable('tm_jobs')
      .set({ status: 'processing', lease_owner: 'alive', lease_expires_at: Date.now() + 60_000, attempts: 1 })
      .where('id', '=', start.job_id)
      .execute();
    const c = await startNode();
    try {
      await c.services.memories.recover();
      await c.services.memories.idle();
      assert.equal((await job(c, start.job_id)).status, 'processing');
      const row = await db.selectFrom('tm_jobs').select(['lease_owner']).where('id', '=', start.job_id).executeTakeFirstOrThrow();
      assert.equal(row.lease_owner, 'alive');
    } finally {
      await c.close();
    }
  });
});
