// Hostile documents cannot stall the server: XML and DITA documents nested 64k and a million levels deep end in
// `error` naming the problem, claimed once, while another account's requests are answered and the event loop is never
// held up; a document whose format work outlasts its time budget ends in `error` once, its parsing off the event loop;
// /v2/translate with tag_handling answers deeply nested texts with a 400, never a 500.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authHeaders, createAccount, createTestApp, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';
import { DocumentClient } from '../helpers/documents.js';
import { LoopStallMonitor } from '../helpers/loop-stall.js';
import { multipart } from '../documents/multipart.js';
import { TAG_PARSE_FAILED } from '../../src/markup/index.js';

/**
 * Longest event-loop stall (late timer while this process was busy on the CPU; see loop-stall.ts) another account may
 * see while hostile jobs run: far below the 35 s a 64k-deep document used to hold.
 */
const STALL_MS = 500;

const nested = (depth: number, tag: string) => `<${tag}>`.repeat(depth) + 'The house is big.' + `</${tag}>`.repeat(depth);

let ctx: TestContext;
let hostile: TestAccount;
let other: TestAccount;
before(async () => {
  ctx = await createTestApp({ engines: testEngines(['en-es']) });
  hostile = await createAccount(ctx);
  other = await createAccount(ctx);
});
after(async () => ctx.close());

const translate = (account: TestAccount, text: string, tagHandling?: string) =>
  ctx.app.inject({
    method: 'POST',
    url: '/v2/translate',
    headers: authHeaders(account),
    payload: { text: [text], source_lang: 'EN', target_lang: 'ES', ...(tagHandling ? { tag_handling: tagHandling } : {}) },
  });

/** A /v2/document upload (en→es) ready for inject. */
function uploadRequest(account: TestAccount, filename: string, content: string) {
  const { payload, contentType } = multipart([{ name: 'file', filename, content }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }]);
  return { method: 'POST' as const, url: '/v2/document', headers: { ...authHeaders(account), 'content-type': contentType }, payload };
}

describe('deeply nested markup', () => {
  it('xml and dita nested 64k and 1M levels end in error naming the nesting, once, while another account is served', async () => {
    const client = new DocumentClient(ctx, hostile);
    const files: [string, string][] = [
      ['deep.xml', nested(64_000, 'a')],
      ['deep.dita', `<?xml version="1.0"?><topic id="t"><body>${nested(64_000, 'p')}</body></topic>`],
      ['deeper.xml', nested(1_000_000, 'a')],
    ];
    // Request bodies are built first: the monitor measures the server's work, not the test's.
    const uploads = files.map(([filename, content]) => uploadRequest(hostile, filename, content));
    const monitor = new LoopStallMonitor(STALL_MS);
    const docs: { id: string; key: string }[] = [];
    for (const request of uploads) {
      const res = await ctx.app.inject(request);
      assert.equal(res.statusCode, 200, res.body);
      docs.push({ id: res.json().document_id, key: res.json().document_key });
    }
    // The other account translates while the hostile jobs are queued and run.
    const served = (async () => {
      for (let i = 0; i < 5; i++) {
        const res = await translate(other, 'The house is big.');
        assert.equal(res.statusCode, 200, res.body);
        assert.match(res.json().translations[0].text, /casa/i);
      }
    })();
    const ends = await Promise.all(docs.map((d) => client.waitFor(d.id, d.key)));
    await served;
    const stall = monitor.worst();
    monitor.stop();
    for (const end of ends) {
      assert.equal(end.status, 'error');
      assert.match(end.error_message, /nested more than 512 levels deep/);
    }
    assert.equal(stall, undefined, `the event loop stalled ${stall?.lagMs} ms (${stall?.cpuMs} ms on the CPU)`);
    // Each was claimed once and is never claimed again.
    for (const d of docs) assert.equal((await ctx.services.documents.repository.get(d.id))?.attempts, 1);
    assert.equal(await ctx.services.documents.repository.claimNext('later', Date.now() + 86_400_000, 1000), undefined);
  });

  it('/v2/translate with tag_handling xml or html 18k levels deep: 400 naming the nesting, never a 500', async () => {
    for (const [format, tag] of [['xml', 'a'], ['html', 'b']] as const) {
      const res = await translate(hostile, nested(18_000, tag), format);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().message, TAG_PARSE_FAILED);
      assert.match(res.json().detail, /nested more than 512 levels deep/);
    }
    const res = await translate(other, '<p>The <b>house</b> is big.</p>', 'xml');
    assert.equal(res.statusCode, 200, res.body);
  });
});

describe('format time budget', () => {
  let budgeted: TestContext;
  before(async () => {
    budgeted = await createTestApp({ engines: testEngines(['en-es']), env: { TOLK_DOCUMENT_FORMAT_TIMEOUT_MS: '100' } });
  });
  after(async () => budgeted.close());

  it('a document whose parsing outlasts the budget ends in error once, parsed off the event loop meanwhile', async () => {
    const [owner, bystander] = [await createAccount(budgeted), await createAccount(budgeted)];
    // ~8 MB of short strings: far more parsing than the budget allows, in the format thread
    const request = uploadRequest(owner, 'big.json', JSON.stringify(Array.from({ length: 450_000 }, (_, i) => `The house ${i}`)));
    const client = new DocumentClient(budgeted, owner);
    const monitor = new LoopStallMonitor(STALL_MS);
    const res = await budgeted.app.inject(request);
    assert.equal(res.statusCode, 200, res.body);
    const { document_id: id, document_key: key } = res.json();
    const answered = await budgeted.app.inject({
      method: 'POST',
      url: '/v2/translate',
      headers: authHeaders(bystander),
      payload: { text: ['The house is big.'], source_lang: 'EN', target_lang: 'ES' },
    });
    const end = await client.waitFor(id, key);
    const stall = monitor.worst();
    monitor.stop();
    assert.equal(answered.statusCode, 200, answered.body);
    assert.equal(end.status, 'error');
    assert.match(end.error_message, /^Processing the document took longer than 100 ms, the limit for one document; it was stopped\.$/);
    assert.equal(stall, undefined, `the event loop stalled ${stall?.lagMs} ms (${stall?.cpuMs} ms on the CPU)`);
    assert.equal((await budgeted.services.documents.repository.get(id))?.attempts, 1);
    assert.equal(await budgeted.services.documents.repository.claimNext('later', Date.now() + 86_400_000, 1000), undefined);
  });
});
