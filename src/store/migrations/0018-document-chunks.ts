// Migration 0018: document uploads and results in the database (≈256 KiB rows), so nodes share no disk (issue 25),
// and the key that wraps document keys of pending jobs, held by the database for every node.
import { randomBytes } from 'node:crypto';
import type { Kysely, Migration } from 'kysely';
import type { SqlDialect } from '../sql-dialect.js';

export function documentChunksMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('document_chunks')
        .addColumn('file_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('data', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('document_chunks_pk', ['file_id', 'kind', 'seq'])
        .execute();
      await db.insertInto('server_secrets').values({ name: 'document_key_encryption', value: randomBytes(32).toString('hex') }).execute();
    },
  };
}
