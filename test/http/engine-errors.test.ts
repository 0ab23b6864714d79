// Engine failures reach clients as the spec's statuses: timeout 504, overload 529 (both with Retry-After), else 500
// without internals.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EngineError, type EngineErrorKind, type TranslationEngine } from '../../src/engines/engine.js';
import { createAccount, authHeaders, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';

/** An engine whose en→es answers are scripted by the text: "fail:<kind>" throws that EngineError kind. */
class ScriptedEngine implements TranslationEngine {
  readonly name = 'scripted';
  readonly features = { context: true };
  async start() {}
  async close() {}
  pairs() {
    return [{ source: 'en', target: 'es', formality: true }];
  }
  async translate(_pair: unknown, segments: string[]) {
    for (const s of segments) {
      const m = /^fail:(\w+)/.exec(s);
      if (m) throw new EngineError(m[1] as EngineErrorKind, `secret internal detail ${m[1]}`);
    }
    return segments.map((s) => `[es] ${s}`);
  }
}

let ctx: TestContext;
let pro: TestAccount;

before(async () => {
  ctx = await createTestApp({ engines: [new ScriptedEngine()] });
  pro = await createAccount(ctx);
});
after(async () => ctx.close());

const translate = (text: string, extra: object = {}) =>
  ctx.app.inject({
    method: 'POST',
    url: '/v2/translate',
    headers: authHeaders(pro),
    payload: { text: [text], target_lang: 'ES', source_lang: 'EN', ...extra },
  });

describe('engine errors', () => {
  it('504 with Retry-After on an engine timeout', async () => {
    const res = await translate('fail:timeout');
    assert.equal(res.statusCode, 504);
    assert.ok(Number(res.headers['retry-after']) >= 1);
  });

  it('529 with Retry-After when the engines are overloaded', async () => {
    const res = await translate('fail:overloaded');
    assert.equal(res.statusCode, 529);
    assert.ok(Number(res.headers['retry-after']) >= 1);
  });

  it('500 without internals when an engine fails', async () => {
    const res = await translate('fail:failed');
    assert.equal(res.statusCode, 500);
    assert.doesNotMatch(res.body, /secret internal detail/);
    assert.ok(res.headers['x-trace-id']);
  });

  it('failed translations are not billed', async () => {
    const usage = (await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(pro) })).json();
    assert.equal(usage.character_count, 0);
  });

  it('formality more/less is accepted where the engine supports it', async () => {
    const res = await translate('Hello', { formality: 'more' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().translations[0].text, '[es] Hello');
  });
});
