// /v3/translation_memories: import via upload URL as a job, polling, list with pagination, export, lookup, errors.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createAccount, authHeaders, createTestApp, type TestContext, type TestAccount } from '../helpers/harness.js';

let ctx: TestContext;
let acc: TestAccount;
const tmx = readFileSync(new URL('../../../test/fixtures/customization/small.tmx', import.meta.url));
before(async () => {
  ctx = await createTestApp({ engines: [] });
  acc = await createAccount(ctx);
});
after(async () => ctx.close());

const req = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: method as 'GET', url, headers: { ...authHeaders(acc), ...headers }, ...(payload !== undefined ? { payload: payload as string } : {}) });

/** A request to a full URL handed out by the server, with no Authorization header. */
const noKey = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) => {
  const u = new URL(url);
  return ctx.app.inject({ method: method as 'GET', url: u.pathname + u.search, headers: { host: acc.host, ...headers }, ...(payload !== undefined ? { payload: payload as string } : {}) });
};

async function importTmx(body: Buffer | string, name = 'Legal') {
  const start = await req('POST', '/v3/translation_memories/import', { source_file: { file_name: 'legal.tmx', content_type: 'application/xml', content_length: Buffer.byteLength(body) }, parameters: { display_name: name } });
  assert.equal(start.statusCode, 200, start.body);
  const { job_id, upload_url, expires_at } = start.json();
  assert.ok(Date.parse(expires_at) > Date.now());
  assert.equal((await req('GET', `/v3/translation_memories/jobs/${job_id}`)).json().results[0].status, 'awaiting_input');
  // the upload URL is signed: it works without the API key, as client libraries use it
  const up = await noKey('PUT', upload_url, body, { 'content-type': 'application/xml' });
  assert.equal(up.statusCode, 204, up.body);
  await ctx.services.memories.idle();
  return (await req('GET', `/v3/translation_memories/jobs/${job_id}`)).json();
}

