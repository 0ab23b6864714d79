// Request log lines never carry a secret: a key sent as ?auth_key= (refused), a signed URL's signature, a document key
// in the query are masked; identifiers and other parameters stay readable.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import { redactUrl } from '../../src/http/log-redaction.js';

let ctx: TestContext;
let account: TestAccount;
const lines: string[] = [];

before(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  ctx = await createTestApp({ loggerInstance: pino({ level: 'debug' }, sink) });
  account = await createAccount(ctx);
});
after(async () => ctx.close());

it('a key sent as ?auth_key= is refused and never written to the log', async () => {
  const res = await ctx.app.inject({ method: 'GET', url: `/v2/languages?type=target&auth_key=${account.key}`, headers: { host: account.host } });
  assert.equal(res.statusCode, 403);
  const form = await ctx.app.inject({ method: 'POST', url: `/v2/translate?auth_key=${encodeURIComponent(account.key)}`, headers: { host: account.host }, payload: { text: ['x'], target_lang: 'ES' } });
  assert.equal(form.statusCode, 403);
  const log = lines.join('');
  assert.ok(!log.includes(account.key), 'the key is not in the log');
  assert.ok(!log.includes(encodeURIComponent(account.key)));
  assert.match(log, /"url":"\/v2\/languages\?type=target&auth_key=\[redacted\]"/);
  assert.match(log, /request completed/);
});

it('masks secret-bearing query values only', () => {
  assert.equal(redactUrl('/a?expires=1&signature=abc'), '/a?expires=1&signature=[redacted]');
  assert.equal(redactUrl('/a?document_key=K&key_id=k1&glossary_id=g&text=hi'), '/a?document_key=[redacted]&key_id=k1&glossary_id=g&text=hi');
  assert.equal(redactUrl('/a?Auth_Key=1&token=2&api-key=3&%61uth_key=4'), '/a?Auth_Key=[redacted]&token=[redacted]&api-key=[redacted]&%61uth_key=[redacted]');
  assert.equal(redactUrl('/a?%E0%A4%A=1&auth_key'), '/a?%E0%A4%A=1&auth_key');
  assert.equal(redactUrl('/v2/languages'), '/v2/languages');
});
