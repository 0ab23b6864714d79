// Accounts, their API keys, and the usage ledger with per-period counters.
import type { Kysely, Migration } from 'kysely';
import type { SqlDialect } from '../sql-dialect.js';

export function accountsKeysUsageMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('plan', 'text', (c) => c.notNull())
        .addColumn('features', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('character_limit', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('key_start', 'text', (c) => c.notNull())
        .addColumn('key_end', 'text', (c) => c.notNull())
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text')
        .addColumn('character_limit', 'bigint')
        .addColumn('speech_to_text_ms_limit', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('deactivated_at', 'bigint')
        .execute();
      await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();
      await db.schema
        .createTable('usage_events')
        .addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigserial', (c) =>
          dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey(),
        )
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('product', 'text', (c) => c.notNull())
        .addColumn('units', 'bigint', (c) => c.notNull())
        .addColumn('reporting_tag', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('usage_events_account_time').on('usage_events').columns(['account_id', 'created_at']).execute();
      await db.schema
        .createTable('usage_counters')
        .addColumn('subject_id', 'text', (c) => c.notNull())
        .addColumn('period_start', 'bigint', (c) => c.notNull())
        .addColumn('characters', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('speech_to_text_ms', 'bigint', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('usage_counters_pk', ['subject_id', 'period_start'])
        .execute();
    },
  };
}
