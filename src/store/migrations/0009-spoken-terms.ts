// Migration of spoken terms collections (voice): a named collection per account and one term list per language.
import type { Kysely, Migration } from 'kysely';

export function spokenTermsMigration(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('spoken_terms')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('spoken_terms_account').on('spoken_terms').columns(['account_id', 'created_at']).execute();
      await db.schema
        .createTable('spoken_term_lists')
        .addColumn('spoken_terms_id', 'text', (c) => c.notNull().references('spoken_terms.id').onDelete('cascade'))
        .addColumn('lang', 'text', (c) => c.notNull())
        .addColumn('entries', 'text', (c) => c.notNull())
        .addColumn('entry_count', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('spoken_term_lists_pk', ['spoken_terms_id', 'lang'])
        .execute();
    },
  };
}
