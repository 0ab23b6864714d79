// No stale caches across nodes (issue 25): a key deactivated or a limit changed through one node takes effect on the
// other through the change feed (PostgreSQL LISTEN/NOTIFY). Both nodes' clocks are frozen, so a cached key never
// expires by age: only the feed can drop it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authHeaders, createAccount, type TestAccount, type TestContext } from '../helpers/harness.js';
import { createTestCluster, type TestCluster } from '../helpers/cluster.js';
import type { Change } from '../../src/store/change-feed.js';
import { parseChange } from '../../src/store/change-feed.js';
import { HUNG_TEST_MS } from '../helpers/wait.js';

const usage = (node: TestContext, account: TestAccount) => node.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) });

/** Polls until `check` holds (the test's own timeout bounds the wait). */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20));
}

/** Ends a test that hangs waiting for a change (awaited events have no deadline of their own). */
const HUNG = { timeout: HUNG_TEST_MS };

describe('cached keys and accounts on two nodes', () => {
  let cluster: TestCluster;
  const frozen = Date.now();
  before(async () => {
    cluster = await createTestCluster({ env: { TOLK_RATE_LIMIT_PER_MINUTE: '100000' }, now: () => frozen });
  });
  after(() => cluster.close());

  it('a key deactivated through node A is refused by node B, which had it cached', HUNG, async () => {
    const account = await createAccount(cluster.a);
    assert.equal((await usage(cluster.b, account)).statusCode, 200);
    const heard = new Promise<Change>((resolve) => cluster.b.services.store.changes.subscribe((c) => c.kind === 'key' && c.id === account.keyId && resolve(c)));
    const res = await cluster.a.app.inject({
      method: 'PUT',
      url: '/v2/admin/developer-keys/deactivate',
      headers: { authorization: `Service-Auth-Key ${account.adminKey}`, host: account.host },
      payload: { key_id: account.keyId },
    });
    assert.equal(res.statusCode, 200, res.body);
    await heard;
    assert.equal((await usage(cluster.b, account)).statusCode, 403);
  });

  it('an account limit changed on node A shows on node B, which had the account cached', HUNG, async () => {
    const account = await createAccount(cluster.a, { characterLimit: 1000 });
    const limitOn = async (node: TestContext) => ((await usage(node, account)).json() as { character_limit: number }).character_limit;
    assert.equal(await limitOn(cluster.b), 1000);
    await cluster.a.services.store.repositories.accounts.updateAccount(account.accountId, { character_limit: 123 });
    await eventually(async () => (await limitOn(cluster.b)) === 123);
    assert.equal(await limitOn(cluster.a), 123);
  });

  it('a glossary edited on node A is applied by node B, which had it compiled', HUNG, async () => {
    const account = await createAccount(cluster.a);
    const headers = authHeaders(account);
    const dictionary = (entries: string) => ({ source_lang: 'en', target_lang: 'es', entries, entries_format: 'tsv' });
    const created = await cluster.a.app.inject({ method: 'POST', url: '/v3/glossaries', headers, payload: { name: 'cars', dictionaries: [dictionary('car\tautomóvil')] } });
    assert.equal(created.statusCode, 201, created.body);
    const id = (created.json() as { glossary_id: string }).glossary_id;
    const translated = async (node: TestContext) => {
      const res = await node.app.inject({
        method: 'POST',
        url: '/v2/translate',
        headers,
        payload: { text: ['the car'], source_lang: 'EN', target_lang: 'ES', glossary_id: id },
      });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { translations: { text: string }[] }).translations[0]!.text;
    };
    assert.match(await translated(cluster.b), /automóvil/);
    // the frozen clock gives the edit the same update time as the dictionary it replaces: only the feed tells B
    const edited = await cluster.a.app.inject({ method: 'PATCH', url: `/v3/glossaries/${id}`, headers, payload: { dictionaries: [dictionary('car\tcoche')] } });
    assert.equal(edited.statusCode, 200, edited.body);
    await eventually(async () => /coche/.test(await translated(cluster.b)));
  });

  it('a lost listening connection resets the caches and listens again', HUNG, async () => {
    const account = await createAccount(cluster.a);
    assert.equal((await usage(cluster.b, account)).statusCode, 200);
    const feed = cluster.b.services.store.changes as unknown as { client: { end(): Promise<void> } | undefined };
    const reset = new Promise<void>((resolve) => cluster.b.services.store.changes.subscribe((c) => c.kind === 'reset' && resolve()));
    await feed.client!.end();
    await reset;
    await eventually(async () => feed.client !== undefined);
    // listening again: a deactivation is heard
    await cluster.a.services.store.repositories.accounts.updateKey(account.keyId, { deactivated_at: frozen });
    await eventually(async () => (await usage(cluster.b, account)).statusCode === 403);
  });
});

describe('change notifications', () => {
  it('reads only well-formed changes', () => {
    assert.deepEqual(parseChange('{"kind":"key","id":"k1"}'), { kind: 'key', id: 'k1' });
    assert.deepEqual(parseChange('{"kind":"reset"}'), { kind: 'reset' });
    for (const bad of [undefined, '', 'not json', '{"kind":"key"}', '{"kind":"table","id":"x"}', '{"kind":"key","id":5}', `{"kind":"key","id":"${'x'.repeat(2000)}"}`]) {
      assert.equal(parseChange(bad), undefined, String(bad));
    }
  });
});
