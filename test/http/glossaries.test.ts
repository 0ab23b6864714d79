// /v2 and /v3 glossary endpoints: shared model, bodies (JSON, form with dictionaries[0].* keys), entries, errors.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAccount, authHeaders, createTestApp, type TestContext, type TestAccount } from '../helpers/harness.js';

let ctx: TestContext;
let acc: TestAccount;
before(async () => {
  ctx = await createTestApp({ engines: [] });
  acc = await createAccount(ctx);
});
after(async () => ctx.close());

const req = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: method as 'GET', url, headers: { ...authHeaders(acc), ...headers }, ...(payload !== undefined ? { payload: payload as string } : {}) });

describe('v2 glossaries', () => {
  it('create (form), get, list, entries as TSV, delete', async () => {
    const res = await req('POST', '/v2/glossaries', 'name=My+Glossary&source_lang=EN&target_lang=DE&entries=Hello%09Hallo%0AWorld%09Welt&entries_format=tsv', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    assert.equal(res.statusCode, 201, res.body);
    const g = res.json();
    assert.equal(g.source_lang, 'en');
    assert.equal(g.target_lang, 'de');
    assert.equal(g.entry_count, 2);
    assert.equal(g.ready, true);
    assert.ok(!Number.isNaN(Date.parse(g.creation_time)));
    assert.deepEqual((await req('GET', `/v2/glossaries/${g.glossary_id}`)).json(), g);
    assert.ok((await req('GET', '/v2/glossaries')).json().glossaries.some((x: { glossary_id: string }) => x.glossary_id === g.glossary_id));
    const entries = await req('GET', `/v2/glossaries/${g.glossary_id}/entries`, undefined, { accept: 'text/tab-separated-values' });
    assert.equal(entries.statusCode, 200);
    assert.match(entries.headers['content-type'] as string, /text\/tab-separated-values/);
    assert.equal(entries.body, 'Hello\tHallo\nWorld\tWelt');
    assert.equal((await req('GET', `/v2/glossaries/${g.glossary_id}/entries`, undefined, { accept: 'application/json' })).statusCode, 415);
    // readable through v3
    const v3 = (await req('GET', `/v3/glossaries/${g.glossary_id}`)).json();
    assert.deepEqual(v3.dictionaries, [{ source_lang: 'en', target_lang: 'de', entry_count: 2 }]);
    assert.equal((await req('DELETE', `/v2/glossaries/${g.glossary_id}`)).statusCode, 204);
    assert.equal((await req('GET', `/v2/glossaries/${g.glossary_id}`)).statusCode, 404);
  });

  it('errors: bad entries (detail), bad language, bad format, missing name, unknown id', async () => {
    const dup = await req('POST', '/v2/glossaries', { name: 'x', source_lang: 'en', target_lang: 'de', entries: 'a\tb\na\tc' });
    assert.equal(dup.statusCode, 400);
    assert.equal(dup.json().message, 'Invalid glossary entries provided');
    assert.equal(dup.json().detail, 'Key with the index 1 (starting at position 4) duplicates key with the index 0 (starting at position 0)');
    assert.equal((await req('POST', '/v2/glossaries', { name: 'x', source_lang: 'xx', target_lang: 'de', entries: 'a\tb' })).json().message, "Value for 'source_lang' not supported.");
    assert.equal((await req('POST', '/v2/glossaries', { name: 'x', source_lang: 'en', target_lang: 'de', entries: 'a\tb', entries_format: 'xml' })).json().message, "Value for 'entries_format' not supported.");
    assert.equal((await req('POST', '/v2/glossaries', { source_lang: 'en', target_lang: 'de', entries: 'a\tb' })).statusCode, 400);
    assert.equal((await req('GET', '/v2/glossaries/00000000-0000-0000-0000-000000000000')).statusCode, 404);
    assert.equal((await req('GET', '/v2/glossaries/not-a-uuid')).statusCode, 404);
    assert.equal((await req('GET', '/v2/glossary-language-pairs')).json().supported_languages.some((p: { source_lang: string; target_lang: string }) => p.source_lang === 'en' && p.target_lang === 'de'), true);
  });
});

describe('v3 glossaries', () => {
  it('create with form dictionaries[0].* keys and CSV, PATCH merges, PUT replaces, DELETE dictionary', async () => {
    const form = new URLSearchParams({
      name: 'Multi',
      'dictionaries[0].source_lang': 'en',
      'dictionaries[0].target_lang': 'de',
      'dictionaries[0].entries': 'Hello,Hallo\n"a, b",c',
      'dictionaries[0].entries_format': 'csv',
      'dictionaries[1].source_lang': 'de',
      'dictionaries[1].target_lang': 'en',
      'dictionaries[1].entries': 'Hallo\tHello',
    }).toString();
    const res = await req('POST', '/v3/glossaries', form, { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(res.statusCode, 201, res.body);
    const g = res.json();
    // in the order given, as the clients expect
    assert.deepEqual(g.dictionaries, [{ source_lang: 'en', target_lang: 'de', entry_count: 2 }, { source_lang: 'de', target_lang: 'en', entry_count: 1 }]);
    const patched = await req('PATCH', `/v3/glossaries/${g.glossary_id}`, { name: 'Renamed', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'Hello\tGuten Tag\nBye\tTschüss', entries_format: 'tsv' }] });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().name, 'Renamed');
    const entries = (await req('GET', `/v3/glossaries/${g.glossary_id}/entries?source_lang=en&target_lang=de`)).json();
    assert.deepEqual(entries, { dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'Hello\tGuten Tag\na, b\tc\nBye\tTschüss', entries_format: 'tsv' }] });
    const put = await req('PUT', `/v3/glossaries/${g.glossary_id}/dictionaries`, { source_lang: 'en', target_lang: 'fr', entries: 'Hello\tBonjour', entries_format: 'tsv' });
    assert.deepEqual(put.json(), { source_lang: 'en', target_lang: 'fr', entry_count: 1 });
    assert.equal((await req('PUT', `/v3/glossaries/${g.glossary_id}/dictionaries`, { source_lang: 'en', target_lang: 'fr', entries: 'Hi\tSalut' })).json().entry_count, 1);
    assert.equal((await req('DELETE', `/v3/glossaries/${g.glossary_id}/dictionaries?source_lang=de&target_lang=en`)).statusCode, 204);
    assert.equal((await req('DELETE', `/v3/glossaries/${g.glossary_id}/dictionaries?source_lang=de&target_lang=en`)).statusCode, 404);
    assert.equal((await req('GET', `/v3/glossaries/${g.glossary_id}/entries?source_lang=de&target_lang=en`)).statusCode, 404);
    assert.equal((await req('GET', `/v3/glossaries/${g.glossary_id}/entries?source_lang=en`)).statusCode, 400);
    assert.equal((await req('GET', '/v3/glossaries')).json().glossaries.length >= 1, true);
    // edited through v3: v2 may no longer delete it
    assert.equal((await req('DELETE', `/v2/glossaries/${g.glossary_id}`)).statusCode, 400);
    assert.equal((await req('DELETE', `/v3/glossaries/${g.glossary_id}`)).statusCode, 204);
  });

  it('errors: PATCH with two dictionaries, duplicate pair, another account cannot see it, scope', async () => {
    const g = (await req('POST', '/v3/glossaries', { name: 'x', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }] })).json();
    const two = await req('PATCH', `/v3/glossaries/${g.glossary_id}`, { dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'c\td' }, { source_lang: 'en', target_lang: 'fr', entries: 'c\td' }] });
    assert.equal(two.statusCode, 400);
    const dupPair = await req('POST', '/v3/glossaries', { name: 'x', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }, { source_lang: 'EN', target_lang: 'DE', entries: 'c\td' }] });
    assert.equal(dupPair.statusCode, 400);
    const other = await createAccount(ctx);
    const res = await ctx.app.inject({ method: 'GET', url: `/v3/glossaries/${g.glossary_id}`, headers: authHeaders(other) });
    assert.equal(res.statusCode, 404);
  });

  it('resolve() compiles matchers for translation and rejects a missing pair', async () => {
    const g = (await req('POST', '/v3/glossaries', { name: 'x', dictionaries: [{ source_lang: 'en', target_lang: 'es', entries: 'car\tautomóvil' }] })).json();
    const [d] = await ctx.services.glossaries.resolve(acc.accountId, [g.glossary_id], 'en', 'es');
    assert.equal(d!.matcher.find('my car').length, 1);
    await assert.rejects(ctx.services.glossaries.resolve(acc.accountId, [g.glossary_id], 'en', 'fr'), /No dictionary found for language pair en-fr in glossary /);
    await assert.rejects(ctx.services.glossaries.resolve(acc.accountId, ['nope'], 'en', 'es'), /Value for 'glossary_id' not supported/);
  });

  it('1000 glossaries per account, then 403', async () => {
    const other = await createAccount(ctx);
    const rows = Array.from({ length: 999 }, (_, i) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, account_id: other.accountId, name: `g${i}`, v3_edited: 0, created_at: i }));
    for (let i = 0; i < rows.length; i += 100) await ctx.services.store.db.insertInto('glossaries').values(rows.slice(i, i + 100)).execute();
    const body = { name: 'last', source_lang: 'en', target_lang: 'de', entries: 'a\tb' };
    const ok = await ctx.app.inject({ method: 'POST', url: '/v2/glossaries', headers: authHeaders(other), payload: body });
    assert.equal(ok.statusCode, 201);
    const over = await ctx.app.inject({ method: 'POST', url: '/v2/glossaries', headers: authHeaders(other), payload: body });
    assert.equal(over.statusCode, 403);
    assert.match(over.json().message, /at most 1000 glossaries/);
  });

  it('scope: a key limited to another group gets 403, a key with glossary gets through', async () => {
    const wrong = await ctx.services.accounts.createKey(acc.accountId, { scopes: ['translate'] });
    const right = await ctx.services.accounts.createKey(acc.accountId, { scopes: ['glossary'] });
    const headers = { authorization: `Service-Auth-Key ${wrong.secret}`, host: acc.host };
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v3/glossaries', headers })).statusCode, 403);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v2/glossaries', headers })).statusCode, 403);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v3/glossaries', headers: { ...headers, authorization: `Service-Auth-Key ${right.secret}` } })).statusCode, 200);
  });
});
