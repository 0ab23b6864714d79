// Migration 0015: request-rate windows counted in the database, so every node of a cluster counts against one limit
// (used on PostgreSQL without Redis; SQLite is one node and counts in memory, but gets the table too).
import { sql, type Kysely, type Migration } from 'kysely';
import type { SqlDialect } from '../sql-dialect.js';

export function rateLimitMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      let table = db.schema.createTable('rate_limit_windows');
      // Unlogged on PostgreSQL: no WAL write and flush per request (a crash only forgets the current minute's counts).
      if (dialect === 'postgres') table = table.modifyFront(sql`unlogged`);
      await table
        .addColumn('bucket', 'text', (c) => c.primaryKey())
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .addColumn('hits', 'integer', (c) => c.notNull())
        .execute();
      // expired windows are deleted by window_start
      await db.schema.createIndex('rate_limit_windows_start').on('rate_limit_windows').column('window_start').execute();
    },
  };
}
