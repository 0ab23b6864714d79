// Runs the versioned migrations (migrations/index.ts) with Kysely's Migrator, and reports which are pending.
import { Migrator, type Migration } from 'kysely';
import { migrationsFor } from './migrations/index.js';
import type { StoreConnection } from './connection.js';

function migrator(connection: StoreConnection): Migrator {
  const all = migrationsFor(connection.dialect);
  return new Migrator({
    db: connection.db,
    provider: { getMigrations: async (): Promise<Record<string, Migration>> => all },
    // Keep the migration bookkeeping in the store's own schema, so schemas sharing a database stay independent.
    ...(connection.pgSchema ? { migrationTableSchema: connection.pgSchema } : {}),
  });
}

export async function migrateToLatest(connection: StoreConnection): Promise<void> {
  const { error, results } = await migrator(connection).migrateToLatest();
  if (error) {
    // Kysely refuses a database that applied a migration it does not know: a newer release upgraded it
    const newer = /previously executed migration (\S+) is missing/.exec((error as Error).message ?? '');
    if (newer) {
      throw new Error(`The database was upgraded by a newer Tolk release (its migration ${newer[1]} is unknown to this one): run that release or a later one here too (docs/operations.md, Upgrades)`);
    }
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`);
  }
}

/** The known migrations the database has not applied. */
export async function pendingMigrations(connection: StoreConnection): Promise<string[]> {
  const migrations = await migrator(connection).getMigrations();
  return migrations.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
