// Queries of the document job queue (issue 7). Claims are atomic on both dialects: SQLite serialises writers, and on
// PostgreSQL the candidate row is locked with FOR UPDATE SKIP LOCKED so several nodes never claim the same job.
import type { Kysely, Selectable, Updateable } from 'kysely';
import type SqliteDatabase from 'better-sqlite3';
import type { Database, DocumentsTable } from '../schema.js';
import type { SqlDialect } from '../sql-dialect.js';
import type { StoreConnection } from '../connection.js';
import { chargePostgresIn, prepareSqliteChargeStatements, type ChargeLimits, type ChargeOutcome, type UsageCharge } from '../charges.js';

export type DocumentRow = Selectable<DocumentsTable>;
export type DocumentStatusValue = 'queued' | 'translating' | 'done' | 'error' | 'downloading';

type SqliteChargeOnce = (id: string, charge: UsageCharge, limits: ChargeLimits) => ChargeOutcome;

/** chargeOnce on SQLite: one synchronous BEGIN IMMEDIATE transaction (writers are serialised while it reads the mark). */
function prepareSqliteChargeOnce(db: SqliteDatabase.Database): SqliteChargeOnce {
  const chargeOne = prepareSqliteChargeStatements(db);
  const charged = db.prepare<[string], { charged: number }>('select charged from documents where id = ?');
  const mark = db.prepare('update documents set charged = 1 where id = ?');
  const tx = db.transaction((id: string, charge: UsageCharge, limits: ChargeLimits): ChargeOutcome => {
    const row = charged.get(id);
    if (!row || row.charged) return { ok: true };
    const outcome = chargeOne(charge, limits);
    if (outcome.ok) mark.run(id);
    return outcome;
  });
  return (id, charge, limits) => tx.immediate(id, charge, limits);
}

export class DocumentRepository {
  private readonly db: Kysely<Database>;
  private readonly dialect: SqlDialect;
  private sqliteChargeOnce: SqliteChargeOnce | undefined;

  constructor(private readonly connection: StoreConnection) {
    this.db = connection.db;
    this.dialect = connection.dialect;
  }

  async insert(row: DocumentRow): Promise<void> {
    await this.db.insertInto('documents').values(row).execute();
  }

