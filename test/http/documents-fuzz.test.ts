// Fuzz: malformed multipart bodies get a clean 400/413, garbage and truncated files end in a clean status; never 500.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authHeaders, createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import { multipart } from '../documents/multipart.js';

const FIXTURES = new URL('../../../test/fixtures/documents/', import.meta.url);
let ctx: TestContext;
let pro: TestAccount;
let dataDir: string;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tolk-docs-fuzz-'));
  ctx = await createTestApp({ env: { TOLK_DATA_DIR: dataDir } });
  pro = await createAccount(ctx);
});
after(async () => {
  await ctx.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Deterministic bytes (xorshift), so a failure can be replayed. */
function bytes(seed: number, n: number): Buffer {
  let x = seed || 1;
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

async function raw(payload: Buffer | string, contentType: string) {
  return ctx.app.inject({ method: 'POST', url: '/v2/document', headers: { ...authHeaders(pro), 'content-type': contentType }, payload });
}

describe('malformed multipart', () => {
  const valid = multipart([{ name: 'target_lang', value: 'ES' }, { name: 'file', filename: 'a.txt', content: 'The house is big.' }]);
  const boundary = valid.contentType.split('boundary=')[1]!;
  const cases: [string, Buffer | string, string][] = [
    ['no boundary parameter', valid.payload, 'multipart/form-data'],
    ['wrong boundary', valid.payload, 'multipart/form-data; boundary=nope'],
    ['truncated in the file', valid.payload.subarray(0, valid.payload.length - 30), valid.contentType],
    ['truncated in a header', valid.payload.subarray(0, 60), valid.contentType],
    ['no closing boundary', valid.payload.subarray(0, valid.payload.length - boundary.length - 6), valid.contentType],
    ['garbage body', bytes(7, 4000), valid.contentType],
    ['empty body', '', valid.contentType],
    ['header without blank line', `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n`, valid.contentType],
    ['part without disposition', `--${boundary}\r\nX: y\r\n\r\nhello\r\n--${boundary}--\r\n`, valid.contentType],
  ];
  for (const [name, payload, type] of cases) {
    it(name, async () => {
      const res = await raw(payload, type);
      assert.ok(res.statusCode === 400 || res.statusCode === 413, `${res.statusCode} ${res.body}`);
      assert.equal(typeof res.json().message, 'string');
    });
  }

  it('a field over the field size limit, too many fields', async () => {
    const big = multipart([{ name: 'target_lang', value: 'x'.repeat(70 * 1024) }, { name: 'file', filename: 'a.txt', content: 'Hi there.' }]);
    const r1 = await raw(big.payload, big.contentType);
    assert.ok(r1.statusCode === 400 || r1.statusCode === 413, r1.body);
    const many = multipart([...Array.from({ length: 150 }, (_, i) => ({ name: `f${i}`, value: 'v' })), { name: 'file', filename: 'a.txt', content: 'Hi.' }]);
    const r2 = await raw(many.payload, many.contentType);
    assert.equal(r2.statusCode, 400, r2.body);
    assert.match(r2.json().message, /Too many form fields: at most 100 fields/);
  });
});

describe('garbage and truncated files', () => {
  const sources = ['sample.txt', 'sample.srt', 'sample.json'].map((n) => [n, readFileSync(new URL(n, FIXTURES))] as const);
  const files: [string, Buffer][] = [];
  for (const [name, content] of sources) {
    const ext = name.split('.').pop()!;
    files.push([`random.${ext}`, bytes(name.length, 3000)]);
    files.push([`truncated.${ext}`, content.subarray(0, Math.floor(content.length / 2))]);
    files.push([`nul.${ext}`, Buffer.concat([content, Buffer.from([0, 0, 0])])]);
  }
  files.push(['deep.json', Buffer.from('['.repeat(100_000))]);
  files.push(['only-numbers.json', Buffer.from('[1, 2, 3]')]);
  files.push(['blank.txt', Buffer.from('   \n\n\t\n')]);

  for (const [name, content] of files) {
    it(name, async () => {
      const { payload, contentType } = multipart([{ name: 'file', filename: name, content }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }]);
      const res = await raw(payload, contentType);
      if (res.statusCode !== 200) {
        assert.equal(res.statusCode, 400, res.body);
        return;
      }
      const { document_id, document_key } = res.json();
      let body: { status: string; error_message?: string } = { status: 'queued' };
      for (let i = 0; i < 100 && (body.status === 'queued' || body.status === 'translating'); i++) {
        const s = await ctx.app.inject({ method: 'POST', url: `/v2/document/${document_id}`, headers: authHeaders(pro), payload: { document_key } });
        assert.equal(s.statusCode, 200, s.body);
        body = s.json();
      }
      assert.ok(body.status === 'done' || body.status === 'error', body.status);
      if (body.status === 'error') {
        assert.ok(body.error_message && !/internal error/.test(body.error_message), body.error_message);
      } else {
        const dl = await ctx.app.inject({ method: 'POST', url: `/v2/document/${document_id}/result`, headers: authHeaders(pro), payload: { document_key } });
        assert.equal(dl.statusCode, 200);
      }
    });
  }
});

describe('status and result with odd requests', () => {
  it('bad ids, keys and bodies get 400 or 404, never 500', async () => {
    const ids = ['x', '0'.repeat(32), 'Z'.repeat(32), '%00', 'a'.repeat(99), '../../etc/passwd'];
    const bodies: [unknown, string | undefined][] = [
      [{ document_key: 'A'.repeat(64) }, undefined],
      [{ document_key: 42 }, undefined],
      [{ document_key: ['a', 'b'] }, undefined],
      [[1, 2, 3], undefined],
      ['document_key=' + 'B'.repeat(64), 'application/x-www-form-urlencoded'],
      ['{"document_key": ', 'application/json'],
      ['', undefined],
    ];
    for (const id of ids) {
      for (const [body, type] of bodies) {
        for (const suffix of ['', '/result']) {
          const res = await ctx.app.inject({
            method: 'POST',
            url: `/v2/document/${encodeURIComponent(id)}${suffix}`,
            headers: { ...authHeaders(pro), ...(type ? { 'content-type': type } : {}) },
            ...(body === '' ? {} : { payload: body as string }),
          });
          assert.ok([400, 404, 415].includes(res.statusCode), `${id} ${JSON.stringify(body)} → ${res.statusCode} ${res.body}`);
        }
      }
    }
  });
});
