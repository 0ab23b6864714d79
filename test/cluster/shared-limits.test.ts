// Limits counted once for a cluster (issue 25): two nodes on one PostgreSQL share the per-key request rate (through
// the database, or Redis when configured) and never overspend a character limit between them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authHeaders, createAccount, type TestAccount, type TestContext } from '../helpers/harness.js';
import { createTestCluster, redisUnavailable, TEST_REDIS_URL, type TestCluster } from '../helpers/cluster.js';

const usage = (node: TestContext, account: TestAccount) => node.app.inject({ method: 'GET', url: '/v2/usage', headers: authHeaders(account) });

/** Alternates GET /v2/usage between the nodes and returns the statuses in order. */
async function alternate(cluster: TestCluster, account: TestAccount, requests: number): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < requests; i++) codes.push((await usage(i % 2 === 0 ? cluster.a : cluster.b, account)).statusCode);
  return codes;
}

describe('the request rate limit across two nodes, counted in the database', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await createTestCluster({ env: { TOLK_RATE_LIMIT_PER_MINUTE: '4' } });
  });
  after(() => cluster.close());

  it('counts both nodes against one budget per key', async () => {
    assert.equal(cluster.a.services.rateWindows.kind, 'database');
    const account = await createAccount(cluster.a);
    assert.deepEqual(await alternate(cluster, account, 6), [200, 200, 200, 200, 429, 429]);
    const refused = await usage(cluster.b, account);
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    // another key has its own budget on both nodes
    const other = await createAccount(cluster.b);
    assert.deepEqual(await alternate(cluster, other, 2), [200, 200]);
  });

  it('starts a new window once the old one ended', async () => {
    const [a, b] = [cluster.a.services.rateWindows, cluster.b.services.rateWindows];
    const first = await a.hit('window-test', 300);
    assert.equal(first.count, 1);
    assert.ok(first.resetInMs > 0 && first.resetInMs <= 300);
    await new Promise((r) => setTimeout(r, first.resetInMs + 20));
    assert.equal((await b.hit('window-test', 300)).count, 1);
  });
});

describe('the request rate limit across two nodes, counted in Redis', async () => {
  const skip = await redisUnavailable();
  let cluster: TestCluster;
  before(async () => {
    if (!skip) cluster = await createTestCluster({ env: { TOLK_RATE_LIMIT_PER_MINUTE: '4', TOLK_REDIS_URL: TEST_REDIS_URL } });
  });
  after(() => cluster?.close());

  it('counts both nodes against one budget per key', { skip }, async () => {
    assert.equal(cluster.a.services.rateWindows.kind, 'redis');
    const account = await createAccount(cluster.a);
    assert.deepEqual(await alternate(cluster, account, 6), [200, 200, 200, 200, 429, 429]);
  });
});

describe('character limits across two nodes', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await createTestCluster({ env: { TOLK_RATE_LIMIT_PER_MINUTE: '100000' } });
  });
  after(() => cluster.close());

  it('concurrent translations on both nodes spend exactly the account limit', async () => {
    const account = await createAccount(cluster.a, { characterLimit: 1000 });
    const text = 'a'.repeat(100);
    const translate = (node: TestContext) =>
      node.app.inject({ method: 'POST', url: '/v2/translate', headers: authHeaders(account), payload: { text: [text], target_lang: 'ES', source_lang: 'EN' } });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => translate(i % 2 === 0 ? cluster.a : cluster.b)));
    const codes = answers.map((r) => r.statusCode);
    assert.deepEqual([...new Set(codes)].sort(), [200, 456], `statuses: ${codes.join(',')}`);
    // every request that got a translation was billed, and no more than the limit was billed
    assert.equal(codes.filter((c) => c === 200).length, 10);
    for (const node of [cluster.a, cluster.b]) {
      const figures = (await usage(node, account)).json() as { character_count: number; character_limit: number };
      assert.equal(figures.character_count, 1000);
    }
  });

  it('a limit lowered on one node applies to a charge on the other that still holds the old limit', async () => {
    const account = await createAccount(cluster.a, { characterLimit: null });
    // node B's view of the key before the change (as its auth cache would hold it)
    const stale = (await cluster.b.services.accounts.authenticate(account.key))!;
    assert.equal(stale.key.characterLimit, null);
    const limited = await cluster.a.app.inject({
      method: 'PUT',
      url: '/v2/admin/developer-keys/limits',
      headers: { authorization: `Service-Auth-Key ${account.adminKey}`, host: account.host },
      payload: { key_id: account.keyId, characters: 50 },
    });
    assert.equal(limited.statusCode, 200, limited.body);
    await assert.rejects(cluster.b.services.usage.charge(stale, 'text_translation', 100, null), { code: 'quota_exceeded' });
    await cluster.b.services.usage.charge(stale, 'text_translation', 50, null);
    await assert.rejects(cluster.b.services.usage.charge(stale, 'text_translation', 1, null), { code: 'quota_exceeded' });
  });
});

describe('when the rate counter fails', () => {
  it('refuses to start with a Redis that does not answer, naming TOLK_REDIS_URL', async () => {
    await assert.rejects(createTestCluster({ env: { TOLK_REDIS_URL: 'redis://127.0.0.1:1' } }), /TOLK_REDIS_URL/);
  });

  it('lets requests through when the counter fails later', async () => {
    const cluster = await createTestCluster({ env: { TOLK_RATE_LIMIT_PER_MINUTE: '1' } });
    try {
      const account = await createAccount(cluster.a);
      cluster.a.services.rateWindows.hit = async () => {
        throw new Error('counter unreachable');
      };
      assert.deepEqual(await alternate(cluster, account, 3).then((codes) => codes.filter((_, i) => i % 2 === 0)), [200, 200]);
    } finally {
      await cluster.close();
    }
  });
});
