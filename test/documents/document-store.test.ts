// One contract for every document store: the disk store, and the database store on SQLite and on PostgreSQL (always,
// as the store contract: .ci/run starts it). Then the service on each store: download once, retention, a missing file.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Store } from '../../src/store/store.js';
import { CHUNK_BYTES, StoredFileMissing } from '../../src/store/byte-store.js';
import { createDocumentStore, type DocumentStore, type DocumentStoreKind } from '../../src/documents/document-files.js';
import { authHeaders, createAccount, createTestApp, testStoreLocation, type TestDatabase } from '../helpers/harness.js';
import { DocumentClient } from '../helpers/documents.js';
import { waitFor } from '../helpers/wait.js';

async function readAll(stream: Readable): Promise<{ data: Buffer; largestChunk: number; chunks: number }> {
  const parts: Buffer[] = [];
  let largestChunk = 0;
  for await (const c of stream) {
    parts.push(c as Buffer);
    largestChunk = Math.max(largestChunk, (c as Buffer).length);
  }
  return { data: Buffer.concat(parts), largestChunk, chunks: parts.length };
}

/** A source that yields `size` bytes in uneven pieces, then fails when `failAfter` is set. */
async function* pieces(data: Buffer, failAfter?: number): AsyncGenerator<Buffer> {
  for (let at = 0, step = 1; at < data.length; at += step, step = (step * 7 + 13) % 100_000 + 1) {
    if (failAfter !== undefined && at >= failAfter) throw new Error('client went away');
    yield data.subarray(at, at + step);
  }
}

const setups: { name: string; kind: DocumentStoreKind; db: TestDatabase }[] = [
  { name: 'disk', kind: 'disk', db: 'sqlite' },
  { name: 'database on SQLite', kind: 'database', db: 'sqlite' },
  { name: 'database on PostgreSQL', kind: 'database', db: 'postgres' },
];

