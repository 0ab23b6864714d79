// Voice sessions and their one-time tokens (migration 0014): each token change is one conditional statement, so two
// nodes presenting the same token cannot both win.
import type { Kysely } from 'kysely';
import type { Database, VoiceSessionsTable } from '../schema.js';
import type { StoreConnection } from '../connection.js';

export type VoiceSessionRow = VoiceSessionsTable;

export class VoiceSessionRepository {
  private readonly db: Kysely<Database>;

  constructor(connection: StoreConnection) {
    this.db = connection.db;
  }

  async insert(row: VoiceSessionRow): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('voice_sessions').values(row).execute();
      await trx.insertInto('voice_session_tokens').values({ hash: row.latest_hash, session_id: row.id }).execute();
    });
  }

  async get(id: string): Promise<VoiceSessionRow | undefined> {
    return this.db.selectFrom('voice_sessions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The session a token (current or spent) was issued for. */
  async byToken(hash: string): Promise<VoiceSessionRow | undefined> {
    return this.db
      .selectFrom('voice_session_tokens as t')
      .innerJoin('voice_sessions as s', 's.id', 't.session_id')
      .selectAll('s')
      .where('t.hash', '=', hash)
      .executeTakeFirst();
  }

  /** Uses the session's unused, unexpired token `hash` for a connection; undefined when it is not that. */
  async claim(hash: string, now: number): Promise<VoiceSessionRow | undefined> {
    return this.db
      .updateTable('voice_sessions')
      .set({ token_hash: null, connected: 1, last_activity: now })
      .where('token_hash', '=', hash)
      .where('token_expires_at', '>=', now)
      .where('ended', 'is', null)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Replaces the latest token (`presented`) with a new one and starts a new connection generation; undefined when
   * `presented` is no longer the latest (another reconnect won) or the session ended.
   */
  async reissue(id: string, presented: string, next: string, expiresAt: number, now: number): Promise<VoiceSessionRow | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('voice_sessions')
        .set((eb) => ({ token_hash: next, latest_hash: next, token_expires_at: expiresAt, generation: eb('generation', '+', 1), last_activity: now }))
        .where('id', '=', id)
        .where('latest_hash', '=', presented)
        .where('ended', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (row) await trx.insertInto('voice_session_tokens').values({ hash: next, session_id: id }).execute();
      return row;
    });
  }

  /** Ends a session once; false when it had ended already. */
  async end(id: string, reason: string, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('voice_sessions')
      .set({ ended: reason, connected: 0, token_hash: null, last_activity: now })
      .where('id', '=', id)
      .where('ended', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async disconnected(id: string, now: number): Promise<void> {
    await this.db.updateTable('voice_sessions').set({ connected: 0, last_activity: now }).where('id', '=', id).execute();
  }

  /**
   * Deletes sessions idle since `idleBefore` without a connection, and any older than `abandonedBefore` (a node that
   * held its connection died without saying so).
   */
  async sweep(idleBefore: number, abandonedBefore: number): Promise<void> {
    await this.db
      .deleteFrom('voice_sessions')
      .where((eb) => eb.or([eb.and([eb('connected', '=', 0), eb('last_activity', '<', idleBefore)]), eb('last_activity', '<', abandonedBefore)]))
      .execute();
  }
}
