// The document queue survives restarts: jobs left in `translating` with an expired lease resume or end in `error`,
// stale downloads are released, and documents never downloaded are purged after the retention time.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_ATTEMPTS } from '../../src/documents/document-worker.js';
import { STORED_FILE_KINDS } from '../../src/store/byte-store.js';
import { authHeaders, createAccount, testEngines, testStoreLocation, type TestAccount } from '../helpers/harness.js';
import { startTestNode, type TestNode as Node } from '../helpers/cluster.js';
import { multipart } from '../documents/multipart.js';
import { waitFor } from '../helpers/wait.js';

const location = testStoreLocation();
const dataDir = mkdtempSync(join(tmpdir(), 'tolk-docs-recovery-'));
after(() => {
  location.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A node on this run's database, sharing the documents directory with the others (as one machine restarted). */
function startNode(workers: number, now?: () => number, env: Record<string, string> = {}): Promise<Node> {
  return startTestNode({
    store: location,
    dataDir,
    engines: testEngines(['en-es']),
    env: { ...env, TOLK_DOCUMENT_WORKERS: String(workers) },
    ...(now ? { now } : {}),
  });
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
  return waitFor(`document ${doc.document_id} to end`, async () => {
    const s = await statusOf(node, account, doc);
    return (s.body.status === 'done' || s.body.status === 'error') && s.body;
  });
}

describe('crash recovery', () => {
  it('resumes an interrupted job, gives up after too many attempts, releases a stale download', async () => {
    // Node 1 accepts uploads but has no workers, then "crashes" with jobs marked as translating.
    // a clock that stands still: the progress estimate below does not drift with the machine's speed
    const clock = Date.now();
    const first = await startNode(0, () => clock);
    const account = await createAccount(first);
    const resumed = await upload(first, account, 'The house is big.\nThe dog sleeps.');
    const doomed = await upload(first, account, 'The cat sleeps.');
    const db = first.services.store.db;
    const past = Date.now() - 60_000;
    // Without workers a document stays queued; a job another node holds reports its progress.
    assert.equal((await statusOf(first, account, doomed)).body.status, 'queued');
    await db
      .updateTable('documents')
      .set({ status: 'translating', lease_owner: 'other', lease_expires_at: clock + 60_000, started_at: clock - 3000, segments_done: 10, segments_total: 40 })
      .where('id', '=', resumed.document_id)
      .execute();
    const progress = (await statusOf(first, account, resumed)).body;
    assert.equal(progress.status, 'translating');
    // 10 segments in 3 s: the other 30 in 9 s
    assert.equal(progress.seconds_remaining, 9);
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
  it('a download in progress keeps its lease for as long as it lasts: no other request takes it over', async () => {
    const node = await startNode(1, undefined, { TOLK_DOCUMENT_LEASE_MS: '1000' });
    const account = await createAccount(node);
    const doc = await upload(node, account, 'The house is big.');
    assert.equal((await waitEnd(node, account, doc)).status, 'done');
    const ctx = await node.services.accounts.authenticate(account.key);
    const slow = await node.services.documents.download(ctx!, doc.document_id, doc.document_key);
    const lease = async () =>
      Number((await node.services.store.db.selectFrom('documents').select('lease_expires_at').where('id', '=', doc.document_id).executeTakeFirstOrThrow()).lease_expires_at);
    const first = await lease();
    // wait until past the first lease: still held, because it was renewed
    await new Promise((r) => setTimeout(r, Math.max(0, first + 200 - Date.now())));
    assert.ok((await lease()) > first, 'the lease was renewed');
    const second = await node.app.inject({ method: 'POST', url: `/v2/document/${doc.document_id}/result`, headers: authHeaders(account), payload: { document_key: doc.document_key } });
    assert.equal(second.statusCode, 404, 'downloaded once: the running download still holds it');
    slow.stream.destroy();
    await slow.release();
    const again = await node.app.inject({ method: 'POST', url: `/v2/document/${doc.document_id}/result`, headers: authHeaders(account), payload: { document_key: doc.document_key } });
    assert.equal(again.statusCode, 200, again.body);
    await node.close();
  });

  it('a download whose node died is served by another node once its lease expired, without a restart', async () => {
    const node = await startNode(1);
    const account = await createAccount(node);
    const doc = await upload(node, account, 'The house is big.');
    assert.equal((await waitEnd(node, account, doc)).status, 'done');
    const db = node.services.store.db;
    const download = () =>
      node.app.inject({ method: 'POST', url: `/v2/document/${doc.document_id}/result`, headers: authHeaders(account), payload: { document_key: doc.document_key } });
    // held by a live download elsewhere: nobody else gets it
    await db.updateTable('documents').set({ status: 'downloading', lease_owner: 'alive', lease_expires_at: Date.now() + 60_000 }).where('id', '=', doc.document_id).execute();
    assert.equal((await download()).statusCode, 404);
    await db.updateTable('documents').set({ lease_owner: 'dead', lease_expires_at: Date.now() - 1 }).where('id', '=', doc.document_id).execute();
    const dl = await download();
    assert.equal(dl.statusCode, 200, dl.body);
    assert.match(dl.body, /casa/i);
    await node.close();
  });

  it('two nodes sharing the store and the documents directory each claim a job exactly once', async () => {
    const a = await startNode(1);
    const b = await startNode(1);
    const account = await createAccount(a);
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
    const account = await createAccount(node);
    const doc = await upload(node, account, 'The house is big.');
    assert.equal((await waitEnd(node, account, doc)).status, 'done');
    const store = node.services.documents.files;
    const files = async () => (await Promise.all(STORED_FILE_KINDS.map(async (k) => ((await store.has(doc.document_id, k)) ? [k] : [])))).flat();
    assert.ok((await files()).length > 0);
    clock += 23 * 3_600_000;
    assert.equal(await node.services.documents.purgeExpired(), 0);
    clock += 2 * 3_600_000;
    assert.ok((await node.services.documents.purgeExpired()) >= 1);
    assert.equal((await statusOf(node, account, doc)).code, 404);
    assert.deepEqual(await files(), []);
    await node.close({ dropSchema: true });
  });
});
