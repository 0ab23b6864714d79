// The database connection: opens SQLite (embedded default) or a PostgreSQL pool behind one Kysely handle, carries
// the change feed, and closes them. Migrations (migrator.ts) and queries (repositories/) live apart.
import { randomInt } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, SqliteDialect, sql } from 'kysely';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import type { SqlDialect } from './sql-dialect.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { withPreparedStatements } from './sqlite-statements.js';
import { CurrentSchemaPostgresDialect } from './postgres-dialect.js';
import { LocalChangeFeed, PostgresChangeFeed, type Change, type ChangeFeed } from './change-feed.js';
import type { Database } from './schema.js';

export interface StoreOptions {
  /** `postgres://…` selects PostgreSQL; anything else is a SQLite file path (":memory:" allowed). */
  url: string;
  /** PostgreSQL schema to use (created if missing); lets tests and tenants share one database. */
  pgSchema?: string;
  /**
   * SQLite file: checkpoint the WAL from a worker thread instead of on commits (for the long-lived server; short
   * CLI commands keep SQLite's own checkpoints); an interval other than WAL_CHECKPOINT_INTERVAL_MS is for tests.
   */
  // 'other-process': another process of this node checkpoints the file (its commits never do)
  backgroundCheckpoints?: boolean | { intervalMs: number } | 'other-process';
}

/**
 * The database holds the URL-signing secret and key hashes: its file is created 0600 (SQLite gives its -wal and -shm
 * files the database file's mode) and files of an older install are narrowed to 0600 too.
 */
function restrictSqliteFiles(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/** The server's SQLite connection looks for changes announced by other processes this often, requests or not. */
const CHANGE_POLL_MS = 500;

export class StoreConnection {
  private constructor(
    readonly db: Kysely<Database>,
    readonly dialect: SqlDialect,
    readonly pgSchema: string | undefined,
    /** Tells every node which cached rows changed (see change-feed.ts). */
    readonly changes: ChangeFeed,
    /** The SQLite handle behind `db` (undefined on PostgreSQL), for the prepared-statement fast path of charges. */
    readonly sqlite?: SqliteDatabase.Database,
    private readonly pgPool?: pg.Pool,
    private readonly checkpointer?: WalCheckpointer,
  ) {}

  static async open(options: StoreOptions): Promise<StoreConnection> {
    if (/^postgres(ql)?:\/\//.test(options.url)) return StoreConnection.openPostgres(options.url, options.pgSchema);
    return StoreConnection.openSqlite(options);
  }

  private static async openPostgres(url: string, schema: string | undefined): Promise<StoreConnection> {
    if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Invalid PostgreSQL schema name: ${schema}`);
    const pool = new pg.Pool({
      connectionString: url,
      max: 10,
      // int8 and numeric columns come back as numbers: every counter here stays far below 2^53.
      types: {
        getTypeParser: ((oid: number, format?: any) =>
          oid === 20 || oid === 1700 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as any,
      },
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    if (schema) {
      const client = await pool.connect();
      try {
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      } finally {
        client.release();
      }
    }
    const db = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
    const listening = { connectionString: url, ...(schema ? { options: `-c search_path=${schema}` } : {}) };
    const changes = await PostgresChangeFeed.start(db, listening, schema).catch(async (err: unknown) => {
      await db.destroy();
      throw err;
    });
    return new StoreConnection(db, 'postgres', schema, changes, undefined, pool);
  }

  private static openSqlite(options: StoreOptions): StoreConnection {
    if (options.url !== ':memory:') restrictSqliteFiles(options.url);
    const sqlite = new SqliteDatabase(options.url);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    let checkpointer: WalCheckpointer | undefined;
    if (options.backgroundCheckpoints && options.url !== ':memory:') {
      const interval = typeof options.backgroundCheckpoints === 'object' ? options.backgroundCheckpoints.intervalMs : undefined;
      if (options.backgroundCheckpoints !== 'other-process') {
        checkpointer = new WalCheckpointer(options.url, () => sqlite.open && sqlite.pragma('wal_autocheckpoint = 1000'), interval);
      }
      sqlite.pragma('wal_autocheckpoint = 0');
      // the WAL file is reused after each checkpoint; this trims what a burst grew it to
      sqlite.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
    }
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withPreparedStatements(sqlite) }) });
    // data_version: a memory read of the WAL index (under a microsecond), moved only by other connections' commits.
    // Those are mostly charges and rate-limit counts (several HTTP processes write on every request), which change no
    // cached row: a change that does is announced in the header's user_version, read only when data_version moved.
    const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
    const userVersion = sqlite.prepare('PRAGMA user_version').pluck();
    let seenData: unknown;
    let announced: number | undefined;
    const version = () => {
      if (!sqlite.open) return undefined;
      const now = dataVersion.get();
      if (now !== seenData) {
        seenData = now;
        announced = userVersion.get() as number;
      }
      return announced;
    };
    // a fresh random stamp (two processes never write the same one back), in place of the one returned
    const restamp = sqlite.transaction((): number => {
      const replaced = userVersion.get() as number;
      announced = 1 + randomInt(0x7ffffffe);
      sqlite.pragma(`user_version = ${announced}`);
      return replaced;
    });
    const changes = new LocalChangeFeed(version, () => (sqlite.open ? restamp.immediate() : undefined), options.backgroundCheckpoints ? CHANGE_POLL_MS : undefined);
    return new StoreConnection(db, 'sqlite', options.pgSchema, changes, sqlite, undefined, checkpointer);
  }

  /**
   * A write to rows other nodes may cache, announced on the change feed: on PostgreSQL in the write's transaction
   * (heard once committed), on SQLite after it.
   */
  async writeAndAnnounce(change: Change, write: (db: Kysely<Database>) => Promise<unknown>): Promise<void> {
    if (this.dialect === 'sqlite') {
      await write(this.db);
      await this.changes.publish(change);
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      await write(trx);
      await this.changes.publish(change, trx);
    });
  }

  /** Connections of the database pool (SQLite: the one connection, never waited for). */
  poolStats(): { total: number; idle: number; waiting: number } {
    if (!this.pgPool) return { total: 1, idle: 1, waiting: 0 };
    return { total: this.pgPool.totalCount, idle: this.pgPool.idleCount, waiting: this.pgPool.waitingCount };
  }

  async close(options: { dropSchema?: boolean } = {}): Promise<void> {
    if (options.dropSchema && this.dialect === 'postgres' && this.pgSchema) {
      await sql`DROP SCHEMA IF EXISTS ${sql.id(this.pgSchema)} CASCADE`.execute(this.db);
    }
    await this.checkpointer?.stop();
    await this.changes.close();
    // closing the last connection checkpoints what is left and removes the WAL
    await this.db.destroy();
  }
}
