// Migration 0019: translation-memory jobs get a lease like document jobs, so any node of a cluster runs them and a
// job whose node died is taken over instead of failed by the next node that starts (issue 25).
import type { Kysely, Migration } from 'kysely';

export function tmJobLeasesMigration(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('tm_jobs').addColumn('lease_owner', 'text').execute();
      await db.schema.alterTable('tm_jobs').addColumn('lease_expires_at', 'bigint').execute();
      await db.schema.alterTable('tm_jobs').addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    },
  };
}
