// Migration 0010: documents remember their glossaries, style rule list and translation memory, so the worker
// (possibly on another node, possibly after a restart) applies them like /v2/translate does.
import type { Kysely, Migration } from 'kysely';

export function documentsCustomizationMigration(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('documents').addColumn('glossary_ids', 'text', (c) => c.notNull().defaultTo('[]')).execute();
      await db.schema.alterTable('documents').addColumn('style_id', 'text').execute();
      await db.schema.alterTable('documents').addColumn('translation_memory_id', 'text').execute();
      await db.schema.alterTable('documents').addColumn('translation_memory_threshold', 'integer').execute();
    },
  };
}
