// Voice sessions on any node (issue 25): a session requested on node A is streamed from node B, a reconnect through
// one node drops the live connection on the other, and a spent token presented to either ends the session everywhere.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { authHeaders, createAccount, type TestAccount, type TestContext } from '../helpers/harness.js';
import { createTestCluster, type TestCluster } from '../helpers/cluster.js';
import { concludedText, connectVoice, synthesize, wordErrorRate } from '../voice/voice-helpers.js';
import { HUNG_TEST_MS } from '../helpers/wait.js';

const SPEECH = 'The weather is nice today. I would like to visit the old city with my friends.';
const PCM = 'audio/pcm;encoding=s16le;rate=16000';

describe('voice sessions across two nodes', () => {
  let cluster: TestCluster;
  let account: TestAccount;
  const ws = new Map<TestContext, string>();

  before(async () => {
    cluster = await createTestCluster({ env: { TOLK_RATE_LIMIT_PER_MINUTE: '100000' } });
    for (const node of [cluster.a, cluster.b]) {
      await node.app.listen({ port: 0, host: '127.0.0.1' });
      ws.set(node, `ws://127.0.0.1:${(node.app.server.address() as AddressInfo).port}/v3/voice/realtime/connect?token=`);
    }
    account = await createAccount(cluster.a);
  });
  after(() => cluster.close());

  const request = async (node: TestContext, body: object = { source_media_content_type: PCM, source_language: 'en', target_languages: ['es'] }) => {
    const res = await node.app.inject({ method: 'POST', url: '/v3/voice/realtime', headers: authHeaders(account), payload: body });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { token: string; session_id: string };
  };
  const reconnect = async (node: TestContext, token: string) => {
    const res = await node.app.inject({ method: 'GET', url: `/v3/voice/realtime?token=${encodeURIComponent(token)}`, headers: authHeaders(account) });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { token: string }).token;
  };
  const connect = (node: TestContext, token: string) => connectVoice(ws.get(node)! + encodeURIComponent(token));

  it('streams on node B a session requested on node A: transcribed, translated and billed', { timeout: 2 * HUNG_TEST_MS }, async () => {
    const { token } = await request(cluster.a);
    const client = await connect(cluster.b, token);
    await client.stream(synthesize(SPEECH), 3200, 60);
    await client.waitFor((m) => m.end_of_stream !== undefined, HUNG_TEST_MS).catch((err: Error) => assert.fail(`${err.message}: ${JSON.stringify(client.messages)}`));
    assert.ok(!client.messages.some((m) => m.error), JSON.stringify(client.messages.find((m) => m.error)));
    const source = concludedText(client.messages, 'source');
    assert.ok(wordErrorRate(SPEECH, source) < 0.5, source);
    assert.match(concludedText(client.messages, 'es'), /\[es\]/);
    await client.closed;
    // billed, as either node sees it
    const billed = await cluster.b.services.store.repositories.usage.usageByProduct(account.accountId, 0);
    assert.ok((billed.get('speech_to_text') ?? 0) > 0, JSON.stringify([...billed]));
  });

  it('a reconnect through node A replaces the connection held by node B; a spent token ends the session on both', { timeout: HUNG_TEST_MS }, async () => {
    const { token } = await request(cluster.a);
    const first = await connect(cluster.b, token);
    const next = await reconnect(cluster.a, token);
    const { code, reason } = await first.closed;
    assert.equal(code, 1000);
    assert.match(reason, /reconnected/i);
    assert.ok(!first.messages.some((m) => m.error));

    const second = await connect(cluster.a, next);
    // the first token again, on the other node: the session ends, and the live connection on node A is told why
    const replay = await connect(cluster.b, token);
    await replay.closed;
    assert.equal(replay.messages[0]?.error?.error_code, 401);
    await second.closed;
    assert.ok(second.messages.some((m) => m.error?.error_code === 401), JSON.stringify(second.messages));
    // and the latest token is dead on both nodes
    for (const node of [cluster.a, cluster.b]) {
      const res = await node.app.inject({ method: 'GET', url: `/v3/voice/realtime?token=${encodeURIComponent(next)}`, headers: authHeaders(account) });
      assert.equal(res.statusCode, 400);
    }
  });

  it('a token is used once, whichever nodes it is presented to at the same time', { timeout: HUNG_TEST_MS }, async () => {
    const { token } = await request(cluster.a);
    const clients = await Promise.all([connect(cluster.a, token), connect(cluster.b, token)]);
    // one connection gets the session; the other presented a spent token, which ends it: both are told
    await Promise.all(clients.map((c) => c.closed));
    for (const c of clients) assert.ok(c.messages.some((m) => m.error?.error_code === 401), JSON.stringify(clients.map((x) => x.messages)));
    const res = await cluster.b.app.inject({ method: 'GET', url: `/v3/voice/realtime?token=${encodeURIComponent(token)}`, headers: authHeaders(account) });
    assert.equal(res.statusCode, 400);
  });

  it('refuses on node B a session whose key was deactivated after the request on node A', { timeout: HUNG_TEST_MS }, async () => {
    const other = await createAccount(cluster.a);
    const res = await cluster.a.app.inject({
      method: 'POST',
      url: '/v3/voice/realtime',
      headers: authHeaders(other),
      payload: { source_media_content_type: PCM, source_language: 'en' },
    });
    const { token } = res.json() as { token: string };
    await cluster.a.services.store.repositories.accounts.updateKey(other.keyId, { deactivated_at: Date.now() });
    const client = await connect(cluster.b, token);
    const closed = await client.closed;
    assert.equal(closed.code, 1008);
    assert.equal(client.messages[0]?.error?.reason_code, 4010002);
  });
});
