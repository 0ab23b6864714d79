// The store contract: every database backend runs this same suite.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../src/store/store.js';
import { AccountsService } from '../../src/accounts/accounts-service.js';
import { UsageService } from '../../src/accounts/usage-service.js';
import { testStoreLocation, type TestDatabase } from '../helpers/harness.js';

export function storeContract(db: TestDatabase): void {
  describe(`store contract (${db})`, () => {
    let store: Store;
    let cleanup: () => void;

    before(async () => {
      const location = testStoreLocation(db);
      cleanup = location.cleanup;
      store = await Store.open({ url: location.url, ...(location.pgSchema ? { pgSchema: location.pgSchema } : {}) });
    });
    after(async () => {
      await store.close({ dropSchema: true });
      cleanup();
    });

    it('applies migrations idempotently (reopen is a no-op)', async () => {
      const tables = await store.db.introspection.getTables();
      const names = tables.map((t) => t.name);
      for (const t of ['accounts', 'api_keys', 'usage_events', 'usage_counters']) assert.ok(names.includes(t), t);
    });

    it('creates accounts with admin keys and finds keys by hash only', async () => {
      const accounts = new AccountsService(store.repositories.accounts, store.changes);
      const { account, adminKey } = await accounts.createAccount({ plan: 'free', features: ['detection'] });
      assert.equal(account.plan, 'free');
      assert.ok(account.features.has('detection'));
      assert.equal(account.characterLimit, 500000);
      const ctx = await accounts.authenticate(adminKey);
      assert.equal(ctx?.key.kind, 'admin');
      assert.equal(ctx?.account.id, account.id);
      assert.equal(await accounts.authenticate(`${adminKey}x`), null);
      const dev = await accounts.createKey(account.id, { label: 'ci' });
      assert.match(dev.key.id, /^[0-9a-f-]{36}:[0-9a-f-]{36}$/);
      const keys = await store.repositories.accounts.listKeys(account.id);
      assert.equal(keys.length, 2);
      assert.ok(keys.every((k) => k.key_hash.length === 64));
    });

    it('rejects unknown features', async () => {
      const accounts = new AccountsService(store.repositories.accounts, store.changes);
      await assert.rejects(accounts.createAccount({ plan: 'pro', features: ['teleport'] }), /Unknown feature/);
    });

    it('charges atomically: never over the limit, ledger and counters agree', async () => {
      const accounts = new AccountsService(store.repositories.accounts, store.changes);
      const usage = new UsageService(store.repositories.usage, accounts);
      const { account } = await accounts.createAccount({ plan: 'pro', characterLimit: 100 });
      const dev = await accounts.createKey(account.id);
      const ctx = (await accounts.authenticate(dev.secret))!;
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => usage.charge(ctx, 'text_translation', 7, 'tag-a')));
      const ok = outcomes.filter((o) => o.status === 'fulfilled').length;
      assert.equal(ok, 14); // 14 × 7 = 98 ≤ 100 < 105
      const period = accounts.billingPeriod(ctx.account);
      assert.equal((await store.repositories.usage.usageTotals(account.id, period.start)).characters, 98);
      assert.equal((await store.repositories.usage.usageTotals(dev.key.id, period.start)).characters, 98);
      const byProduct = await store.repositories.usage.usageByProduct(account.id, period.start);
      assert.equal(byProduct.get('text_translation'), 98);
      const events = await store.db.selectFrom('usage_events').selectAll().where('account_id', '=', account.id).execute();
      assert.equal(events.length, 14);
      assert.ok(events.every((e) => e.reporting_tag === 'tag-a' && e.units === 7));
    });

    it('a key limit holds on an unlimited account, and unlimited charges still count in full', async () => {
      const accounts = new AccountsService(store.repositories.accounts, store.changes);
      const usage = new UsageService(store.repositories.usage, accounts);
      const { account } = await accounts.createAccount({ plan: 'pro', characterLimit: null });
      const limited = await accounts.createKey(account.id);
      await store.repositories.accounts.updateKey(limited.key.id, { character_limit: 20 });
      const free = await accounts.createKey(account.id);
      const [limitedCtx, freeCtx] = await Promise.all([accounts.authenticate(limited.secret), accounts.authenticate(free.secret)]);
      assert.equal(limitedCtx!.key.characterLimit, 20, 'premise: the key is limited, its account is not');
      const outcomes = await Promise.allSettled([
        ...Array.from({ length: 5 }, () => usage.charge(limitedCtx!, 'text_translation', 7, null)),
        ...Array.from({ length: 5 }, () => usage.charge(freeCtx!, 'text_translation', 7, null)),
      ]);
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 2 + 5); // 2 × 7 = 14 ≤ 20 < 21
      const { start } = accounts.billingPeriod(limitedCtx!.account);
      assert.equal((await store.repositories.usage.usageTotals(limited.key.id, start)).characters, 14);
      assert.equal((await store.repositories.usage.usageTotals(free.key.id, start)).characters, 35);
      assert.equal((await store.repositories.usage.usageTotals(account.id, start)).characters, 49);
    });

    it('keeps speech milliseconds apart from characters', async () => {
      const accounts = new AccountsService(store.repositories.accounts, store.changes);
      const usage = new UsageService(store.repositories.usage, accounts);
      const { account } = await accounts.createAccount({ plan: 'pro', characterLimit: 5 });
      const dev = await accounts.createKey(account.id);
      const ctx = (await accounts.authenticate(dev.secret))!;
      await usage.charge(ctx, 'speech_to_text', 60_000, null);
      const summary = await usage.summary(ctx);
      assert.equal(summary.accountCharacters, 0);
      assert.equal(summary.accountSpeechToTextMs, 60_000);
    });
  });
}
