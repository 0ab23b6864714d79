// The repository contract: each repository's basic create / read / update on every database backend.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Store } from '../../src/store/store.js';
import type { ApiKeyRow } from '../../src/store/repositories/accounts-repository.js';
import { testStoreLocation, type TestDatabase } from '../helpers/harness.js';
import { failChargedMarks } from '../helpers/failing-mark.js';
import { documentRow, memoryJobRow } from '../helpers/job-rows.js';

const T0 = 1_700_000_000_000;

function keyRow(accountId: string, kind: ApiKeyRow['kind'], overrides: Partial<ApiKeyRow> = {}): ApiKeyRow {
  const id = randomUUID();
  return {
    id,
    account_id: accountId,
    kind,
    key_hash: `hash-${id}`,
    key_start: 'ab',
    key_end: 'yz',
    label: 'test',
    scopes: null,
    character_limit: null,
    speech_to_text_ms_limit: null,
    created_at: T0,
    deactivated_at: null,
    ...overrides,
  };
}

export function repositoriesContract(db: TestDatabase): void {
  describe(`repository contract (${db})`, () => {
    let store: Store;
    let cleanup: () => void;
    let accountId: string;
    let keyId: string;

    before(async () => {
      const location = testStoreLocation(db);
      cleanup = location.cleanup;
      store = await Store.open({ url: location.url, ...(location.pgSchema ? { pgSchema: location.pgSchema } : {}) });
      accountId = randomUUID();
      await store.repositories.accounts.insertAccount({ id: accountId, name: 'acme', plan: 'pro', features: '[]', character_limit: 1000, created_at: T0 });
      const key = keyRow(accountId, 'developer');
      keyId = key.id;
      await store.repositories.accounts.insertKey(key);
    });
    after(async () => {
      await store.close({ dropSchema: true });
      cleanup();
    });

    /** A fresh account with a character limit, its developer key, and the limits a charge of it is given. */
    async function accountLimitedTo(characterLimit: number) {
      const other = randomUUID();
      await store.repositories.accounts.insertAccount({ id: other, name: 'u', plan: 'pro', features: '[]', character_limit: characterLimit, created_at: T0 });
      const key = keyRow(other, 'developer');
      await store.repositories.accounts.insertKey(key);
      return { other, key, limits: { accountCharacterLimit: characterLimit, keyCharacterLimit: null, keySpeechToTextMsLimit: null } };
    }

    it('accounts: inserts, reads and updates accounts and keys', async () => {
      const accounts = store.repositories.accounts;
      assert.equal((await accounts.getAccount(accountId))?.name, 'acme');
      await accounts.updateAccount(accountId, { character_limit: 42 });
      assert.equal((await accounts.getAccount(accountId))?.character_limit, 42);
      assert.equal(await accounts.getAccount(randomUUID()), undefined);
      const key = await accounts.findKeyByHash(`hash-${keyId}`);
      assert.equal(key?.id, keyId);
      await accounts.updateKey(keyId, { label: 'renamed' });
      assert.equal((await accounts.getKey(keyId))?.label, 'renamed');
      assert.deepEqual((await accounts.listKeys(accountId, 'developer')).map((k) => k.id), [keyId]);
      assert.deepEqual(await accounts.listKeys(accountId, 'admin'), []);
    });

    it('usage: charges within limits, refuses over them, and sums by product', async () => {
      const usage = store.repositories.usage;
      const { other, key, limits } = await accountLimitedTo(10);
      const charge = { accountId: other, keyId: key.id, product: 'text_translation' as const, units: 6, reportingTag: null, at: T0 + 1, periodStart: T0 };
      assert.deepEqual(await usage.charge(charge, limits), { ok: true });
      assert.deepEqual(await usage.charge(charge, limits), { ok: false, exceeded: 'account' });
      assert.equal((await usage.usageTotals(other, T0)).characters, 6);
      assert.equal((await usage.usageByProduct(other, T0)).get('text_translation'), 6);
    });

    it('admin: caps active developer keys and deactivates them', async () => {
      const admin = store.repositories.admin;
      const first = keyRow(accountId, 'developer');
      assert.equal(await admin.insertDeveloperKeyWithin(first, 2), true);
      assert.equal(await admin.insertDeveloperKeyWithin(keyRow(accountId, 'developer'), 2), false);
      assert.equal((await admin.getAccountKey(accountId, first.id))?.id, first.id);
      assert.equal(await admin.getAccountKey(randomUUID(), first.id), undefined);
      await admin.deactivateKey(first.id, T0 + 5);
      assert.equal((await store.repositories.accounts.getKey(first.id))?.deactivated_at, T0 + 5);
      assert.equal(await admin.insertDeveloperKeyWithin(keyRow(accountId, 'developer'), 2), true);
    });

    it('glossaries: creates, reads, updates and deletes with their dictionaries', async () => {
      const glossaries = store.repositories.glossaries;
      const id = randomUUID();
      const dict = { glossary_id: id, source_lang: 'en', target_lang: 'es', entries: 'a\tb', entry_count: 1, updated_at: T0 };
      await glossaries.create({ id, account_id: accountId, name: 'g', v3_edited: 0, created_at: T0 }, [dict]);
      assert.equal((await glossaries.get(accountId, id))?.name, 'g');
      assert.equal(await glossaries.count(accountId), 1);
      await glossaries.update(id, { name: 'g2' }, [{ ...dict, entries: 'a\tc', updated_at: T0 + 1 }]);
      assert.equal((await glossaries.get(accountId, id))?.name, 'g2');
      assert.equal((await glossaries.dictionary(id, 'en', 'es'))?.entries, 'a\tc');
      assert.equal(await glossaries.delete(accountId, id), true);
      assert.equal(await glossaries.get(accountId, id), undefined);
    });

    it('style rules: inserts, reads and updates only at the expected version', async () => {
      const rules = store.repositories.styleRules;
      const id = randomUUID();
      await rules.insert({ id, account_id: accountId, name: 's', language: 'en', configured_rules: '{}', custom_instructions: '[]', version: 1, created_at: T0, updated_at: T0 });
      assert.equal((await rules.get(accountId, id))?.name, 's');
      assert.equal(await rules.update(id, 2, { name: 'stale' }), false);
      assert.equal(await rules.update(id, 1, { name: 's2', version: 2 }), true);
      assert.equal((await rules.get(accountId, id))?.name, 's2');
      assert.equal(await rules.delete(accountId, id), true);
    });

    it('translation memories: inserts, reads and updates memories and their jobs', async () => {
      const memories = store.repositories.memories;
      const id = randomUUID();
      await memories.insertMemory({ id, account_id: accountId, name: 'm', source_lang: 'en', target_langs: '["es"]', segment_count: 0, created_at: T0, updated_at: T0 });
      await memories.insertSegments(id, [{ target_lang: 'es', source: 'hello', target: 'hola' }]);
      await memories.updateMemory(id, { segment_count: 1 });
      assert.equal((await memories.getMemory(accountId, id))?.segment_count, 1);
      const segments = await memories.segments(id, 'es', 0, 10);
      assert.deepEqual(segments.map((s) => [s.source, s.target]), [['hello', 'hola']]);
      const jobId = randomUUID();
      await memories.insertJob(memoryJobRow({ id: jobId, account_id: accountId, memory_id: id, created_at: T0 }));
      await memories.updateJob(jobId, { status: 'done' });
      assert.equal((await memories.getJob(accountId, jobId))?.status, 'done');
      assert.equal(await memories.getJob(randomUUID(), jobId), undefined);
    });

    it('documents: inserts, claims under a lease and finishes', async () => {
      const documents = store.repositories.documents;
      const id = randomUUID();
      await documents.insert(documentRow({ id, account_id: accountId, key_id: keyId, created_at: T0 }));
      assert.equal((await documents.get(id))?.status, 'queued');
      const claimed = await documents.claimNext('node-a', T0 + 10, 1000);
      assert.equal(claimed?.id, id);
      assert.equal(claimed?.lease_owner, 'node-a');
      assert.equal(await documents.finish(id, 'node-b', { status: 'done' }), false);
      assert.equal(await documents.finish(id, 'node-a', { status: 'done', billed_characters: 3 }), true);
      const done = await documents.get(id);
      assert.equal(done?.status, 'done');
      assert.equal(done?.billed_characters, 3);
    });

    it('documents: a delivered document is charged once, its charge and charged mark in one transaction', async () => {
      const documents = store.repositories.documents;
      const usage = store.repositories.usage;
      const { other, key, limits } = await accountLimitedTo(10);
      const delivered = async (units: number) => {
        const id = randomUUID();
        await documents.insert(documentRow({ id, account_id: other, key_id: key.id, created_at: T0, status: 'downloading', billed_characters: units }));
        return { id, charge: { accountId: other, keyId: key.id, product: 'document_translation' as const, units, reportingTag: null, at: T0 + 1, periodStart: T0 } };
      };
      const charged = async () => (await usage.usageTotals(other, T0)).characters;
      const mark = async (id: string) => (await documents.get(id))?.charged;

      // the mark fails after the charge was written: the charge goes with it, and the document can still be charged
      const first = await delivered(4);
      const restore = await failChargedMarks(store);
      await assert.rejects(documents.chargeOnce(first.id, first.charge, limits), /charged mark refused/);
      await restore();
      assert.equal(await charged(), 0);
      assert.equal(await mark(first.id), 0);
      assert.deepEqual(await documents.chargeOnce(first.id, first.charge, limits), { ok: true });
      assert.equal(await charged(), 4);
      assert.equal(await mark(first.id), 1);
      // settled again (a re-download after a crash): nothing more
      assert.deepEqual(await documents.chargeOnce(first.id, first.charge, limits), { ok: true });
      assert.equal(await charged(), 4);
      assert.equal((await usage.usageByProduct(other, T0)).get('document_translation'), 4);

      // over the limit: refused, neither charged nor marked
      const big = await delivered(7);
      assert.deepEqual(await documents.chargeOnce(big.id, big.charge, limits), { ok: false, exceeded: 'account' });
      assert.equal(await mark(big.id), 0);
      assert.equal(await charged(), 4);

      // two settlements at once (two nodes): one charge
      const raced = await delivered(2);
      await Promise.all([documents.chargeOnce(raced.id, raced.charge, limits), documents.chargeOnce(raced.id, raced.charge, limits)]);
      assert.equal(await charged(), 6);
      assert.equal(await mark(raced.id), 1);

      // a document already gone (completed and deleted by another request) is not charged
      const gone = await delivered(3);
      await documents.delete(gone.id);
      assert.deepEqual(await documents.chargeOnce(gone.id, gone.charge, limits), { ok: true });
      assert.equal(await charged(), 6);
    });

    it('spoken terms: creates, reads and replaces a language list', async () => {
      const spoken = store.repositories.spokenTerms;
      const id = randomUUID();
      await spoken.create({ id, account_id: accountId, name: 'terms', created_at: T0 }, [{ spoken_terms_id: id, lang: 'en', entries: 'a', entry_count: 1, updated_at: T0 }]);
      assert.equal((await spoken.get(accountId, id))?.name, 'terms');
      await spoken.putList({ spoken_terms_id: id, lang: 'en', entries: 'a\nb', entry_count: 2, updated_at: T0 + 1 });
      assert.equal((await spoken.termList(id, 'en'))?.entry_count, 2);
      assert.equal(await spoken.delete(accountId, id), true);
      assert.equal(await spoken.get(accountId, id), undefined);
    });

    it('voice sessions: inserts, finds by token and ends', async () => {
      const sessions = store.repositories.voiceSessions;
      const id = randomUUID();
      await sessions.insert({
        id, account_id: accountId, key_id: keyId, config: '{}', reporting_tag: null, token_hash: 'tok-1', token_expires_at: T0 + 60_000,
        latest_hash: 'tok-1', generation: 0, connected: 0, ended: null, last_activity: T0,
      });
      assert.equal((await sessions.byToken('tok-1'))?.id, id);
      assert.equal(await sessions.end(id, 'client', T0 + 1), true);
      assert.equal((await sessions.get(id))?.ended, 'client');
    });

    it('server secrets and job stats: read what the migrations and the tables hold', async () => {
      assert.equal((await store.repositories.serverSecrets.serverSecret('url_signing')).length > 0, true);
      await assert.rejects(store.repositories.serverSecrets.serverSecret('nope'), /missing/);
      const stats = await store.repositories.jobStats.jobStats();
      assert.ok(stats.some((s) => s.kind === 'document' && s.status === 'done' && s.count === 1));
      assert.ok(stats.some((s) => s.kind === 'translation_memory' && s.status === 'done' && s.count === 1));
    });
  });
}
