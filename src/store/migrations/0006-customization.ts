// Migration of the customization resources (issue 6): glossaries, style rules, translation memories and their jobs.
import type { Kysely, Migration } from 'kysely';
import type { SqlDialect } from '../sql-dialect.js';

export function customizationMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('glossaries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('v3_edited', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('glossaries_account').on('glossaries').columns(['account_id', 'created_at']).execute();
      await db.schema
        .createTable('glossary_dictionaries')
        .addColumn('glossary_id', 'text', (c) => c.notNull().references('glossaries.id').onDelete('cascade'))
        .addColumn('source_lang', 'text', (c) => c.notNull())
        .addColumn('target_lang', 'text', (c) => c.notNull())
        .addColumn('entries', 'text', (c) => c.notNull())
        .addColumn('entry_count', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('glossary_dictionaries_pk', ['glossary_id', 'source_lang', 'target_lang'])
        .execute();
      await db.schema
        .createTable('style_rules')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('language', 'text', (c) => c.notNull())
        .addColumn('configured_rules', 'text', (c) => c.notNull())
        .addColumn('custom_instructions', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('style_rules_account').on('style_rules').columns(['account_id', 'created_at']).execute();
      await db.schema
        .createTable('translation_memories')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('source_lang', 'text', (c) => c.notNull())
        .addColumn('target_langs', 'text', (c) => c.notNull())
        .addColumn('segment_count', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('translation_memories_account').on('translation_memories').columns(['account_id', 'created_at']).execute();
      await db.schema
        .createTable('tm_segments')
        .addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigserial', (c) =>
          dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey(),
        )
        .addColumn('memory_id', 'text', (c) => c.notNull().references('translation_memories.id').onDelete('cascade'))
        .addColumn('target_lang', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('target', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('tm_segments_memory').on('tm_segments').columns(['memory_id', 'target_lang']).execute();
      await db.schema
        .createTable('tm_jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('operation', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('memory_id', 'text')
        .addColumn('display_name', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text')
        .addColumn('content_length', 'bigint')
        .addColumn('file_path', 'text')
        .addColumn('error_message', 'text')
        .addColumn('skipped_segment_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint')
        .execute();
      await db.schema.createIndex('tm_jobs_status').on('tm_jobs').columns(['status']).execute();
    },
  };
}
