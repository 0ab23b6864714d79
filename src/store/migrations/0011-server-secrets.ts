// Migration 0011: keys the server itself holds, shared by every node of a PostgreSQL deployment (the URL signing key).
import { randomBytes } from 'node:crypto';
import type { Kysely, Migration } from 'kysely';

export function serverSecretsMigration(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('server_secrets')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
      await db.insertInto('server_secrets').values({ name: 'url_signing', value: randomBytes(32).toString('hex') }).execute();
    },
  };
}