describe('translation memories', () => {
  it('imports a TMX through the upload URL, lists it, looks up exact and fuzzy, exports it', async () => {
    const job = await importTmx(tmx);
    assert.equal(job.operation, 'import');
    assert.equal(job.results.length, 1);
    const r = job.results[0];
    assert.equal(r.status, 'completed', JSON.stringify(job));
    assert.equal(r.skipped_segment_count, 1);
    const list = (await req('GET', '/v3/translation_memories?page=0&page_size=25')).json();
    assert.equal(list.total_count, 1);
    assert.deepEqual(list.translation_memories[0], { translation_memory_id: r.translation_memory_id, name: 'Legal', source_language: 'en', target_languages: ['es'], segment_count: 2 });
    const hits = await ctx.services.memories.lookup(acc.accountId, r.translation_memory_id, 'en', 'es', ['The printer is out of paper.', 'Restart the computer before installing the new update.', 'Unrelated.'], 75);
    assert.deepEqual(hits, ['La impresora no tiene papel.', 'Reinicie el ordenador antes de instalar la actualización.', undefined]);
    await assert.rejects(ctx.services.memories.lookup(acc.accountId, r.translation_memory_id, 'en', 'de', ['x']), new RegExp(`Translation Memory ${r.translation_memory_id} does not support the target language de`));
    await assert.rejects(ctx.services.memories.lookup(acc.accountId, r.translation_memory_id, 'en', 'es', ['x'], 101), /must be an integer between 0 and 100/);

    const exp = await req('POST', `/v3/translation_memories/${r.translation_memory_id}/export`);
    assert.equal(exp.statusCode, 202, exp.body);
    await ctx.services.memories.idle();
    const done = (await req('GET', `/v3/translation_memories/jobs/${exp.json().job_id}`)).json();
    assert.equal(done.results[0].status, 'completed');
    // a recent export of the unchanged memory is reused: the service says `ready`, the route answers 200 with it
    const again = await req('POST', `/v3/translation_memories/${r.translation_memory_id}/export`);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), { job_id: exp.json().job_id, parameters: { translation_memory_id: r.translation_memory_id } });
    assert.deepEqual(await ctx.services.memories.startExport(acc.accountId, r.translation_memory_id), { jobId: exp.json().job_id, memoryId: r.translation_memory_id, ready: true });
    // while an export runs another is refused: 409 with the error body (it was a 500 when the schema wanted a job)
    const running = (status: string) => ctx.services.store.db.updateTable('tm_jobs').set({ status }).where('id', '=', exp.json().job_id).execute();
    await running('processing');
    const busy = await req('POST', `/v3/translation_memories/${r.translation_memory_id}/export`);
    assert.equal(busy.statusCode, 409, busy.body);
    assert.deepEqual(busy.json(), { message: 'An export of this translation memory is already in progress; poll its job.', code: 'conflict' });
    await running('completed');
    const file = await noKey('GET', done.results[0].download_url);
    assert.equal(file.statusCode, 200, file.body);
    assert.match(file.body, /<seg>La impresora no tiene papel\.<\/seg>/);
    // the exported TMX imports again
    assert.equal((await importTmx(file.body, 'Again')).results[0].status, 'completed');
    assert.equal((await req('GET', '/v3/translation_memories?page=1&page_size=1')).json().translation_memories.length, 1);
  });

  it('a malformed TMX ends failed with a message; bad requests get 4xx', async () => {
    const job = await importTmx('<tmx><header srclang="en"/><body><tu></body>');
    assert.equal(job.results[0].status, 'failed');
    assert.match(job.results[0].error_message, /not well-formed/);
    assert.equal((await req('POST', '/v3/translation_memories/import', {})).statusCode, 400);
    assert.equal((await req('GET', '/v3/translation_memories?page_size=26')).statusCode, 400);
    assert.equal((await req('GET', '/v3/translation_memories/jobs/00000000-0000-0000-0000-000000000000')).statusCode, 404);
    assert.equal((await req('POST', '/v3/translation_memories/00000000-0000-0000-0000-000000000000/export')).statusCode, 404);
    const start = (await req('POST', '/v3/translation_memories/import', { source_file: { file_name: 'a.tmx', content_length: 10 }, parameters: { display_name: 'x' } })).json();
    const tooBig = await noKey('PUT', start.upload_url, 'x'.repeat(11), { 'content-type': 'application/xml' });
    assert.equal(tooBig.statusCode, 413);
    // without its signature, or with one for another job or another expiry, the URL is refused (even with a key)
    const unsigned = await req('PUT', new URL(start.upload_url).pathname, 'x', { 'content-type': 'application/xml' });
    assert.equal(unsigned.statusCode, 403);
    const other = (await req('POST', '/v3/translation_memories/import', { source_file: { file_name: 'b.tmx' }, parameters: { display_name: 'y' } })).json();
    const swapped = new URL(start.upload_url);
    swapped.pathname = new URL(other.upload_url).pathname;
    assert.equal((await noKey('PUT', swapped.toString(), 'x', { 'content-type': 'application/xml' })).statusCode, 403);
    const later = new URL(start.upload_url);
    later.searchParams.set('expires', String(Number(later.searchParams.get('expires')) + 3_600_000));
    assert.equal((await noKey('PUT', later.toString(), 'x', { 'content-type': 'application/xml' })).statusCode, 403);
    const expired = new URL(start.upload_url);
    const path = expired.pathname;
    expired.search = ctx.services.urlSigner.sign(path, Date.now() - 1000);
    const late = await noKey('PUT', expired.toString(), 'x', { 'content-type': 'application/xml' });
    assert.equal(late.statusCode, 403);
    assert.match(late.json().message, /expired/);
  });

  it('a job interrupted by a restart ends failed with a message', async () => {
    const start = (await req('POST', '/v3/translation_memories/import', { source_file: { file_name: 'a.tmx' }, parameters: { display_name: 'x' } })).json();
    await ctx.services.store.db.updateTable('tm_jobs').set({ status: 'processing' }).where('id', '=', start.job_id).execute();
    // taken over as a job whose node died: its upload never arrived, so it cannot go on
    await ctx.services.memories.recover();
    await ctx.services.memories.idle();
    const job = (await req('GET', `/v3/translation_memories/jobs/${start.job_id}`)).json();
    assert.equal(job.results[0].status, 'failed');
    assert.match(job.results[0].error_message, /interrupted by a server restart/);
  });

  it('scope: a key limited to another group gets 403, a key with translation_memory gets through', async () => {
    const wrong = await ctx.services.accounts.createKey(acc.accountId, { scopes: ['translate'] });
    const right = await ctx.services.accounts.createKey(acc.accountId, { scopes: ['translation_memory'] });
    const headers = { authorization: `Service-Auth-Key ${wrong.secret}`, host: acc.host };
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v3/translation_memories', headers })).statusCode, 403);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v3/translation_memories', headers: { ...headers, authorization: `Service-Auth-Key ${right.secret}` } })).statusCode, 200);
  });
});
