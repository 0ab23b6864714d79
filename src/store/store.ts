// The data layer: one Kysely-based implementation over SQLite (embedded default) and PostgreSQL (multi-node).
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, Migrator, SqliteDialect, sql, type Migration, type Transaction } from 'kysely';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { migrationsFor, type SqlDialect } from './migrations.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { CurrentSchemaPostgresDialect } from './postgres-dialect.js';
import type { AccountsTable, ApiKeysTable, Database, UsageProduct } from './schema.js';

export type AccountRow = AccountsTable;
export type ApiKeyRow = ApiKeysTable;

export interface UsageCharge {
  accountId: string;
  keyId: string;
  product: UsageProduct;
  units: number;
  reportingTag: string | null;
  at: number;
  periodStart: number;
}

export interface UsageTotals {
  characters: number;
  speechToTextMs: number;
}

export interface ChargeLimits {
  accountCharacterLimit: number | null;
  keyCharacterLimit: number | null;
  keySpeechToTextMsLimit: number | null;
}

export type ChargeOutcome = { ok: true } | { ok: false; exceeded: 'account' | 'key' };

export interface StoreOptions {
  /** `postgres://…` selects PostgreSQL; anything else is a SQLite file path (":memory:" allowed). */
  url: string;
  /** PostgreSQL schema to use (created if missing); lets tests and tenants share one database. */
  pgSchema?: string;
  /**
   * SQLite file: checkpoint the WAL from a worker thread instead of on commits (for the long-lived server; short
   * CLI commands keep SQLite's own checkpoints).
   */
  backgroundCheckpoints?: boolean;
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

export class Store {
  private constructor(
    readonly db: Kysely<Database>,
    readonly dialect: SqlDialect,
    private readonly pgSchema: string | undefined,
    /** The SQLite handle behind `db` (undefined on PostgreSQL), for the prepared-statement fast path of charge(). */
    private readonly sqlite?: SqliteDatabase.Database,
    private readonly checkpointer?: WalCheckpointer,
  ) {}

  static async open(options: StoreOptions): Promise<Store> {
    const isPg = /^postgres(ql)?:\/\//.test(options.url);
    let db: Kysely<Database>;
    let sqlite: SqliteDatabase.Database | undefined;
    let checkpointer: WalCheckpointer | undefined;
    let pgPool: pg.Pool | undefined;
    if (isPg) {
      const schema = options.pgSchema;
      if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Invalid PostgreSQL schema name: ${schema}`);
      const pool = new pg.Pool({
        connectionString: options.url,
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
      db = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
      pgPool = pool;
    } else {
      if (options.url !== ':memory:') restrictSqliteFiles(options.url);
      sqlite = new SqliteDatabase(options.url);
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('synchronous = NORMAL');
      sqlite.pragma('foreign_keys = ON');
      sqlite.pragma('busy_timeout = 5000');
      if (options.backgroundCheckpoints && options.url !== ':memory:') {
        const conn = sqlite;
        checkpointer = new WalCheckpointer(options.url, () => conn.open && conn.pragma('wal_autocheckpoint = 1000'));
        sqlite.pragma('wal_autocheckpoint = 0');
        // the WAL file is reused after each checkpoint; this trims what a burst grew it to
        sqlite.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
      }
      db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    }
    const store = new Store(db, isPg ? 'postgres' : 'sqlite', options.pgSchema, sqlite, checkpointer);
    store.pgPool = pgPool;
    await store.migrate();
    return store;
  }

  private migrator(): Migrator {
    const all = migrationsFor(this.dialect);
    return new Migrator({
      db: this.db,
      provider: { getMigrations: async (): Promise<Record<string, Migration>> => all },
      // Keep the migration bookkeeping in the store's own schema, so schemas sharing a database stay independent.
      ...(this.pgSchema ? { migrationTableSchema: this.pgSchema } : {}),
    });
  }

  private pgPool: pg.Pool | undefined;

  /** Connections of the database pool (SQLite: the one connection, never waited for). */
  poolStats(): { total: number; idle: number; waiting: number } {
    if (!this.pgPool) return { total: 1, idle: 1, waiting: 0 };
    return { total: this.pgPool.totalCount, idle: this.pgPool.idleCount, waiting: this.pgPool.waitingCount };
  }

  /** For metrics: document and translation-memory jobs by status, with the creation time of the oldest of each. */
  async jobStats(): Promise<{ kind: 'document' | 'translation_memory'; status: string; count: number; oldest: number }[]> {
    const grouped = (table: 'documents' | 'tm_jobs') =>
      this.db
        .selectFrom(table)
        .select((eb) => ['status', eb.fn.countAll<number>().as('count'), eb.fn.min<number>('created_at').as('oldest')])
        .groupBy('status')
        .execute();
    const [documents, memories] = await Promise.all([grouped('documents'), grouped('tm_jobs')]);
    return [
      ...documents.map((r) => ({ kind: 'document' as const, status: r.status, count: Number(r.count), oldest: Number(r.oldest) })),
      ...memories.map((r) => ({ kind: 'translation_memory' as const, status: r.status, count: Number(r.count), oldest: Number(r.oldest) })),
    ];
  }

  /** For readiness: the database answers, and which known migrations it has not applied (none once started). */
  async health(): Promise<{ reachable: boolean; pendingMigrations: string[]; error?: string }> {
    try {
      await sql`SELECT 1`.execute(this.db);
      const migrations = await this.migrator().getMigrations();
      return { reachable: true, pendingMigrations: migrations.filter((m) => m.executedAt === undefined).map((m) => m.name) };
    } catch (err) {
      return { reachable: false, pendingMigrations: [], error: (err as Error).message };
    }
  }

  private async migrate(): Promise<void> {
    const { error, results } = await this.migrator().migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error');
      throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`);
    }
  }