for (const setup of setups) {
  describe(`document store contract: ${setup.name}`, () => {
    const location = testStoreLocation(setup.db);
    const dir = mkdtempSync(join(tmpdir(), 'tolk-doc-store-'));
    let store: Store;
    let files: DocumentStore;
    before(async () => {
      store = await Store.open({ url: location.url, ...(location.pgSchema ? { pgSchema: location.pgSchema } : {}) });
      files = createDocumentStore(setup.kind, store.db, store.repositories.serverSecrets, join(dir, 'documents'));
    });
    after(async () => {
      await store.close({ dropSchema: true });
      location.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    it('streams a file of several chunks in and out unchanged, in bounded pieces', async () => {
      const data = randomBytes(3 * CHUNK_BYTES + 12_345);
      await files.write('A1', 'result', pieces(data));
      const out = await readAll(await files.read('A1', 'result'));
      assert.ok(out.data.equals(data), `read ${out.data.length} bytes of ${data.length}`);
      assert.ok(out.chunks > 1 && out.largestChunk <= CHUNK_BYTES, `${out.chunks} chunks, largest ${out.largestChunk}`);
    });

    it('keeps an empty file as a file', async () => {
      await files.write('A2', 'upload', []);
      assert.equal(await files.has('A2', 'upload'), true);
      assert.equal((await readAll(await files.read('A2', 'upload'))).data.length, 0);
    });

    it('a missing file rejects with StoredFileMissing before any byte, for read and rename', async () => {
      await assert.rejects(files.read('NOPE', 'result'), StoredFileMissing);
      await assert.rejects(files.rename('NOPE', 'part', 'upload'), StoredFileMissing);
      assert.equal(await files.has('NOPE', 'result'), false);
    });

    it('a write replaces the older file whole; a failed write leaves the older one and no trace', async () => {
      const first = randomBytes(CHUNK_BYTES + 10);
      const second = randomBytes(CHUNK_BYTES * 2 + 99);
      await files.write('A3', 'result', pieces(first));
      await files.write('A3', 'result', pieces(second));
      assert.ok((await readAll(await files.read('A3', 'result'))).data.equals(second));
      await assert.rejects(files.write('A3', 'result', pieces(randomBytes(CHUNK_BYTES * 3), CHUNK_BYTES * 2)), /client went away/);
      assert.ok((await readAll(await files.read('A3', 'result'))).data.equals(second));
      await assert.rejects(files.write('A4', 'part', pieces(randomBytes(CHUNK_BYTES * 2), CHUNK_BYTES + 5)), /client went away/);
      assert.equal(await files.has('A4', 'part'), false);
      assert.equal(await files.removeStaleParts(0), 0, 'no unfinished write is left behind');
    });

    it('renames a part to an upload, and removes the kinds asked for', async () => {
      const data = randomBytes(1000);
      await files.write('A5', 'part', [data]);
      await files.rename('A5', 'part', 'upload');
      assert.equal(await files.has('A5', 'part'), false);
      assert.ok((await readAll(await files.read('A5', 'upload'))).data.equals(data));
      await files.write('A5', 'result', [data]);
      await files.remove('A5', ['upload']);
      assert.equal(await files.has('A5', 'upload'), false);
      assert.equal(await files.has('A5', 'result'), true);
      await files.remove('A5');
      assert.equal(await files.has('A5', 'result'), false);
    });

    it('removes stale parts only, and only when older than asked', async () => {
      await files.write('A6', 'part', [Buffer.from('partial')]);
      await files.write('A7', 'upload', [Buffer.from('accepted')]);
      assert.equal(await files.removeStaleParts(3_600_000), 0);
      assert.equal(await files.has('A6', 'part'), true);
      // the clock must move past the part's time (a millisecond) for it to be older than 0 ms
      await new Promise((r) => setTimeout(r, 5));
      assert.equal(await files.removeStaleParts(0), 1);
      assert.equal(await files.has('A6', 'part'), false);
      assert.equal(await files.has('A7', 'upload'), true);
    });

    it('lists whole files by id prefix, and keeps what is its own when removing unknown things', async () => {
      await files.write('L-1', 'upload', [Buffer.from('a')]);
      await files.write('L-2', 'result', [Buffer.from('b')]);
      await files.write('M-1', 'result', [Buffer.from('c')]);
      const listed = (await files.list('L-')).map((f) => `${f.id}.${f.kind}`).sort();
      assert.deepEqual(listed, ['L-1.upload', 'L-2.result']);
      assert.deepEqual(await files.list('L_'), [], 'no wildcard in a prefix');
      await files.removeUnknown();
      assert.equal((await files.list('L-')).length, 2);
      assert.equal(await files.has('M-1', 'result'), true);
    });

    it('another instance over the same place (another node) reads the files and has the same key-encryption key', async () => {
      const other = createDocumentStore(setup.kind, store.db, store.repositories.serverSecrets, join(dir, 'documents'));
      const data = randomBytes(CHUNK_BYTES + 1);
      await files.write('A8', 'result', [data]);
      assert.ok((await readAll(await other.read('A8', 'result'))).data.equals(data));
      const key = await files.keyEncryptionKey();
      assert.equal(key.length, 32);
      assert.ok(key.equals(await other.keyEncryptionKey()));
    });
  });
}

describe('the document service behaves the same on each store', () => {
  for (const kind of ['disk', 'database'] as const) {
    it(`${kind}: download once, a missing result answers 503 and stays downloadable, retention purges every file`, async () => {
      let clock = Date.now();
      const ctx = await createTestApp({ env: { TOLK_DOCUMENT_STORE: kind }, now: () => clock });
      try {
        assert.equal(ctx.services.documents.files.kind, kind);
        const account = await createAccount(ctx);
        const client = new DocumentClient(ctx, account);
        const text = { name: 'file', filename: 'a.txt', content: 'The house is big.\nThe dog sleeps.' };
        const parts = [text, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }];

        const done = await client.translateFile(parts);
        assert.equal(done.status.status, 'done');
        assert.match(done.file!.data.toString(), /casa/);
        assert.equal((await client.download(done.id, done.key)).statusCode, 404, 'downloaded once');
        // deleted once the response has gone out, which may be just after the client has it
        await waitFor('the downloaded result to be deleted', async () => !(await ctx.services.documents.files.has(done.id, 'result')));

        const up = (await client.upload(parts)).json() as { document_id: string; document_key: string };
        assert.equal((await client.waitFor(up.document_id, up.document_key)).status, 'done');
        const files = ctx.services.documents.files;
        // removed as the job finishes, which may land a moment after its status reads done
        await waitFor('the upload to go once the job is done', async () => !(await files.has(up.document_id, 'upload')));
        const result = await readAll(await files.read(up.document_id, 'result'));
        await files.remove(up.document_id, ['result']);
        const missing = await client.download(up.document_id, up.document_key);
        assert.equal(missing.statusCode, 503, missing.body);
        assert.match(missing.json().message, /not available/);
        await files.write(up.document_id, 'result', [result.data]);
        const again = await client.download(up.document_id, up.document_key);
        assert.equal(again.statusCode, 200, again.body);
        assert.match(again.body, /perro/);

        const kept = (await client.upload(parts)).json() as { document_id: string; document_key: string };
        assert.equal((await client.waitFor(kept.document_id, kept.document_key)).status, 'done');
        assert.equal(await files.has(kept.document_id, 'result'), true);
        clock += 25 * 3_600_000;
        assert.ok((await ctx.services.documents.purgeExpired()) >= 1);
        assert.equal(await files.has(kept.document_id, 'result'), false);
        const res = await ctx.app.inject({ method: 'POST', url: `/v2/document/${kept.document_id}`, headers: authHeaders(account), payload: { document_key: kept.document_key } });
        assert.equal(res.statusCode, 404);
      } finally {
        await ctx.close();
      }
    });
  }
});
