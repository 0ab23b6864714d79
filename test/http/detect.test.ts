// /v3/detect/language: every status, the feature gate, media types and input errors.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAccount, authHeaders, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import { floresLines } from '../helpers/flores.js';

let ctx: TestContext;
let beta: TestAccount;
let plain: TestAccount;

const flores = (lang: string, line = 0) => floresLines(lang)[line]!;

before(async () => {
  ctx = await createTestApp({ engines: [] });
  beta = await createAccount(ctx, { features: ['detection'] });
  plain = await createAccount(ctx);
});
after(async () => ctx.close());

const detect = (account: TestAccount, payload: unknown, contentType = 'application/json') =>
  ctx.app.inject({
    method: 'POST',
    url: '/v3/detect/language',
    headers: { ...authHeaders(account), 'content-type': contentType },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

describe('/v3/detect/language', () => {
  it('detects languages in request order (JSON)', async () => {
    const res = await detect(beta, { text: [flores('de'), flores('ja'), flores('nb', 3), flores('id', 5)] });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().results, [
      { detected_language: 'de', detection_status: 'success' },
      { detected_language: 'ja', detection_status: 'success' },
      { detected_language: 'nb', detection_status: 'success' },
      { detected_language: 'id', detection_status: 'success' },
    ]);
  });

  it('accepts form bodies with repeated text', async () => {
    const form = `text=${encodeURIComponent(flores('fr'))}&text=${encodeURIComponent(flores('pl'))}`;
    const res = await detect(beta, form, 'application/x-www-form-urlencoded');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(
      res.json().results.map((r: { detected_language: string }) => r.detected_language),
      ['fr', 'pl'],
    );
  });

  it('reports unsupported, undetectable and unsure texts', async () => {
    const res = await detect(beta, { text: [flores('ca'), '12345 !!! 😀', 'ok'] });
    assert.equal(res.statusCode, 200);
    const [ca, digits, short] = res.json().results;
    assert.deepEqual(ca, { detection_status: 'unsupported_language' });
    assert.deepEqual(digits, { detection_status: 'no_language_detected' });
    assert.deepEqual(short, { detection_status: 'insufficient_confidence' });
  });

  it('403 when the account lacks the detection beta', async () => {
    const res = await detect(plain, { text: ['Hello there, how are you?'] });
    assert.equal(res.statusCode, 403);
  });

  it('400 on missing text and on too many texts', async () => {
    const missing = await detect(beta, {});
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().message, 'Missing parameter text.');
    const many = await detect(beta, { text: Array.from({ length: 51 }, () => 'Hallo Welt') });
    assert.equal(many.statusCode, 400);
  });

  it('415 for any other content type, with the reference message', async () => {
    for (const type of ['text/plain', 'multipart/form-data; boundary=x', 'application/xml']) {
      const res = await detect(beta, 'text=Hello', type);
      assert.equal(res.statusCode, 415, type);
      assert.match(res.json().message, /unsupported media type/);
    }
  });
});
