// The document queue survives restarts: jobs left in `translating` with an expired lease resume or end in `error`,
// stale downloads are released, and documents never downloaded are purged after the retention time.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { buildServices, type Services } from '../../src/services.js';
import { buildApp } from '../../src/app.js';
import { MAX_ATTEMPTS } from '../../src/documents/document-worker.js';
import { authHeaders, createAccount, testEngines, testStoreLocation, type TestAccount } from '../helpers/harness.js';
import { multipart } from '../documents/multipart.js';

const location = testStoreLocation();
const dataDir = mkdtempSync(join(tmpdir(), 'tolk-docs-recovery-'));
after(() => {
  location.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Node {
  app: FastifyInstance;
  services: Services;
  config: Config;
  close(drop?: boolean): Promise<void>;
}

async function startNode(workers: number, now?: () => number): Promise<Node> {
  const config = loadConfig({
    TOLK_DATABASE_URL: location.url,
    TOLK_DATA_DIR: dataDir,
    TOLK_PORT: '8080',
    TOLK_FREE_PORT: '8081',
    TOLK_DOCUMENT_WORKERS: String(workers),
  });
  const services = await buildServices(config, {
    engineOverride: testEngines(['en-es']),
    ...(location.pgSchema ? { pgSchema: location.pgSchema } : {}),
    ...(now ? { now } : {}),
  });
  const app = await buildApp({ config, services, logger: false });
  await app.ready();
  return {
    app,
    services,
    config,
    async close(drop = false) {
      await app.close();
      await services.close({ dropSchema: drop });
    },
  };
}

async function upload(node: Node, account: TestAccount, text: string) {
  const { payload, contentType } = multipart([
    { name: 'file', filename: 'a.txt', content: text },
    { name: 'source_lang', value: 'EN' },
    { name: 'target_lang', value: 'ES' },
  ]);
  const res = await node.app.inject({ method: 'POST', url: '/v2/document', headers: { ...authHeaders(account), 'content-type': contentType }, payload });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { document_id: string; document_key: string };
}

async function statusOf(node: Node, account: TestAccount, doc: { document_id: string; document_key: string }) {
  const res = await node.app.inject({ method: 'POST', url: `/v2/document/${doc.document_id}`, headers: authHeaders(account), payload: { document_key: doc.document_key } });
  return { code: res.statusCode, body: res.json() };
}

async function waitEnd(node: Node, account: TestAccount, doc: { document_id: string; document_key: string }) {
  for (let i = 0; i < 500; i++) {
    const s = await statusOf(node, account, doc);
    if (s.body.status === 'done' || s.body.status === 'error') return s.body;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail('document never finished');
}

describe('crash recovery', () => {
  it('resumes an interrupted job, gives up after too many attempts, releases a stale download', async () => {
    // Node 1 accepts uploads but has no workers, then "crashes" with jobs marked as translating.
    const first = await startNode(0);
    const account = await createAccount({ ...first, close: async () => {} });
    const resumed = await upload(first, account, 'The house is big.\nThe dog sleeps.');
    const doomed = await upload(first, account, 'The cat sleeps.');
    const db = first.services.store.db;
    const past = Date.now() - 60_000;
    // Without workers a document stays queued; a job another node holds reports its progress.
    assert.equal((await statusOf(first, account, doomed)).body.status, 'queued');
    await db
      .updateTable('documents')
      .set({ status: 'translating', lease_owner: 'other', lease_expires_at: Date.now() + 60_000, started_at: Date.now() - 3000, segments_done: 10, segments_total: 40 })
      .where('id', '=', resumed.document_id)
      .execute();
    const progress = (await statusOf(first, account, resumed)).body;
    assert.equal(progress.status, 'translating');
    assert.ok(progress.seconds_remaining >= 9 && progress.seconds_remaining <= 15, String(progress.seconds_remaining));
    await db.updateTable('documents').set({ status: 'translating', lease_owner: 'dead', lease_expires_at: past, attempts: 1 }).where('id', '=', resumed.document_id).execute();
    await db.updateTable('documents').set({ status: 'translating', lease_owner: 'dead', lease_expires_at: past, attempts: MAX_ATTEMPTS }).where('id', '=', doomed.document_id).execute();
    await first.close();

    const second = await startNode(1);
    const done = await waitEnd(second, account, resumed);
    assert.equal(done.status, 'done');
    const failed = await waitEnd(second, account, doomed);
    assert.equal(failed.status, 'error');
    assert.match(failed.error_message, /interrupted too many times/);

    // A download whose server died mid-way is released on the next start.
    await second.services.store.db.updateTable('documents').set({ status: 'downloading', lease_owner: 'dead', lease_expires_at: past }).where('id', '=', resumed.document_id).execute();
    await second.close();
    const third = await startNode(1);
    assert.equal((await statusOf(third, account, resumed)).body.status, 'done');
    const dl = await third.app.inject({ method: 'POST', url: `/v2/document/${resumed.document_id}/result`, headers: authHeaders(account), payload: { document_key: resumed.document_key } });
    assert.equal(dl.statusCode, 200);
    assert.match(dl.body, /casa/i);
    await third.close();
  });
});

describe('several nodes', () => {
  it('two nodes sharing the store and the documents directory each claim a job exactly once', async () => {
    const a = await startNode(1);
    const b = await startNode(1);
    const account = await createAccount({ ...a, close: async () => {} });
    const docs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => upload(i % 2 ? b : a, account, `The house number ${i} is big.\nThe dog sleeps.`)),
    );
    for (const [i, doc] of docs.entries()) {
      const node = i % 3 ? a : b; // status and download through either node
      assert.equal((await waitEnd(node, account, doc)).status, 'done');
      const row = await a.services.store.db.selectFrom('documents').select(['attempts']).where('id', '=', doc.document_id).executeTakeFirstOrThrow();
      assert.equal(row.attempts, 1);
      const dl = await node.app.inject({ method: 'POST', url: `/v2/document/${doc.document_id}/result`, headers: authHeaders(account), payload: { document_key: doc.document_key } });
      assert.equal(dl.statusCode, 200);
      assert.match(dl.body, new RegExp(`${i}`));
    }
    await a.close();
    await b.close();
  });
});

describe('retention', () => {
  it('purges documents never downloaded after the retention time (injectable clock)', async () => {
    let clock = Date.now();
    const node = await startNode(1, () => clock);
    const account = await createAccount({ ...node, close: async () => {} });
    const doc = await upload(node, account, 'The house is big.');
    assert.equal((await waitEnd(node, account, doc)).status, 'done');
    const files = () => (existsSync(join(dataDir, 'documents')) ? readdirSync(join(dataDir, 'documents')).filter((f) => f.startsWith(doc.document_id)) : []);
    assert.ok(files().length > 0);
    clock += 23 * 3_600_000;
    assert.equal(await node.services.documents.purgeExpired(), 0);
    clock += 2 * 3_600_000;
    assert.ok((await node.services.documents.purgeExpired()) >= 1);
    assert.equal((await statusOf(node, account, doc)).code, 404);
    assert.deepEqual(files(), []);
    await node.close(true);
  });
});