  async close(options: { dropSchema?: boolean } = {}): Promise<void> {
    if (options.dropSchema && this.dialect === 'postgres' && this.pgSchema) {
      await sql`DROP SCHEMA IF EXISTS ${sql.id(this.pgSchema)} CASCADE`.execute(this.db);
    }
    // charges still batched for the next turn are written before the connection goes (graceful shutdown)
    await this.sqliteCharges?.drain();
    await this.checkpointer?.stop();
    // closing the last connection checkpoints what is left and removes the WAL
    await this.db.destroy();
  }

  /** A key the server holds (see migration 0011). */
  async serverSecret(name: string): Promise<Buffer> {
    const row = await this.db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirst();
    if (!row) throw new Error(`server secret ${name} is missing`);
    return Buffer.from(row.value, 'hex');
  }

  // ---- accounts

  async insertAccount(row: AccountRow): Promise<void> {
    await this.db.insertInto('accounts').values(row).execute();
  }

  async getAccount(id: string): Promise<AccountRow | undefined> {
    return this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async updateAccount(id: string, changes: Partial<Omit<AccountRow, 'id'>>): Promise<void> {
    await this.db.updateTable('accounts').set(changes).where('id', '=', id).execute();
  }

  // ---- keys

  async insertKey(row: ApiKeyRow): Promise<void> {
    await this.db.insertInto('api_keys').values(row).execute();
  }

  async findKeyByHash(hash: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
  }

  async getKey(id: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async listKeys(accountId: string, kind?: ApiKeyRow['kind']): Promise<ApiKeyRow[]> {
    let q = this.db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId);
    if (kind) q = q.where('kind', '=', kind);
    return q.orderBy('created_at').orderBy('id').execute();
  }

  async updateKey(id: string, changes: Partial<Omit<ApiKeyRow, 'id' | 'account_id' | 'key_hash'>>): Promise<void> {
    await this.db.updateTable('api_keys').set(changes).where('id', '=', id).execute();
  }

  // ---- usage

  async usageTotals(subjectId: string, periodStart: number): Promise<UsageTotals> {
    const row = await this.db
      .selectFrom('usage_counters')
      .select(['characters', 'speech_to_text_ms'])
      .where('subject_id', '=', subjectId)
      .where('period_start', '=', periodStart)
      .executeTakeFirst();
    return { characters: row?.characters ?? 0, speechToTextMs: row?.speech_to_text_ms ?? 0 };
  }

  /** Per-product sums of the ledger for one subject (account, or key when keyId given) since a time. */
  async usageByProduct(accountId: string, since: number, keyId?: string): Promise<Map<UsageProduct, number>> {
    let q = this.db
      .selectFrom('usage_events')
      .select(['product', (eb) => eb.fn.sum<number>('units').as('units')])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since);
    if (keyId) q = q.where('key_id', '=', keyId);
    const rows = await q.groupBy('product').execute();
    return new Map(rows.map((r) => [r.product, Number(r.units)]));
  }

