// Migration 0007 (issue 7): the document translation job queue.
import type { Kysely, Migration } from 'kysely';
import type { SqlDialect } from '../sql-dialect.js';

export function documentsMigration(_dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('documents')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('output_format', 'text', (c) => c.notNull())
        .addColumn('source_lang', 'text')
        .addColumn('target_lang', 'text', (c) => c.notNull())
        .addColumn('formality', 'text', (c) => c.notNull())
        .addColumn('reporting_tag', 'text')
        .addColumn('key_verifier', 'text', (c) => c.notNull())
        .addColumn('wrapped_key', 'text')
        .addColumn('upload_bytes', 'bigint', (c) => c.notNull())
        .addColumn('result_bytes', 'bigint')
        .addColumn('billed_characters', 'bigint')
        .addColumn('charged', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('error_message', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('segments_total', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('segments_done', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('started_at', 'bigint')
        .addColumn('finished_at', 'bigint')
        .execute();
      await db.schema.createIndex('documents_status_created').on('documents').columns(['status', 'created_at']).execute();
    },
  };
}
