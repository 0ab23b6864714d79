// Group commit of SQLite charges: charges announced by translations under way share one commit, each still decided
// against the totals the charges before it left, and a charge nobody else is coming for is not held back.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../src/store/store.js';
import { AccountsService, type AuthContext } from '../../src/accounts/accounts-service.js';
import { prepareSqliteCharge, SqliteChargeBatcher, type ChargeLimits, type UsageCharge } from '../../src/store/charges.js';
import { testStoreLocation } from '../helpers/harness.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SQLite group commit of charges', () => {
  let store: Store;
  let cleanup: () => void;
  let accounts: AccountsService;
  /** Sizes of the transactions written, in order. */
  let commits: number[];
  let batcher: SqliteChargeBatcher;

  before(async () => {
    const location = testStoreLocation('sqlite');
    cleanup = location.cleanup;
    store = await Store.open({ url: location.url });
    accounts = new AccountsService(store.repositories.accounts, store.changes);
  });
  after(async () => {
    await store.close();
    cleanup();
  });

  /** A long wait: what shares a commit here is decided by the announcements, not by how fast the machine runs. */
  function newBatcher(waitMs = 60_000): void {
    const run = prepareSqliteCharge(store.connection.sqlite!);
    commits = [];
    batcher = new SqliteChargeBatcher(store.db, (items) => {
      commits.push(items.length);
      return run(items);
    }, waitMs);
  }

  async function keyWithLimit(characterLimit: number | null): Promise<{ ctx: AuthContext; charge: (units: number) => [UsageCharge, ChargeLimits] }> {
    const { account } = await accounts.createAccount({ plan: 'pro', characterLimit });
    const dev = await accounts.createKey(account.id);
    const ctx = (await accounts.authenticate(dev.secret))!;
    const limits = { accountCharacterLimit: characterLimit, keyCharacterLimit: null, keySpeechToTextMsLimit: null };
    const periodStart = accounts.billingPeriod(ctx.account).start;
    const charge = (units: number): [UsageCharge, ChargeLimits] => [
      { accountId: account.id, keyId: ctx.key.id, product: 'text_translation', units, reportingTag: null, at: Date.now(), periodStart },
      limits,
    ];
    return { ctx, charge };
  }

  it('charges of translations under way, arriving in different turns, share one commit', async () => {
    newBatcher();
    const { ctx, charge } = await keyWithLimit(null);
    const ends = [batcher.expect(), batcher.expect(), batcher.expect()];
    const first = batcher.add(...charge(10));
    await turn();
    await turn();
    const second = batcher.add(...charge(20));
    await turn();
    const third = batcher.add(...charge(30));
    assert.deepEqual(await Promise.all([first, second, third]), [{ ok: true }, { ok: true }, { ok: true }]);
    for (const end of ends) end();
    assert.deepEqual(commits, [3]);
    const totals = await store.repositories.usage.usageTotals(ctx.account.id, accounts.billingPeriod(ctx.account).start);
    assert.equal(totals.characters, 60);
  });

  it('a limit holds exactly within a shared commit', async () => {
    newBatcher();
    const { ctx, charge } = await keyWithLimit(20);
    const ends = Array.from({ length: 5 }, () => batcher.expect());
    const outcomes = [];
    for (let i = 0; i < 5; i++) {
      outcomes.push(batcher.add(...charge(7)));
      await turn();
    }
    const results = await Promise.all(outcomes);
    for (const end of ends) end();
    assert.deepEqual(results.map((r) => r.ok), [true, true, false, false, false]);
    assert.deepEqual(commits, [5]);
    const totals = await store.repositories.usage.usageTotals(ctx.account.id, accounts.billingPeriod(ctx.account).start);
    assert.equal(totals.characters, 14);
  });

  it('a charge is written on the next turn once no other announced charge is still to come', async () => {
    newBatcher();
    const { charge } = await keyWithLimit(null);
    const endA = batcher.expect();
    const endB = batcher.expect();
    let answered = false;
    const a = batcher.add(...charge(5)).then((o) => ((answered = true), o));
    await turn();
    assert.equal(answered, false, 'waits for the other announced charge');
    endB(); // B failed before charging: nothing else is coming
    await turn();
    await turn();
    assert.equal(answered, true);
    assert.deepEqual(await a, { ok: true });
    endA();
    // unannounced (documents, voice): written on the next turn, as before
    let alone = false;
    const b = batcher.add(...charge(5)).then(() => (alone = true));
    await turn();
    await turn();
    assert.equal(alone, true);
    await b;
    assert.deepEqual(commits, [1, 1]);
  });

  it('a charge waits for announced ones no longer than the wait', async () => {
    newBatcher(5);
    const { charge } = await keyWithLimit(null);
    const end = batcher.expect();
    batcher.expect(); // never ends
    assert.deepEqual(await batcher.add(...charge(4)), { ok: true });
    assert.deepEqual(commits, [1]);
    end();
  });

  it('drain writes a waiting batch at once', async () => {
    newBatcher();
    const { charge } = await keyWithLimit(null);
    const end = batcher.expect();
    batcher.expect(); // never ends: drain must not wait for it
    const pending = batcher.add(...charge(3));
    await batcher.drain();
    assert.deepEqual(commits, [1]);
    assert.deepEqual(await pending, { ok: true });
    end();
  });
});
