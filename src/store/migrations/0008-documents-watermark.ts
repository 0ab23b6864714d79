// Migration 0008: documents remember enable_watermark, so the worker (possibly on another node) can apply it.
import type { Kysely, Migration } from 'kysely';

export function documentsWatermarkMigration(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('documents').addColumn('watermark', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    },
  };
}