  async get(id: string): Promise<DocumentRow | undefined> {
    return this.db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Claims the oldest queued job, or a translating job whose lease expired (its worker died): the claim bumps
   * `attempts`, so a job that keeps killing its worker is recognised and ended.
   */
  async claimNext(owner: string, now: number, leaseMs: number): Promise<DocumentRow | undefined> {
    let candidate = this.db
      .selectFrom('documents')
      .select('id')
      .where((eb) =>
        eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'translating'), eb('lease_expires_at', '<', now)])]),
      )
      .orderBy('created_at')
      .limit(1);
    if (this.dialect === 'postgres') candidate = candidate.forUpdate().skipLocked();
    return this.db
      .updateTable('documents')
      .set((eb) => ({
        status: 'translating',
        lease_owner: owner,
        lease_expires_at: now + leaseMs,
        attempts: eb('attempts', '+', 1),
        started_at: now,
        segments_done: 0,
      }))
      .where('id', '=', candidate)
      // re-check inside the update: on SQLite the subquery and the write are one statement, so this is atomic
      .where((eb) =>
        eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'translating'), eb('lease_expires_at', '<', now)])]),
      )
      .returningAll()
      .executeTakeFirst();
  }

  /** Extends the lease of a job this worker holds and records progress; false when the job is gone or taken over. */
  async heartbeat(id: string, owner: string, leaseExpiresAt: number, progress?: { done: number; total: number }): Promise<boolean> {
    const r = await this.db
      .updateTable('documents')
      .set({
        lease_expires_at: leaseExpiresAt,
        ...(progress ? { segments_done: progress.done, segments_total: progress.total } : {}),
      })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'translating')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Ends a job this worker holds (done or error); false when it lost the lease meanwhile. */
  async finish(id: string, owner: string, changes: Updateable<DocumentsTable>): Promise<boolean> {
    const r = await this.db
      .updateTable('documents')
      .set({ ...changes, lease_owner: null, lease_expires_at: null, wrapped_key: null })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'translating')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Gives back a job this worker holds without ending it (graceful shutdown): queued again with its lease cleared, so
   * any worker claims it at once, and the claim it took is not counted as a crash.
   */
  async handBack(id: string, owner: string): Promise<boolean> {
    const r = await this.db
      .updateTable('documents')
      .set((eb) => ({ status: 'queued', lease_owner: null, lease_expires_at: null, attempts: eb('attempts', '-', 1), segments_done: 0 }))
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'translating')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Takes a done document for download; only one request can hold it (download once). A download whose node died
   * (its lease expired) is taken over, so another node of a cluster serves it without waiting for a restart.
   */
  async claimDownload(id: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const r = await this.db
      .updateTable('documents')
      .set({ status: 'downloading', lease_owner: owner, lease_expires_at: now + leaseMs })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('status', '=', 'done'), eb.and([eb('status', '=', 'downloading'), eb('lease_expires_at', '<', now)])]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Extends the lease of a download this request holds (while its response is out); false when it is not held. */
  async renewDownload(id: string, owner: string, leaseExpiresAt: number): Promise<boolean> {
    const r = await this.db
      .updateTable('documents')
      .set({ lease_expires_at: leaseExpiresAt })
      .where('id', '=', id)
      .where('status', '=', 'downloading')
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Charges a delivered document at most once: the ledger's charge (see charges.ts) and the row's `charged` mark are
   * one transaction, the mark read first under a lock (the row's on PostgreSQL, the write lock on SQLite). So a node
   * dying in between loses neither, and a re-download after it charges nothing more. A document already charged, or
   * gone (completed meanwhile by the request that took its download over), is `{ ok: true }` with nothing written.
   */
  async chargeOnce(id: string, charge: UsageCharge, limits: ChargeLimits): Promise<ChargeOutcome> {
    const sqlite = this.connection.sqlite;
    if (sqlite) {
      const chargeOnce = (this.sqliteChargeOnce ??= prepareSqliteChargeOnce(sqlite));
      // Holding Kysely's (only) SQLite connection keeps any Kysely transaction off it while this one runs.
      return this.db.connection().execute(async () => chargeOnce(id, charge, limits));
    }
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('documents').select('charged').where('id', '=', id).forUpdate().executeTakeFirst();
      if (!row || row.charged) return { ok: true } as const;
      const outcome = await chargePostgresIn(trx, charge);
      if (outcome.ok) await trx.updateTable('documents').set({ charged: 1 }).where('id', '=', id).execute();
      return outcome;
    });
  }

  /** A download that did not complete: the document can be fetched again. */
  async releaseDownload(id: string, owner: string): Promise<void> {
    await this.db
      .updateTable('documents')
      .set({ status: 'done', lease_owner: null, lease_expires_at: null })
      .where('id', '=', id)
      .where('status', '=', 'downloading')
      .where('lease_owner', '=', owner)
      .execute();
  }

  /** Downloads whose server died mid-way go back to done. */
  async releaseStaleDownloads(now: number): Promise<void> {
    await this.db
      .updateTable('documents')
      .set({ status: 'done', lease_owner: null, lease_expires_at: null })
      .where('status', '=', 'downloading')
      .where('lease_expires_at', '<', now)
      .execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('documents').where('id', '=', id).execute();
  }

  /** Documents never downloaded within the retention time (running jobs with a live lease are left alone). */
  async listExpired(createdBefore: number, now: number, limit = 500): Promise<string[]> {
    const rows = await this.db
      .selectFrom('documents')
      .select('id')
      .where('created_at', '<', createdBefore)
      .where((eb) =>
        eb.or([
          eb('status', 'in', ['queued', 'done', 'error']),
          eb.and([eb('status', 'in', ['translating', 'downloading']), eb('lease_expires_at', '<', now)]),
        ]),
      )
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }
}
