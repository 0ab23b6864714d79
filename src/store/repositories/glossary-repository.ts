// Glossary queries (issue 6): one storage model for both API generations, dictionaries keyed by language pair.
import type { Kysely } from 'kysely';
import type { ChangeFeed } from '../change-feed.js';
import type { Database, GlossariesTable, GlossaryDictionariesTable } from '../schema.js';
import type { StoreConnection } from '../connection.js';

export type GlossaryRow = GlossariesTable;
export type DictionaryRow = Omit<GlossaryDictionariesTable, 'position'>;
export type DictionaryInfo = Omit<DictionaryRow, 'entries'>;

export class GlossaryRepository {
  /** `changes`: where edits are announced, so every node drops its compiled copy of the glossary. */
  private readonly db: Kysely<Database>;
  readonly changes: ChangeFeed;

  constructor(connection: StoreConnection) {
    this.db = connection.db;
    this.changes = connection.changes;
  }

  private announce(id: string): Promise<void> {
    return this.changes.publish({ kind: 'glossary', id });
  }

  async count(accountId: string): Promise<number> {
    const r = await this.db.selectFrom('glossaries').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  async create(row: GlossaryRow, dictionaries: DictionaryRow[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('glossaries').values(row).execute();
      for (const [position, d] of dictionaries.entries()) await trx.insertInto('glossary_dictionaries').values({ ...d, position }).execute();
    });
  }

  async get(accountId: string, id: string): Promise<GlossaryRow | undefined> {
    return this.db.selectFrom('glossaries').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  }

  async list(accountId: string): Promise<GlossaryRow[]> {
    return this.db.selectFrom('glossaries').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
  }

  /** Dictionary metadata (no entries) of the given glossaries. */
  async dictionaryInfo(glossaryIds: string[]): Promise<DictionaryInfo[]> {
    if (glossaryIds.length === 0) return [];
    return this.db
      .selectFrom('glossary_dictionaries')
      .select(['glossary_id', 'source_lang', 'target_lang', 'entry_count', 'updated_at'])
      .where('glossary_id', 'in', glossaryIds)
      .orderBy('position')
      .orderBy('source_lang')
      .orderBy('target_lang')
      .execute();
  }

  async dictionary(glossaryId: string, source: string, target: string): Promise<DictionaryRow | undefined> {
    return this.db
      .selectFrom('glossary_dictionaries')
      .selectAll()
      .where('glossary_id', '=', glossaryId)
      .where('source_lang', '=', source)
      .where('target_lang', '=', target)
      .executeTakeFirst();
  }

  /** Inserts or replaces dictionaries, renames and marks the glossary as v3-edited, in one transaction. */
  async update(id: string, changes: { name?: string; v3Edited?: boolean }, dictionaries: DictionaryRow[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const set: Partial<GlossaryRow> = {};
      if (changes.name !== undefined) set.name = changes.name;
      if (changes.v3Edited) set.v3_edited = 1;
      if (Object.keys(set).length > 0) await trx.updateTable('glossaries').set(set).where('id', '=', id).execute();
      for (const d of dictionaries) {
        // a replaced dictionary keeps its place, a new one goes last
        const places = await trx
          .selectFrom('glossary_dictionaries')
          .select(['source_lang', 'target_lang', 'position'])
          .where('glossary_id', '=', d.glossary_id)
          .execute();
        const same = places.find((p) => p.source_lang === d.source_lang && p.target_lang === d.target_lang);
        const position = same ? Number(same.position) : places.reduce((n, p) => Math.max(n, Number(p.position) + 1), 0);
        await trx
          .deleteFrom('glossary_dictionaries')
          .where('glossary_id', '=', d.glossary_id)
          .where('source_lang', '=', d.source_lang)
          .where('target_lang', '=', d.target_lang)
          .execute();
        await trx.insertInto('glossary_dictionaries').values({ ...d, position }).execute();
      }
    });
    await this.announce(id);
  }

  async deleteDictionary(id: string, source: string, target: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('glossary_dictionaries')
      .where('glossary_id', '=', id)
      .where('source_lang', '=', source)
      .where('target_lang', '=', target)
      .executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) return false;
    await this.db.updateTable('glossaries').set({ v3_edited: 1 }).where('id', '=', id).execute();
    await this.announce(id);
    return true;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const deleted = await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('glossary_dictionaries').where('glossary_id', '=', id).execute();
      const r = await trx.deleteFrom('glossaries').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    });
    if (deleted) await this.announce(id);
    return deleted;
  }
}
