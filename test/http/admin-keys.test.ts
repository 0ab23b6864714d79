// /v2/admin/developer-keys over HTTP: record shape, the one-time secret, validation messages, other accounts' keys,
// deactivation permanence, the 25-key cap, per-key limits (456 for that key only) and scopes (403 outside them).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import { SCOPES } from '../../src/admin/scopes.js';

let ctx: TestContext;
let org: TestAccount;
let other: TestAccount;

before(async () => {
  ctx = await createTestApp({ env: { TOLK_RATE_LIMIT_PER_MINUTE: '100000' } });
  org = await createAccount(ctx);
  other = await createAccount(ctx);
});
after(async () => ctx.close());

const asKey = (account: TestAccount, secret: string) => ({ authorization: `Service-Auth-Key ${secret}`, host: account.host });
const admin = (account: TestAccount = org) => asKey(account, account.adminKey);

async function call(method: 'GET' | 'POST' | 'PUT', path: string, payload?: object, headers = admin()) {
  return ctx.app.inject({ method, url: `/v2/admin/developer-keys${path}`, headers, ...(payload ? { payload } : {}) });
}

async function createKey(body: object = {}, account: TestAccount = org) {
  const res = await call('POST', '', body, admin(account));
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { key_id: string; key: string; label: string; scopes: string[] | null };
}

async function translate(headers: Record<string, string>, text = 'Hello.') {
  return ctx.app.inject({ method: 'POST', url: '/v2/translate', headers, payload: { text: [text], target_lang: 'ES', source_lang: 'EN' } });
}

function expect400(res: { statusCode: number; json(): { message: string } }, message: string | RegExp) {
  assert.equal(res.statusCode, 400);
  if (typeof message === 'string') assert.equal(res.json().message, message);
  else assert.match(res.json().message, message);
}

