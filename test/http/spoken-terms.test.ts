// /v3/spoken-terms: create, list, get, entries per language, replace a term list, delete; the reference's content
// rules (300 characters per list, no duplicates, empty terms, control characters or surrounding whitespace), JSON
// only, per-account isolation, never scoped.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAccount, authHeaders, createTestApp, type TestContext, type TestAccount } from '../helpers/harness.js';
import { MAX_COLLECTIONS_PER_ACCOUNT } from '../../src/voice/spoken-terms/spoken-terms-service.js';

let ctx: TestContext;
let acc: TestAccount;
before(async () => {
  ctx = await createTestApp({ engines: [] });
  acc = await createAccount(ctx);
});
after(async () => ctx.close());

const req = (method: string, url: string, payload?: unknown, account: TestAccount = acc) =>
  ctx.app.inject({ method: method as 'GET', url, headers: authHeaders(account), ...(payload !== undefined ? { payload: payload as object } : {}) });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('spoken terms', () => {
  it('create, get, list, entries, replace and add a list, delete', async () => {
    const res = await req('POST', '/v3/spoken-terms', { name: 'Technical Terms', term_lists: [{ lang: 'en', entries: 'DeepL\nAPI\nwebhook' }] });
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json();
    assert.match(created.spoken_terms_id, UUID);
    assert.equal(created.name, 'Technical Terms');
    assert.deepEqual(created.term_lists, [{ lang: 'en', entry_count: 3 }]);
    assert.ok(!Number.isNaN(Date.parse(created.creation_time)));
    const id = created.spoken_terms_id as string;

    const got = await req('GET', `/v3/spoken-terms/${id}`);
    assert.equal(got.statusCode, 200);
    assert.deepEqual(got.json(), created);
    assert.deepEqual((await req('GET', `/v3/spoken-terms/${id.toUpperCase()}`)).json(), created);

    const entries = await req('GET', `/v3/spoken-terms/${id}/entries?lang=en`);
    assert.equal(entries.statusCode, 200);
    assert.deepEqual(entries.json(), { lang: 'en', entries: 'DeepL\nAPI\nwebhook' });

    const replaced = await req('PUT', `/v3/spoken-terms/${id}/term-lists`, { lang: 'en', entries: 'Kubernetes\nGrafana' });
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.deepEqual(replaced.json(), { lang: 'en', entry_count: 2 });
    assert.equal((await req('GET', `/v3/spoken-terms/${id}/entries?lang=en-US`)).json().entries, 'Kubernetes\nGrafana');
    const added = await req('PUT', `/v3/spoken-terms/${id}/term-lists`, { lang: 'de', entries: 'Schnittstelle' });
    assert.deepEqual(added.json(), { lang: 'de', entry_count: 1 });
    assert.deepEqual((await req('GET', `/v3/spoken-terms/${id}`)).json().term_lists, [
      { lang: 'de', entry_count: 1 },
      { lang: 'en', entry_count: 2 },
    ]);

    const second = (await req('POST', '/v3/spoken-terms', { name: 'Names', term_lists: [] })).json();
    assert.deepEqual(second.term_lists, []);
    const list = await req('GET', '/v3/spoken-terms');
    assert.equal(list.statusCode, 200);
    assert.deepEqual(list.json().spoken_terms.map((s: { name: string }) => s.name), ['Technical Terms', 'Names']);

    assert.equal((await req('DELETE', `/v3/spoken-terms/${id}`)).statusCode, 204);
    assert.equal((await req('GET', `/v3/spoken-terms/${id}`)).statusCode, 404);
    assert.equal((await req('GET', `/v3/spoken-terms/${id}/entries?lang=en`)).statusCode, 404);
    assert.equal((await req('DELETE', `/v3/spoken-terms/${id}`)).statusCode, 404);
    assert.deepEqual((await req('GET', '/v3/spoken-terms')).json().spoken_terms.map((s: { name: string }) => s.name), ['Names']);
  });

  it('rejects content that breaks the reference rules with clear 400s', async () => {
    const long = Array.from({ length: 31 }, (_, i) => `term${String(i).padStart(6, '0')}`).join('\n'); // 31 × 10 = 310 characters
    const exact = Array.from({ length: 30 }, (_, i) => `term${String(i).padStart(6, '0')}`).join('\n'); // 300 characters
    assert.equal((await req('POST', '/v3/spoken-terms', { name: 'Max', term_lists: [{ lang: 'en', entries: exact }] })).statusCode, 201);
    const cases: [unknown, RegExp][] = [
      [{ term_lists: [] }, /'name' not specified/],
      [{ name: '  ', term_lists: [] }, /name/],
      [{ name: 7, term_lists: [] }, /name/],
      [{ name: 'x'.repeat(1025), term_lists: [] }, /1024 UTF-8 bytes/],
      [{ name: 'é'.repeat(513), term_lists: [] }, /1024 UTF-8 bytes/],
      [{ name: 'N' }, /'term_lists' not specified/],
      [{ name: 'N', term_lists: 'en' }, /term_lists/],
      [{ name: 'N', term_lists: ['en'] }, /lang/],
      [{ name: 'N', term_lists: [{ entries: 'a' }] }, /'lang' not specified/],
      [{ name: 'N', term_lists: [{ lang: 'xx', entries: 'a' }] }, /Value for 'lang' not supported/],
      [{ name: 'N', term_lists: [{ lang: 'en' }] }, /'entries' not specified/],
      [{ name: 'N', term_lists: [{ lang: 'en', entries: ['a'] }] }, /entries/],
      [{ name: 'N', term_lists: [{ lang: 'en', entries: long }] }, /310 characters; at most 300/],
      [{ name: 'N', term_lists: [{ lang: 'en', entries: 'API\nAPI' }] }, /'API' appears more than once/],
      [{ name: 'N', term_lists: [{ lang: 'en', entries: 'API\n\nSDK' }] }, /term 2 .* is empty/],
      [{ name: 'N', term_lists: [{ lang: 'en', entries: 'API\n' }] }, /term 2 .* is empty/],
      [{ name: 'N', term_lists: [{ lang: 'en', entries: ' API' }] }, /leading or trailing whitespace/],
      [{ name: 'N', term_lists: [{ lang: 'en', entries: 'API\r\nSDK' }] }, /control character/],
      [{ name: 'N', term_lists: [{ lang: 'en', entries: 'A\tB' }] }, /control character/],
      [{ name: 'N', term_lists: [{ lang: 'en', entries: 'a' }, { lang: 'en-GB', entries: 'b' }] }, /only one term list/],
    ];
    for (const [body, message] of cases) {
      const res = await req('POST', '/v3/spoken-terms', body);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body).slice(0, 80)} → ${res.statusCode} ${res.body}`);
      assert.match(res.json().message, message, JSON.stringify(body).slice(0, 80));
    }
    // Case-sensitive: "api" and "API" are different terms.
    assert.equal((await req('POST', '/v3/spoken-terms', { name: 'Case', term_lists: [{ lang: 'en', entries: 'api\nAPI' }] })).json().term_lists[0].entry_count, 2);

    const id = (await req('POST', '/v3/spoken-terms', { name: 'Put', term_lists: [] })).json().spoken_terms_id;
    const put = (payload: unknown) => req('PUT', `/v3/spoken-terms/${id}/term-lists`, payload);
    assert.match((await put({ entries: 'a' })).json().message, /'lang' not specified/);
    assert.match((await put({ lang: 'en', entries: 'a\na' })).json().message, /more than once/);
    assert.match((await put({ lang: 'en', entries: long })).json().message, /at most 300/);
    assert.equal((await put({ lang: 'en', entries: '' })).json().entry_count, 0);
    assert.match((await req('GET', `/v3/spoken-terms/${id}/entries`)).json().message, /'lang' not specified/);
    assert.equal((await req('GET', `/v3/spoken-terms/${id}/entries?lang=fr`)).statusCode, 404);
    assert.equal((await req('GET', `/v3/spoken-terms/${id}/entries?lang=xx`)).statusCode, 400);
  });

  it('answers 404 for unknown or malformed ids and for other accounts', async () => {
    const other = await createAccount(ctx);
    const id = (await req('POST', '/v3/spoken-terms', { name: 'Mine', term_lists: [{ lang: 'en', entries: 'Tolk' }] })).json().spoken_terms_id;
    for (const url of [`/v3/spoken-terms/${id}`, `/v3/spoken-terms/${id}/entries?lang=en`]) {
      const res = await req('GET', url, undefined, other);
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json().message, 'Spoken terms not found');
    }
    assert.equal((await req('PUT', `/v3/spoken-terms/${id}/term-lists`, { lang: 'en', entries: 'x' }, other)).statusCode, 404);
    assert.equal((await req('DELETE', `/v3/spoken-terms/${id}`, undefined, other)).statusCode, 404);
    assert.deepEqual((await req('GET', '/v3/spoken-terms', undefined, other)).json().spoken_terms, []);
    assert.equal((await req('GET', '/v3/spoken-terms/not-a-uuid')).statusCode, 404);
    assert.equal((await req('GET', '/v3/spoken-terms/00000000-0000-4000-8000-000000000000')).statusCode, 404);
    assert.equal((await req('GET', `/v3/spoken-terms/${id}/entries?lang=en`)).json().entries, 'Tolk');
  });

  it('accepts JSON bodies only, needs a key, and is never scoped', async () => {
    const form = await ctx.app.inject({
      method: 'POST',
      url: '/v3/spoken-terms',
      headers: { ...authHeaders(acc), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=Form',
    });
    assert.equal(form.statusCode, 415, form.body);
    assert.match(form.json().message, /Unsupported Content-Type/);
    const text = await ctx.app.inject({ method: 'POST', url: '/v3/spoken-terms', headers: { ...authHeaders(acc), 'content-type': 'text/plain' }, payload: 'x' });
    assert.equal(text.statusCode, 415);
    const broken = await ctx.app.inject({ method: 'POST', url: '/v3/spoken-terms', headers: { ...authHeaders(acc), 'content-type': 'application/json' }, payload: '{"name":' });
    assert.equal(broken.statusCode, 400);
    assert.equal((await req('POST', '/v3/spoken-terms', ['x'])).statusCode, 400);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v3/spoken-terms' })).statusCode, 403);
    const scoped = await createAccount(ctx);
    await ctx.services.store.repositories.accounts.updateKey(scoped.keyId, { scopes: JSON.stringify(['usage']) });
    assert.equal((await req('GET', '/v3/glossaries', undefined, scoped)).statusCode, 403, 'the key is really scoped');
    assert.equal((await req('POST', '/v3/spoken-terms', { name: 'Scoped', term_lists: [] }, scoped)).statusCode, 201);
  });

  it(`limits an account to ${MAX_COLLECTIONS_PER_ACCOUNT} collections`, async () => {
    const full = await createAccount(ctx);
    for (let i = 0; i < MAX_COLLECTIONS_PER_ACCOUNT; i++) {
      assert.equal((await req('POST', '/v3/spoken-terms', { name: `C${i}`, term_lists: [] }, full)).statusCode, 201);
    }
    const res = await req('POST', '/v3/spoken-terms', { name: 'One more', term_lists: [] }, full);
    assert.equal(res.statusCode, 456, res.body);
    assert.match(res.json().message, /Spoken Terms quota exhausted/);
  });
});
