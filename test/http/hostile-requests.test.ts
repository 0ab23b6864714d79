// Requests a careless or hostile client sends, and what must hold on disk: prototype names and repeated query
// parameters are clear 400s; a document naming a missing translation memory is refused at upload; an oversized
// memory upload answers 413 and its keep-alive connection stays usable; memory files are encrypted and 0600, orphans go
// at start; the SQLite database and its WAL files are 0600.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { DiskByteStore } from '../../src/store/disk-byte-store.js';
import { authHeaders, createAccount, createTestApp, testDatabase, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';
import { DocumentClient } from '../helpers/documents.js';
import { HUNG_TEST_MS } from '../helpers/wait.js';

let ctx: TestContext;
let acc: TestAccount;
let port: number;
const tmx = readFileSync(new URL('../../../test/fixtures/customization/small.tmx', import.meta.url));

before(async () => {
  // the file modes below are the disk store's (TOLK_DOCUMENT_STORE=database keeps no file on disk)
  ctx = await createTestApp({ engines: testEngines(['en-es']), env: { TOLK_DOCUMENT_STORE: 'disk' } });
  acc = await createAccount(ctx);
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (ctx.app.server.address() as AddressInfo).port;
});
after(async () => ctx.close());

const req = (method: string, url: string, payload?: unknown) =>
  ctx.app.inject({ method: method as 'GET', url, headers: authHeaders(acc), ...(payload !== undefined ? { payload: payload as string } : {}) });

describe('names an object inherits are not parameters', () => {
  for (const rules of [{ punctuation: { toString: 'x' } }, { punctuation: { constructor: 'x' } }, { constructor: { x: 'y' } }, { toString: {} }, { hasOwnProperty: { a: 'b' } }]) {
    it(`configured_rules ${JSON.stringify(rules)} is a 400`, async () => {
      const created = await req('POST', '/v3/style_rules', { name: 'S', language: 'en', configured_rules: rules });
      assert.equal(created.statusCode, 400, created.body);
      assert.match(created.json().message, /configured_rules/);
      const ok = await req('POST', '/v3/style_rules', { name: 'S', language: 'en' });
      assert.equal(ok.statusCode, 201, ok.body);
      const put = await req('PUT', `/v3/style_rules/${ok.json().style_id}/configured_rules`, rules);
      assert.equal(put.statusCode, 400, put.body);
      assert.deepEqual((await req('GET', `/v3/style_rules/${ok.json().style_id}`)).json().configured_rules, {});
    });
  }
});

describe('repeated query parameters', () => {
  for (const query of ['filter_text=ab&filter_text=cd', 'page_size=5&page_size=6', 'page_cursor=a&page_cursor=b', 'filter_case_sensitive=true&filter_case_sensitive=false']) {
    it(`memory segments ?${query} is a 400 naming the parameter`, async () => {
      const res = await req('GET', `/v3/translation_memories/00000000-0000-4000-8000-000000000000/segments?${query}`);
      assert.equal(res.statusCode, 400, res.body);
      assert.match(res.json().message, new RegExp(`'${query.split('=')[0]}'`));
    });
  }
  it('style rule and memory lists refuse a repeated page', async () => {
    assert.equal((await req('GET', '/v3/style_rules?page=0&page=1')).statusCode, 400);
    assert.equal((await req('GET', '/v3/translation_memories?page_size=2&page_size=3')).statusCode, 400);
  });
});

describe('document upload', () => {
  it('a translation_memory_id that does not exist is a 404 at upload, with or without source_lang', async () => {
    const client = new DocumentClient(ctx, acc);
    for (const source of [[], [{ name: 'source_lang', value: 'EN' }]]) {
      const res = await client.upload([
        { name: 'file', filename: 'a.txt', content: 'Hello.' },
        { name: 'target_lang', value: 'ES' },
        { name: 'translation_memory_id', value: '00000000-0000-4000-8000-000000000000' },
        ...source,
      ]);
      assert.equal(res.statusCode, 404, res.body);
      assert.match(res.json().message, /Translation Memory .* not found/);
    }
  });
});

/** Starts an import and returns its upload URL's path and query. */
async function startImport(contentLength: number): Promise<{ jobId: string; path: string }> {
  const start = await req('POST', '/v3/translation_memories/import', { source_file: { file_name: 'a.tmx', content_type: 'application/xml', content_length: contentLength }, parameters: { display_name: 'A' } });
  assert.equal(start.statusCode, 200, start.body);
  const url = new URL(start.json().upload_url);
  return { jobId: start.json().job_id, path: url.pathname + url.search };
}

describe('translation memory files', () => {
  it('an upload over its declared size answers 413 and the next request on the connection is answered', async () => {
    const { path } = await startImport(100);
    const body = 'x'.repeat(300_000);
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    const answers = (n: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer ${n}; received: ${JSON.stringify(received.slice(0, 600))}`)), HUNG_TEST_MS);
        const check = () => {
          if ((received.match(/HTTP\/1\.1 \d{3}/g) ?? []).length >= n && /\r\n\r\n[^]*[}\]]$/.test(received)) {
            clearTimeout(timer);
            socket.off('data', check);
            resolve();
          }
        };
        socket.on('data', check);
        socket.once('close', () => reject(new Error(`connection closed; received: ${received.slice(0, 300)}`)));
      });
    socket.write(`PUT ${path} HTTP/1.1\r\nHost: ${acc.host}\r\nContent-Type: application/xml\r\nContent-Length: ${body.length}\r\n\r\n`);
    socket.write(body);
    await answers(1);
    assert.match(received, /^HTTP\/1\.1 413/);
    socket.write(`GET /v2/languages HTTP/1.1\r\nHost: ${acc.host}\r\nAuthorization: Service-Auth-Key ${acc.key}\r\n\r\n`);
    await answers(2);
    socket.destroy();
    assert.match(received, /HTTP\/1\.1 200 OK[^]*"language"/);
  });

  it('an export is encrypted at rest, 0600, and downloads as the TMX', async () => {
    const { jobId, path } = await startImport(tmx.length);
    const up = await ctx.app.inject({ method: 'PUT', url: path, headers: { host: acc.host, 'content-type': 'application/xml' }, payload: tmx });
    assert.equal(up.statusCode, 204, up.body);
    await ctx.services.memories.idle();
    const memoryId = (await req('GET', `/v3/translation_memories/jobs/${jobId}`)).json().results[0].translation_memory_id;
    const exp = await req('POST', `/v3/translation_memories/${memoryId}/export`);
    await ctx.services.memories.idle();
    const done = (await req('GET', `/v3/translation_memories/jobs/${exp.json().job_id}`)).json().results[0];
    assert.equal(done.status, 'completed');
    const files = ctx.services.memories.files.store as DiskByteStore;
    const file = files.path(ctx.services.memories.files.fileId(exp.json().job_id), 'result');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(files.dir).mode & 0o777, 0o700);
    const stored = readFileSync(file);
    assert.ok(!stored.includes('impresora') && !stored.includes('<tmx'), 'no memory content in clear on disk');
    const url = new URL(done.download_url);
    const dl = await ctx.app.inject({ method: 'GET', url: url.pathname + url.search, headers: { host: acc.host } });
    assert.equal(dl.statusCode, 200);
    assert.match(dl.body, /La impresora no tiene papel\./);
    assert.equal(Buffer.byteLength(dl.body), done.content_length ?? Buffer.byteLength(dl.body));
  });

  it('files left by a crash are removed at start; live exports stay', async () => {
    const files = ctx.services.memories.files.store as DiskByteStore;
    const before = readdirSync(files.dir).filter((n) => n.endsWith('.export.tmx'));
    writeFileSync(join(files.dir, '11111111-1111-4111-8111-111111111111.upload.tmx'), 'orphan');
    writeFileSync(join(files.dir, '22222222-2222-4222-8222-222222222222.export.tmx'), 'no such job');
    writeFileSync(join(files.dir, 'stray.tmp'), 'x');
    await ctx.services.memories.recover();
    assert.deepEqual(readdirSync(files.dir).sort(), before.sort());
  });
});

describe('database files', { skip: testDatabase() !== 'sqlite' }, () => {
  it('the SQLite database and its WAL files are 0600', () => {
    const db = ctx.config.databaseUrl;
    for (const file of [db, `${db}-wal`, `${db}-shm`]) assert.equal(statSync(file).mode & 0o777, 0o600, file);
  });
});