describe('create and list', () => {
  it('returns the record with the secret once; the secret works and only its hash is stored', async () => {
    const created = await createKey({ label: '  Staging key  ' });
    assert.match(created.key_id, /^[0-9a-f-]{36}:[0-9a-f-]{36}$/);
    assert.equal(created.label, 'Staging key');
    assert.deepEqual(Object.keys(created).sort(), [
      'creation_time',
      'deactivated_time',
      'is_deactivated',
      'key',
      'key_id',
      'label',
      'scopes',
      'usage_limits',
    ]);
    const record = created as unknown as Record<string, unknown>;
    assert.equal(record.is_deactivated, false);
    assert.equal(record.deactivated_time, null);
    assert.deepEqual(record.usage_limits, { characters: null, speech_to_text_milliseconds: null });
    assert.ok(Math.abs(Date.parse(record.creation_time as string) - Date.now()) < 60_000);
    assert.equal((await translate(asKey(org, created.key))).statusCode, 200);

    const row = await ctx.services.store.repositories.accounts.getKey(created.key_id);
    assert.equal(row?.key_hash, createHash('sha256').update(created.key).digest('hex'));
    assert.ok(!Object.values(row!).some((v) => v === created.key), 'the secret itself is not stored');

    const list = await call('GET', '');
    assert.equal(list.statusCode, 200);
    const listed = list.json().find((k: { key_id: string }) => k.key_id === created.key_id);
    assert.equal(listed.label, 'Staging key');
    assert.equal(listed.key, undefined, 'the secret is never shown again');
  });

  it('gives the default label when none is sent, and accepts form bodies with scopes', async () => {
    const created = await createKey();
    assert.equal(created.label, 'Tolk API Key');
    assert.equal(created.scopes, null);
    const form = await ctx.app.inject({
      method: 'POST',
      url: '/v2/admin/developer-keys',
      headers: { ...admin(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'label=Form&scopes=translate&scopes=usage',
    });
    assert.equal(form.statusCode, 200);
    assert.equal(form.json().label, 'Form');
    assert.deepEqual(form.json().scopes, ['translate', 'usage']);
  });

  it('lists only developer keys of the caller, active and deactivated', async () => {
    const mine = await createKey({ label: 'to deactivate' });
    await call('PUT', '/deactivate', { key_id: mine.key_id });
    const theirs = await createKey({ label: 'theirs' }, other);
    const ids = (await call('GET', '')).json().map((k: { key_id: string }) => k.key_id);
    assert.ok(ids.includes(mine.key_id));
    assert.ok(ids.includes(org.keyId));
    assert.ok(!ids.includes(theirs.key_id));
    const adminRow = (await ctx.services.store.repositories.accounts.listKeys(org.accountId, 'admin'))[0]!;
    assert.ok(!ids.includes(adminRow.id), 'the admin key is not a developer key');
  });

  it('rejects bad labels with a clear 400', async () => {
    const message =
      "Value for 'label' not supported. A label is a non-empty string of at most 255 characters without control characters.";
    for (const label of ['', '   ', 42, 'x'.repeat(256), 'a\u0007b', ['a']]) {
      expect400(await call('POST', '', { label }), message);
    }
    assert.equal((await createKey({ label: 'x'.repeat(255) })).label.length, 255);
  });

  it('caps active developer keys at 25, even when created concurrently; deactivated keys do not count', async () => {
    const capped = await createAccount(ctx); // has one developer key already
    const results = await Promise.all(Array.from({ length: 30 }, () => call('POST', '', { label: 'bulk' }, admin(capped))));
    assert.equal(results.filter((r) => r.statusCode === 200).length, 24);
    const refused = results.find((r) => r.statusCode !== 200)!;
    expect400(refused, 'Bad request. Reason: At most 25 developer keys can be active at once. Deactivate a key before creating another.');
    assert.equal((await call('PUT', '/deactivate', { key_id: capped.keyId }, admin(capped))).statusCode, 200);
    assert.equal((await call('POST', '', {}, admin(capped))).statusCode, 200);
    assert.equal((await call('POST', '', {}, admin(capped))).statusCode, 400);
    assert.equal((await call('GET', '', undefined, admin(capped))).json().length, 26);
  });
});

describe('access', () => {
  it('403 for developer keys and without a key on every admin key endpoint', async () => {
    const routes: ['GET' | 'POST' | 'PUT', string][] = [
      ['POST', ''],
      ['GET', ''],
      ['PUT', '/deactivate'],
      ['PUT', '/label'],
      ['PUT', '/limits'],
      ['PUT', '/scopes'],
    ];
    for (const [method, path] of routes) {
      const dev = await call(method, path, method === 'GET' ? undefined : { key_id: org.keyId, label: 'x' }, asKey(org, org.key));
      assert.equal(dev.statusCode, 403, `${method} ${path}`);
      assert.equal(dev.json().message, 'Forbidden. This endpoint requires an admin key.');
      const none = await call(method, path, method === 'GET' ? undefined : {}, { host: org.host } as never);
      assert.equal(none.statusCode, 403);
    }
  });

  it('key ids: missing or malformed → 400, unknown, other accounts’ and admin keys → 404', async () => {
    for (const path of ['/deactivate', '/label', '/limits', '/scopes']) {
      expect400(await call('PUT', path, { label: 'x', characters: 1, scopes: [] }), "Parameter 'key_id' not specified");
      expect400(
        await call('PUT', path, { key_id: 'nope', label: 'x', characters: 1, scopes: [] }),
        "Value for 'key_id' not supported. A key id is two GUIDs joined by a colon.",
      );
      const unknown = `${randomUUID()}:${randomUUID()}`;
      const adminKeyId = (await ctx.services.store.repositories.accounts.listKeys(org.accountId, 'admin'))[0]!.id;
      for (const keyId of [unknown, other.keyId, adminKeyId]) {
        const res = await call('PUT', path, { key_id: keyId, label: 'x', characters: 1, scopes: [] });
        assert.equal(res.statusCode, 404, `${path} ${keyId}`);
        assert.equal(res.json().message, 'Developer key not found.');
      }
    }
    // The other account's key was not touched.
    const theirs = await ctx.services.store.repositories.accounts.getKey(other.keyId);
    assert.equal(theirs?.deactivated_at, null);
    assert.equal(theirs?.label, 'test');
  });
});

describe('deactivate and rename', () => {
  it('deactivation is immediate and permanent', async () => {
    const key = await createKey({ label: 'short-lived' });
    assert.equal((await translate(asKey(org, key.key))).statusCode, 200); // cached in the auth cache now
    const res = await call('PUT', '/deactivate', { key_id: key.key_id });
    assert.equal(res.statusCode, 200);
    const record = res.json();
    assert.equal(record.is_deactivated, true);
    assert.ok(Date.parse(record.deactivated_time) > 0);
    const denied = await translate(asKey(org, key.key));
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().message, 'Authorization failed. The key is unknown or has been deactivated.');

    const again = await call('PUT', '/deactivate', { key_id: key.key_id });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().deactivated_time, record.deactivated_time, 'the first deactivation time is kept');
    // Renaming or changing limits and scopes never reactivates.
    assert.equal((await call('PUT', '/label', { key_id: key.key_id, label: 'renamed' })).json().is_deactivated, true);
    assert.equal((await call('PUT', '/limits', { key_id: key.key_id, characters: null })).json().is_deactivated, true);
    assert.equal((await call('PUT', '/scopes', { key_id: key.key_id, scopes: null })).json().is_deactivated, true);
    assert.equal((await translate(asKey(org, key.key))).statusCode, 403);
  });

  it('renames a key; the label is required', async () => {
    const key = await createKey({ label: 'before' });
    const res = await call('PUT', '/label', { key_id: key.key_id, label: 'after' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().label, 'after');
    expect400(await call('PUT', '/label', { key_id: key.key_id }), "Parameter 'label' not specified");
    expect400(await call('PUT', '/label', { key_id: key.key_id, label: ' ' }), /^Value for 'label' not supported\./);
  });
});

describe('limits', () => {
  it('a character limit gives 456 for that key only once reached; null lifts it; 0 blocks', async () => {
    const limited = await createKey({ label: 'limited' });
    const sibling = await createKey({ label: 'sibling' });
    const res = await call('PUT', '/limits', { key_id: limited.key_id, characters: 10 });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().usage_limits, { characters: 10, speech_to_text_milliseconds: null });

    assert.equal((await translate(asKey(org, limited.key), 'Hello.')).statusCode, 200); // 6
    const over = await translate(asKey(org, limited.key), 'Hello.'); // 12 > 10
    assert.equal(over.statusCode, 456);
    assert.equal(over.json().message, 'Quota for this billing period has been exceeded.');
    assert.equal((await translate(asKey(org, limited.key), 'Dog.')).statusCode, 200); // 10: reached
    assert.equal((await translate(asKey(org, limited.key), 'a')).statusCode, 456);
    assert.equal((await translate(asKey(org, sibling.key), 'Hello.')).statusCode, 200, 'other keys are unaffected');

    const usage = (await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: asKey(org, limited.key) })).json();
    assert.equal(usage.api_key_character_count, 10);
    assert.equal(usage.api_key_character_limit, 10);
    assert.ok(usage.character_count >= 16, 'the account count includes the sibling');
    // The key list carries each key's usage in the billing period beside its limits (the admin console shows both).
    const listed = (await call('GET', '')).json() as { key_id: string; usage: object; usage_limits: object }[];
    const inList = (id: string) => listed.find((k) => k.key_id === id)!;
    assert.deepEqual(inList(limited.key_id).usage, { characters: 10, speech_to_text_milliseconds: 0 });
    assert.deepEqual(inList(sibling.key_id).usage, { characters: 6, speech_to_text_milliseconds: 0 });
    assert.equal(res.json().usage, undefined, 'only the list reads the counters');

    await call('PUT', '/limits', { key_id: limited.key_id, characters: null });
    assert.equal((await translate(asKey(org, limited.key), 'Hello.')).statusCode, 200);

    const blocked = await createKey({ label: 'blocked' });
    await call('PUT', '/limits', { key_id: blocked.key_id, characters: 0 });
    assert.equal((await translate(asKey(org, blocked.key), 'Hi.')).statusCode, 456);
    assert.equal((await translate(asKey(org, sibling.key), 'Hi.')).statusCode, 200);
  });

  it('absent fields stay unchanged; speech limits are stored and shown', async () => {
    const key = await createKey();
    await call('PUT', '/limits', { key_id: key.key_id, characters: 5000 });
    const res = await call('PUT', '/limits', { key_id: key.key_id, speech_to_text_milliseconds: 3_600_000 });
    assert.deepEqual(res.json().usage_limits, { characters: 5000, speech_to_text_milliseconds: 3_600_000 });
    const form = await ctx.app.inject({
      method: 'PUT',
      url: '/v2/admin/developer-keys/limits',
      headers: { ...admin(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `key_id=${encodeURIComponent(key.key_id)}&characters=7&speech_to_text_milliseconds=`,
    });
    assert.deepEqual(form.json().usage_limits, { characters: 7, speech_to_text_milliseconds: null });
  });

  it('a reached speech limit blocks that key before a voice session starts', async () => {
    const key = await createKey();
    await call('PUT', '/limits', { key_id: key.key_id, speech_to_text_milliseconds: 60_000 });
    const auth = (await ctx.services.accounts.authenticate(key.key))!;
    await ctx.services.usage.assertSpeechToTextAvailable(auth);
    await ctx.services.usage.charge(auth, 'speech_to_text', 60_000, null);
    const listed = (await call('GET', '')).json() as { key_id: string; usage: object }[];
    assert.deepEqual(listed.find((k) => k.key_id === key.key_id)!.usage, { characters: 0, speech_to_text_milliseconds: 60_000 });
    await assert.rejects(ctx.services.usage.assertSpeechToTextAvailable(auth), { code: 'quota_exceeded' });
    await assert.rejects(ctx.services.usage.charge(auth, 'speech_to_text', 1, null), { code: 'quota_exceeded' });
  });

  it('rejects bad limit values with a clear 400', async () => {
    const key = await createKey();
    for (const [name, value] of [
      ['characters', -1],
      ['characters', 1.5],
      ['characters', 'many'],
      ['characters', true],
      ['speech_to_text_milliseconds', -5],
      ['speech_to_text_milliseconds', {}],
    ] as const) {
      expect400(
        await call('PUT', '/limits', { key_id: key.key_id, [name]: value }),
        `Value for '${name}' not supported. Use a non-negative integer, 0 to block the key, or null for no limit.`,
      );
    }
    expect400(await call('PUT', '/limits', { key_id: key.key_id }), "Parameter 'characters' or 'speech_to_text_milliseconds' not specified");
  });
});

