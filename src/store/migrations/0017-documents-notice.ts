// Migration 0017 (issue 22): a done document can carry a notice (text kept untranslated, e.g. PDF fonts that cannot
// be read back), shown to the client with its status.
import type { Kysely, Migration } from 'kysely';

export function documentsNoticeMigration(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('documents').addColumn('notice', 'text').execute();
    },
  };
}
