// Queries of the administration interface: developer keys under the active-key cap, and usage sums for analytics read
// from the daily rollups (whole days) plus the ledger itself (the partial days at either end of a range).
import { sql, type Kysely } from 'kysely';
import type { StoreConnection } from '../connection.js';
import type { ApiKeyRow } from './accounts-repository.js';
import type { Database } from '../schema.js';
import type { UsageTotals } from '../charges.js';
import { DAY_MS } from '../schema.js';

/**
 * One group of an analytics sum, with the products pivoted into columns: `subject` is a key id or a reporting tag;
 * `day` (UTC epoch day) is set when grouped by day.
 */
export interface UsageSumRow {
  subject: string;
  day: number | null;
  text: number;
  document: number;
  improvement: number;
  speechMs: number;
}

export type UsageDimension = 'key' | 'tag';

export class AdminRepository {
  private readonly db: Kysely<Database>;

  constructor(private readonly connection: StoreConnection) {
    this.db = connection.db;
  }

  /**
   * Inserts a developer key unless the account already has `maxActive` active ones. The count and the insert share a
   * transaction (the account row locked on PostgreSQL; SQLite transactions are serial), so concurrent creates cannot
   * overshoot the cap.
   */
  async insertDeveloperKeyWithin(row: ApiKeyRow, maxActive: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      if (this.connection.dialect === 'postgres') {
        await trx.selectFrom('accounts').select('id').where('id', '=', row.account_id).forUpdate().execute();
      }
      const { n } = await trx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', row.account_id)
        .where('kind', '=', 'developer')
        .where('deactivated_at', 'is', null)
        .executeTakeFirstOrThrow();
      if (Number(n) >= maxActive) return false;
      await trx.insertInto('api_keys').values(row).execute();
      return true;
    });
  }

  async getAccountKey(accountId: string, keyId: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('id', '=', keyId).where('account_id', '=', accountId).executeTakeFirst();
  }

  /** Sets deactivated_at once; a second deactivation keeps the first time. */
  async deactivateKey(keyId: string, at: number): Promise<void> {
    await this.connection.writeAndAnnounce({ kind: 'key', id: keyId }, (db) =>
      db.updateTable('api_keys').set({ deactivated_at: at }).where('id', '=', keyId).where('deactivated_at', 'is', null).execute(),
    );
  }

  /** The billing-period counters of an account's developer keys (what their limits are checked against), by key id. */
  async developerKeyPeriodTotals(accountId: string, periodStart: number): Promise<Map<string, UsageTotals>> {
    const rows = await this.db
      .selectFrom('usage_counters as c')
      .innerJoin('api_keys as k', 'k.id', 'c.subject_id')
      .select(['c.subject_id', 'c.characters', 'c.speech_to_text_ms'])
      .where('k.account_id', '=', accountId)
      .where('k.kind', '=', 'developer')
      .where('c.period_start', '=', periodStart)
      .execute();
    return new Map(rows.map((r) => [r.subject_id, { characters: Number(r.characters), speechToTextMs: Number(r.speech_to_text_ms) }]));
  }

  /**
   * Usage of one account in [from, to) per key or reporting tag (and UTC day), products as columns. Whole days come
   * from the rollup table; the partial days at either end (times other than midnight) from the ledger.
   */
  async usageSums(accountId: string, dimension: UsageDimension, from: number, to: number, byDay: boolean): Promise<UsageSumRow[]> {
    const firstDay = Math.ceil(from / DAY_MS);
    const endDay = Math.floor(to / DAY_MS);
    const parts: Promise<UsageSumRow[]>[] = [];
    if (firstDay < endDay) {
      parts.push(this.rollupSums(accountId, dimension, firstDay, endDay, byDay));
      if (from < firstDay * DAY_MS) parts.push(this.ledgerSums(accountId, dimension, from, firstDay * DAY_MS, byDay));
      if (endDay * DAY_MS < to) parts.push(this.ledgerSums(accountId, dimension, endDay * DAY_MS, to, byDay));
    } else if (from < to) {
      parts.push(this.ledgerSums(accountId, dimension, from, to, byDay));
    }
    const results = await Promise.all(parts);
    if (results.length === 1) return results[0]!;
    const merged = new Map<string, UsageSumRow>();
    for (const rows of results) {
      for (const r of rows) {
        const id = r.day === null ? r.subject : `${r.subject}\u0000${r.day}`;
        const seen = merged.get(id);
        if (!seen) merged.set(id, r);
        else {
          seen.text += r.text;
          seen.document += r.document;
          seen.improvement += r.improvement;
          seen.speechMs += r.speechMs;
        }
      }
    }
    return [...merged.values()];
  }

  private async rollupSums(accountId: string, dimension: UsageDimension, firstDay: number, endDay: number, byDay: boolean) {
    const [table, column] = dimension === 'key' ? (['usage_daily_keys', 'key_id'] as const) : (['usage_daily_tags', 'reporting_tag'] as const);
    // By day, each rollup row already is one group: a plain range read, no aggregation.
    const rows = byDay
      ? await sql<RawSum>`select ${sql.ref(column)} as subject, day, text_characters as text, document_characters as document,
            improvement_characters as improvement, speech_to_text_ms as speech_ms
          from ${sql.table(table)} where account_id = ${accountId} and day >= ${firstDay} and day < ${endDay}`.execute(this.db)
      : await sql<RawSum>`select ${sql.ref(column)} as subject, sum(text_characters) as text, sum(document_characters) as document,
            sum(improvement_characters) as improvement, sum(speech_to_text_ms) as speech_ms
          from ${sql.table(table)} where account_id = ${accountId} and day >= ${firstDay} and day < ${endDay}
          group by ${sql.ref(column)}`.execute(this.db);
    return rows.rows.map((r) => toSumRow(r, byDay));
  }

  private async ledgerSums(accountId: string, dimension: UsageDimension, from: number, to: number, byDay: boolean) {
    const column = dimension === 'key' ? 'key_id' : 'reporting_tag';
    const day = sql`created_at / ${sql.lit(DAY_MS)}`;
    const rows = await sql<RawSum>`select ${sql.ref(column)} as subject, ${byDay ? sql`${day} as day, ` : sql``}${PIVOT}
      from usage_events
      where account_id = ${accountId} and created_at >= ${from} and created_at < ${to}
        ${dimension === 'tag' ? sql`and reporting_tag is not null` : sql``}
      group by ${sql.ref(column)}${byDay ? sql`, ${day}` : sql``}`.execute(this.db);
    return rows.rows.map((r) => toSumRow(r, byDay));
  }
}

/** The ledger's products as columns, as in the rollups. */
const PIVOT = sql`sum(case when product = 'text_translation' then units else 0 end) as text,
  sum(case when product = 'document_translation' then units else 0 end) as document,
  sum(case when product = 'text_improvement' then units else 0 end) as improvement,
  sum(case when product = 'speech_to_text' then units else 0 end) as speech_ms`;

interface RawSum {
  subject: string;
  day?: number | string;
  text: number | string;
  document: number | string;
  improvement: number | string;
  speech_ms: number | string;
}

function toSumRow(r: RawSum, byDay: boolean): UsageSumRow {
  return {
    subject: r.subject,
    day: byDay ? Number(r.day) : null,
    text: Number(r.text),
    document: Number(r.document),
    improvement: Number(r.improvement),
    speechMs: Number(r.speech_ms),
  };
}