  /**
   * The billing decision and the ledger write in one transaction: checks the account's and the key's limits against
   * the period's running totals (locked on PostgreSQL so concurrent nodes cannot both pass), then records the event
   * and bumps both counters. Nothing is written when a limit would be exceeded.
   */
  async charge(charge: UsageCharge, limits: ChargeLimits): Promise<ChargeOutcome> {
    if (this.sqlite) {
      this.sqliteCharges ??= new SqliteChargeBatcher(this.db, prepareSqliteCharge(this.sqlite));
      return this.sqliteCharges.add(charge, limits);
    }
    return this.db.transaction().execute(async (trx) => {
      // Serialise charges per account across nodes.
      await trx.selectFrom('accounts').select('id').where('id', '=', charge.accountId).forUpdate().execute();
      const [account, key] = await Promise.all([
        this.periodTotals(trx, charge.accountId, charge.periodStart),
        this.periodTotals(trx, charge.keyId, charge.periodStart),
      ]);
      const refused = chargeRefused(charge, limits, account, key);
      if (refused) return refused;
      await trx
        .insertInto('usage_events')
        .values({
          account_id: charge.accountId,
          key_id: charge.keyId,
          product: charge.product,
          units: charge.units,
          reporting_tag: charge.reportingTag,
          created_at: charge.at,
        })
        .execute();
      const { chars, ms } = chargeUnits(charge);
      for (const subject of [charge.accountId, charge.keyId]) {
        await trx
          .insertInto('usage_counters')
          .values({ subject_id: subject, period_start: charge.periodStart, characters: chars, speech_to_text_ms: ms })
          .onConflict((oc) =>
            oc.columns(['subject_id', 'period_start']).doUpdateSet({
              characters: sql`usage_counters.characters + ${chars}`,
              speech_to_text_ms: sql`usage_counters.speech_to_text_ms + ${ms}`,
            }),
          )
          .execute();
      }
      return { ok: true } as const;
    });
  }

  private sqliteCharges: SqliteChargeBatcher | undefined;

  private async periodTotals(trx: Transaction<Database>, subjectId: string, periodStart: number): Promise<UsageTotals> {
    const q = trx
      .selectFrom('usage_counters')
      .select(['characters', 'speech_to_text_ms'])
      .where('subject_id', '=', subjectId)
      .where('period_start', '=', periodStart);
    const row = await q.executeTakeFirst();
    return { characters: row?.characters ?? 0, speechToTextMs: row?.speech_to_text_ms ?? 0 };
  }
}

function chargeUnits(charge: UsageCharge): { chars: number; ms: number } {
  const isSpeech = charge.product === 'speech_to_text';
  return { chars: isSpeech ? 0 : charge.units, ms: isSpeech ? charge.units : 0 };
}

/** The billing decision: the refusal when the charge does not fit the period's totals, else null. */
function chargeRefused(charge: UsageCharge, limits: ChargeLimits, account: UsageTotals, key: UsageTotals): ChargeOutcome | null {
  if (charge.product !== 'speech_to_text') {
    if (limits.accountCharacterLimit !== null && account.characters + charge.units > limits.accountCharacterLimit) return { ok: false, exceeded: 'account' };
    if (limits.keyCharacterLimit !== null && key.characters + charge.units > limits.keyCharacterLimit) return { ok: false, exceeded: 'key' };
  } else if (limits.keySpeechToTextMsLimit !== null && key.speechToTextMs + charge.units > limits.keySpeechToTextMsLimit) {
    return { ok: false, exceeded: 'key' };
  }
  return null;
}

