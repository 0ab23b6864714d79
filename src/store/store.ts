// The opened data layer: a connection (connection.ts) migrated to the latest schema (migrator.ts), with every
// repository built once over it (repositories/). One Kysely-based implementation over SQLite and PostgreSQL.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { StoreConnection, type StoreOptions } from './connection.js';
import { migrateToLatest, pendingMigrations } from './migrator.js';
import { createRepositories, type Repositories } from './repositories/index.js';
import type { ChangeFeed } from './change-feed.js';
import type { Database } from './schema.js';
import type { SqlDialect } from './sql-dialect.js';

export type { StoreOptions } from './connection.js';
export type { AccountRow, ApiKeyRow } from './repositories/accounts-repository.js';
export type { ChargeLimits, ChargeOutcome, UsageCharge, UsageTotals } from './charges.js';
export type { Repositories } from './repositories/index.js';

export class Store {
  private constructor(
    readonly connection: StoreConnection,
    readonly repositories: Repositories,
  ) {}

  static async open(options: StoreOptions): Promise<Store> {
    const connection = await StoreConnection.open(options);
    // a failed migration (or a newer schema) leaves no pool or listener open behind the error
    await migrateToLatest(connection).catch(async (err: unknown) => {
      await connection.close();
      throw err;
    });
    return new Store(connection, createRepositories(connection));
  }

  get db(): Kysely<Database> {
    return this.connection.db;
  }

  get dialect(): SqlDialect {
    return this.connection.dialect;
  }

  /** Tells every node which cached rows changed (see change-feed.ts). */
  get changes(): ChangeFeed {
    return this.connection.changes;
  }

  /** For readiness: the database answers, and which known migrations it has not applied (none once started). */
  async health(): Promise<{ reachable: boolean; pendingMigrations: string[]; error?: string }> {
    try {
      await sql`SELECT 1`.execute(this.db);
      return { reachable: true, pendingMigrations: await pendingMigrations(this.connection) };
    } catch (err) {
      return { reachable: false, pendingMigrations: [], error: (err as Error).message };
    }
  }

  async close(options: { dropSchema?: boolean } = {}): Promise<void> {
    // charges still batched for the next turn are written before the connection goes (graceful shutdown)
    await this.repositories.usage.drain();
    await this.connection.close(options);
  }
}
