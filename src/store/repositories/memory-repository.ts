// Translation memory, segment and job queries (issue 6); job state lives here so jobs survive restarts.
import type { Kysely } from 'kysely';
import type { Database, TmJobsTable, TranslationMemoriesTable } from '../schema.js';
import type { SqlDialect } from '../sql-dialect.js';
import type { StoreConnection } from '../connection.js';

export type MemoryRow = TranslationMemoriesTable;
export type JobRow = TmJobsTable;

export class MemoryRepository {
  private readonly db: Kysely<Database>;
  private readonly dialect: SqlDialect;

  constructor(connection: StoreConnection) {
    this.db = connection.db;
    this.dialect = connection.dialect;
  }

  async insertMemory(row: MemoryRow): Promise<void> {
    await this.db.insertInto('translation_memories').values(row).execute();
  }

  async updateMemory(id: string, changes: Partial<Omit<MemoryRow, 'id'>>): Promise<void> {
    await this.db.updateTable('translation_memories').set(changes).where('id', '=', id).execute();
  }

  async getMemory(accountId: string, id: string): Promise<MemoryRow | undefined> {
    return this.db.selectFrom('translation_memories').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  }

  async pageMemories(accountId: string, page: number, pageSize: number): Promise<{ rows: MemoryRow[]; total: number }> {
    const rows = await this.db
      .selectFrom('translation_memories')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('segment_count', '>=', 0)
      .orderBy('created_at')
      .orderBy('id')
      .limit(pageSize)
      .offset(page * pageSize)
      .execute();
    const c = await this.db.selectFrom('translation_memories').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).where('segment_count', '>=', 0).executeTakeFirst();
    return { rows, total: Number(c?.n ?? 0) };
  }

  async deleteMemory(id: string): Promise<void> {
    await this.db.deleteFrom('tm_segments').where('memory_id', '=', id).execute();
    await this.db.deleteFrom('translation_memories').where('id', '=', id).execute();
  }

  async insertSegments(memoryId: string, rows: { target_lang: string; source: string; target: string }[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += 200) {
        await trx.insertInto('tm_segments').values(rows.slice(i, i + 200).map((r) => ({ memory_id: memoryId, ...r }))).execute();
      }
    });
  }

  /** Segments of one target, in import order, in pages (export and index building never hold a cursor long). */
  async segments(memoryId: string, targetLang: string | undefined, afterId: number, limit: number) {
    let q = this.db.selectFrom('tm_segments').select(['id', 'target_lang', 'source', 'target']).where('memory_id', '=', memoryId).where('id', '>', afterId);
    if (targetLang !== undefined) q = q.where('target_lang', '=', targetLang);
    return q.orderBy('id').limit(limit).execute();
  }

  async insertJob(row: JobRow): Promise<void> {
    await this.db.insertInto('tm_jobs').values(row).execute();
  }

  /** `accountId` null: the job whatever its account (signed URLs). */
  async getJob(accountId: string | null, id: string): Promise<JobRow | undefined> {
    let q = this.db.selectFrom('tm_jobs').selectAll().where('id', '=', id);
    if (accountId !== null) q = q.where('account_id', '=', accountId);
    return q.executeTakeFirst();
  }

  async updateJob(id: string, changes: Partial<Omit<JobRow, 'id'>>): Promise<void> {
    await this.db.updateTable('tm_jobs').set(changes).where('id', '=', id).execute();
  }

  async jobsWithStatus(status: JobRow['status']): Promise<JobRow[]> {
    return this.db.selectFrom('tm_jobs').selectAll().where('status', '=', status).execute();
  }

  /**
   * Claims the oldest `processing` job no live lease holds (none yet: queued, or handed back; expired: its runner
   * died), bumping `attempts`; on PostgreSQL the candidate is locked with SKIP LOCKED so two nodes never take the same
   * job.
   */
  async claimJob(owner: string, now: number, leaseMs: number): Promise<JobRow | undefined> {
    const abandoned = (eb: any) => eb.and([eb('status', '=', 'processing'), eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', now)])]);
    let candidate = this.db.selectFrom('tm_jobs').select('id').where(abandoned).orderBy('created_at').limit(1);
    if (this.dialect === 'postgres') candidate = candidate.forUpdate().skipLocked();
    return this.db
      .updateTable('tm_jobs')
      .set((eb) => ({ lease_owner: owner, lease_expires_at: now + leaseMs, attempts: eb('attempts', '+', 1), updated_at: now }))
      .where('id', '=', candidate)
      .where(abandoned)
      .returningAll()
      .executeTakeFirst();
  }

  /** Extends the lease of a job this runner holds; false when it was taken over or has ended. */
  async renewJob(id: string, owner: string, leaseExpiresAt: number): Promise<boolean> {
    const r = await this.db
      .updateTable('tm_jobs')
      .set({ lease_expires_at: leaseExpiresAt })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Ends a job this runner holds; false when it lost the lease meanwhile (then the new holder decides). */
  async finishJob(id: string, owner: string, changes: Partial<Omit<JobRow, 'id'>>): Promise<boolean> {
    const r = await this.db
      .updateTable('tm_jobs')
      .set({ ...changes, lease_owner: null, lease_expires_at: null })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Returns a job this runner holds to the queue (shutdown), not counting its claim; false when it is not held. */
  async handBackJob(id: string, owner: string): Promise<boolean> {
    const r = await this.db
      .updateTable('tm_jobs')
      .set((eb) => ({ lease_owner: null, lease_expires_at: null, attempts: eb('attempts', '-', 1) }))
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async exportJobs(memoryId: string): Promise<JobRow[]> {
    return this.db.selectFrom('tm_jobs').selectAll().where('memory_id', '=', memoryId).where('operation', '=', 'export').orderBy('created_at', 'desc').execute();
  }
}