type PendingCharge = { charge: UsageCharge; limits: ChargeLimits; resolve: (o: ChargeOutcome) => void; reject: (e: unknown) => void };

/**
 * Group commit for SQLite: the charges of one event-loop turn run in one transaction, each decided after the one
 * before it (so quotas hold exactly as with one transaction each), with one commit and one WAL write for all.
 */
class SqliteChargeBatcher {
  private queue: PendingCharge[] = [];

  constructor(
    private readonly db: Kysely<Database>,
    private readonly run: (items: readonly { charge: UsageCharge; limits: ChargeLimits }[]) => ChargeOutcome[],
  ) {}

  private flushing: Promise<void> = Promise.resolve();

  add(charge: UsageCharge, limits: ChargeLimits): Promise<ChargeOutcome> {
    return new Promise((resolve, reject) => {
      if (this.queue.push({ charge, limits, resolve, reject }) === 1) {
        this.flushing = new Promise<void>((done) => setImmediate(() => void this.flush().finally(done)));
      }
    });
  }

  /** Resolves once every charge added so far is written (or refused). */
  async drain(): Promise<void> {
    while (this.queue.length > 0) await new Promise((r) => setImmediate(r));
    await this.flushing;
  }

  private async flush(): Promise<void> {
    const items = this.queue;
    this.queue = [];
    // Holding Kysely's (only) SQLite connection keeps any Kysely transaction off it while this one runs.
    const runAlone = (batch: PendingCharge[]) => this.db.connection().execute(async () => this.run(batch));
    try {
      const outcomes = await runAlone(items);
      items.forEach((item, i) => item.resolve(outcomes[i]!));
    } catch {
      // One failing charge must not fail the others of its batch: each again on its own.
      for (const item of items) await runAlone([item]).then(([o]) => item.resolve(o!), item.reject);
    }
  }
}

/**
 * charge() on SQLite as one synchronous better-sqlite3 transaction (BEGIN IMMEDIATE … COMMIT) over statements prepared
 * once: same reads, decision and writes as the Kysely path, without re-preparing and re-compiling six queries per call.
 */
function prepareSqliteCharge(db: SqliteDatabase.Database): (items: readonly { charge: UsageCharge; limits: ChargeLimits }[]) => ChargeOutcome[] {
  const totals = db.prepare<[string, number], { characters: number; speech_to_text_ms: number }>(
    'select characters, speech_to_text_ms from usage_counters where subject_id = ? and period_start = ?',
  );
  const insertEvent = db.prepare(
    'insert into usage_events (account_id, key_id, product, units, reporting_tag, created_at) values (?, ?, ?, ?, ?, ?)',
  );
  const bumpCounter = db.prepare(
    'insert into usage_counters (subject_id, period_start, characters, speech_to_text_ms) values (?, ?, ?, ?) ' +
      'on conflict (subject_id, period_start) do update set characters = usage_counters.characters + excluded.characters, ' +
      'speech_to_text_ms = usage_counters.speech_to_text_ms + excluded.speech_to_text_ms',
  );
  const periodTotals = (subjectId: string, periodStart: number): UsageTotals => {
    const row = totals.get(subjectId, periodStart);
    return { characters: row?.characters ?? 0, speechToTextMs: row?.speech_to_text_ms ?? 0 };
  };
  const chargeOne = (charge: UsageCharge, limits: ChargeLimits): ChargeOutcome => {
    const refused = chargeRefused(charge, limits, periodTotals(charge.accountId, charge.periodStart), periodTotals(charge.keyId, charge.periodStart));
    if (refused) return refused;
    insertEvent.run(charge.accountId, charge.keyId, charge.product, charge.units, charge.reportingTag, charge.at);
    const { chars, ms } = chargeUnits(charge);
    for (const subject of [charge.accountId, charge.keyId]) bumpCounter.run(subject, charge.periodStart, chars, ms);
    return { ok: true };
  };
  const tx = db.transaction((items: readonly { charge: UsageCharge; limits: ChargeLimits }[]) => items.map((i) => chargeOne(i.charge, i.limits)));
  return (items) => tx.immediate(items);
}