describe('scopes', () => {
  it('a scoped key gets 403 outside its scopes; changing scopes takes effect at once; admin routes unaffected', async () => {
    const key = await createKey({ label: 'usage only', scopes: ['usage'] });
    assert.deepEqual(key.scopes, ['usage']);
    const denied = await translate(asKey(org, key.key));
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().message, "Forbidden. This key is not allowed to use this endpoint: its scopes do not include 'translate'.");
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: asKey(org, key.key) })).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v2/languages', headers: asKey(org, key.key) })).statusCode, 403);

    const res = await call('PUT', '/scopes', { key_id: key.key_id, scopes: ['translate', 'languages'] });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().scopes, ['translate', 'languages']);
    assert.equal((await translate(asKey(org, key.key))).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v2/languages', headers: asKey(org, key.key) })).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v2/usage', headers: asKey(org, key.key) })).statusCode, 403);

    const none = await call('PUT', '/scopes', { key_id: key.key_id, scopes: [] });
    assert.deepEqual(none.json().scopes, []);
    assert.equal((await translate(asKey(org, key.key))).statusCode, 403);
    const all = await call('PUT', '/scopes', { key_id: key.key_id, scopes: null });
    assert.equal(all.json().scopes, null);
    assert.equal((await translate(asKey(org, key.key))).statusCode, 200);
    assert.equal((await call('GET', '')).statusCode, 200, 'the admin key is never scoped');
  });

  it('rejects unknown scope names and bad types', async () => {
    const key = await createKey();
    expect400(
      await call('PUT', '/scopes', { key_id: key.key_id, scopes: ['translate', 'voice'] }),
      `Value for 'scopes' not supported. Unknown scope 'voice'. Allowed: ${SCOPES.join(', ')}.`,
    );
    expect400(await call('POST', '', { scopes: 'admin' }), /Unknown scope 'admin'/);
    expect400(await call('PUT', '/scopes', { key_id: key.key_id, scopes: 5 }), /^Value for 'scopes' not supported\. Use an array/);
    expect400(await call('PUT', '/scopes', { key_id: key.key_id }), "Parameter 'scopes' not specified");
  });
});
