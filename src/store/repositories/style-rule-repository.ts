// Style rule list queries (issue 6); configured rules and custom instructions are JSON columns of one row.
import type { Kysely } from 'kysely';
import type { Database, StyleRulesTable } from '../schema.js';
import type { StoreConnection } from '../connection.js';

export type StyleRuleRow = StyleRulesTable;

export class StyleRuleRepository {
  private readonly db: Kysely<Database>;

  constructor(connection: StoreConnection) {
    this.db = connection.db;
  }

  async insert(row: StyleRuleRow): Promise<void> {
    await this.db.insertInto('style_rules').values(row).execute();
  }

  async get(accountId: string, id: string): Promise<StyleRuleRow | undefined> {
    return this.db.selectFrom('style_rules').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  }

  async page(accountId: string, page: number, pageSize: number): Promise<StyleRuleRow[]> {
    return this.db
      .selectFrom('style_rules')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(pageSize)
      .offset(page * pageSize)
      .execute();
  }

  /** Optimistic update: applies only if the version is unchanged, so concurrent edits never lose a version bump. */
  async update(id: string, expectedVersion: number, changes: Partial<Omit<StyleRuleRow, 'id' | 'account_id'>>): Promise<boolean> {
    const r = await this.db.updateTable('style_rules').set(changes).where('id', '=', id).where('version', '=', expectedVersion).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('style_rules').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
