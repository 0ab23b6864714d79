// The usage ledger and per-period counters: totals, per-product sums, and the atomic charge (see charges.ts).
import type { Kysely } from 'kysely';
import type { StoreConnection } from '../connection.js';
import type { Database, UsageProduct } from '../schema.js';
import { chargePostgres, periodTotals, prepareSqliteCharge, SqliteChargeBatcher, type ChargeLimits, type ChargeOutcome, type UsageCharge, type UsageTotals } from '../charges.js';

export type { ChargeLimits, ChargeOutcome, UsageCharge, UsageTotals } from '../charges.js';

export class UsageRepository {
  private readonly db: Kysely<Database>;
  private sqliteCharges: SqliteChargeBatcher | undefined;

  constructor(private readonly connection: StoreConnection) {
    this.db = connection.db;
  }

  async usageTotals(subjectId: string, periodStart: number): Promise<UsageTotals> {
    return periodTotals(this.db, subjectId, periodStart);
  }

  /** Per-product sums of the ledger for one subject (account, or key when keyId given) since a time. */
  async usageByProduct(accountId: string, since: number, keyId?: string): Promise<Map<UsageProduct, number>> {
    let q = this.db
      .selectFrom('usage_events')
      .select(['product', (eb) => eb.fn.sum<number>('units').as('units')])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since);
    if (keyId) q = q.where('key_id', '=', keyId);
    const rows = await q.groupBy('product').execute();
    return new Map(rows.map((r) => [r.product, Number(r.units)]));
  }

  /**
   * The billing decision and the ledger write in one transaction: checks the account's and the key's limits against
   * the period's running totals (locked on PostgreSQL so concurrent nodes cannot both pass), then records the event
   * and bumps both counters. Nothing is written when a limit would be exceeded. `limits` are the caller's view,
   * used on SQLite (one node, whose caches are current); PostgreSQL re-reads them under the lock.
   */
  async charge(charge: UsageCharge, limits: ChargeLimits): Promise<ChargeOutcome> {
    if (this.connection.sqlite) {
      this.sqliteCharges ??= new SqliteChargeBatcher(this.db, prepareSqliteCharge(this.connection.sqlite));
      return this.sqliteCharges.add(charge, limits);
    }
    return chargePostgres(this.db, charge);
  }

  /** Writes the charges still batched for the next turn (before the connection closes: graceful shutdown). */
  async drain(): Promise<void> {
    await this.sqliteCharges?.drain();
  }
}
