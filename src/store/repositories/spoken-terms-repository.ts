// Spoken terms queries (voice): collections per account and their term lists keyed by language.
import type { Kysely } from 'kysely';
import type { Database, SpokenTermListsTable, SpokenTermsTable } from '../schema.js';
import type { StoreConnection } from '../connection.js';

export type SpokenTermsRow = SpokenTermsTable;
export type TermListRow = SpokenTermListsTable;
export type TermListInfo = Omit<TermListRow, 'entries'>;

export class SpokenTermsRepository {
  private readonly db: Kysely<Database>;

  constructor(connection: StoreConnection) {
    this.db = connection.db;
  }

  async count(accountId: string): Promise<number> {
    const r = await this.db.selectFrom('spoken_terms').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  async create(row: SpokenTermsRow, lists: TermListRow[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('spoken_terms').values(row).execute();
      for (const l of lists) await trx.insertInto('spoken_term_lists').values(l).execute();
    });
  }

  async get(accountId: string, id: string): Promise<SpokenTermsRow | undefined> {
    return this.db.selectFrom('spoken_terms').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  }

  async list(accountId: string): Promise<SpokenTermsRow[]> {
    return this.db.selectFrom('spoken_terms').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
  }

  /** List metadata (no entries) of the given collections. */
  async listInfo(ids: string[]): Promise<TermListInfo[]> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('spoken_term_lists')
      .select(['spoken_terms_id', 'lang', 'entry_count', 'updated_at'])
      .where('spoken_terms_id', 'in', ids)
      .orderBy('lang')
      .execute();
  }

  async termList(id: string, lang: string): Promise<TermListRow | undefined> {
    return this.db.selectFrom('spoken_term_lists').selectAll().where('spoken_terms_id', '=', id).where('lang', '=', lang).executeTakeFirst();
  }

  /** Replaces (or creates) the list of one language. */
  async putList(list: TermListRow): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('spoken_term_lists').where('spoken_terms_id', '=', list.spoken_terms_id).where('lang', '=', list.lang).execute();
      await trx.insertInto('spoken_term_lists').values(list).execute();
    });
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('spoken_terms').select('id').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      if (!row) return false;
      await trx.deleteFrom('spoken_term_lists').where('spoken_terms_id', '=', id).execute();
      await trx.deleteFrom('spoken_terms').where('id', '=', id).execute();
      return true;
    });
  }
}
