// Migration 0012: glossary dictionaries keep the order they were given in (the clients list them as they sent them).
import type { Kysely, Migration } from 'kysely';

export function glossaryOrderMigration(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('glossary_dictionaries').addColumn('position', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    },
  };
}
