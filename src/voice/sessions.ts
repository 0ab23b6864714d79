// Voice sessions: one-time connection tokens (only their SHA-256 is kept), expiry, reconnection and the live
// connection of each session. The session and its tokens are in the database, so any node accepts its WebSocket; the
// live connection and the stream's state are in the memory of the node that holds the connection, and the change
// feed tells that node when another one replaced or ended the session.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AuthContext } from '../accounts/accounts-service.js';
import type { Logger } from '../lib/logger.js';
import type { Change, ChangeFeed } from '../store/change-feed.js';
import type { VoiceSessionRepository, VoiceSessionRow } from '../store/repositories/voice-session-repository.js';
import type { VoiceSessionConfig } from './session-request.js';

/** An unused token expires after this long. */
export const TOKEN_TTL_MS = 5 * 60_000;
/** A session without a connection is forgotten after this long. */
export const SESSION_IDLE_TTL_MS = 60 * 60_000;
/** A session still marked connected this long after its last activity lost its node (connections last 1 h at most). */
const ABANDONED_AFTER_MS = 3 * 60 * 60_000;
/** The database is swept of old sessions at most this often. */
const SWEEP_INTERVAL_MS = 60_000;

export interface LiveConnection {
  /** Ends the connection; `reason` says why (reconnected elsewhere, token reused). */
  terminate(reason: 'replaced' | 'token_reused'): void;
}

/** A session as this node knows it. */
export interface VoiceSession {
  id: string;
  ctx: AuthContext;
  config: VoiceSessionConfig;
  reportingTag: string | null;
  /** The connection generation this node's connection belongs to (a reconnect starts the next one). */
  generation: number;
  connection: LiveConnection | null;
  /** Resources resolved for the session (spoken terms, glossaries), owned by the voice service. */
  resources: unknown;
  /** Per-session state owned by the stream layer (kept across reconnections to this node). */
  state: unknown;
  terminated: boolean;
  lastActivity: number;
}

export type ClaimOutcome =
  | { ok: true; session: VoiceSession }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'reused'; config: VoiceSessionConfig };

/** Rebuilds a session requested on another node: its key's context and resources, or null when the key is gone. */
export type SessionRestorer = (row: VoiceSessionRow, config: VoiceSessionConfig) => Promise<{ ctx: AuthContext; resources: unknown } | null>;

export interface VoiceSessionRegistryOptions {
  repository: VoiceSessionRepository;
  changes: ChangeFeed;
  restore: SessionRestorer;
  logger: Logger;
  now?: () => number;
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

export class VoiceSessionRegistry {
  private readonly local = new Map<string, VoiceSession>();
  private readonly repo: VoiceSessionRepository;
  private readonly now: () => number;
  private lastSweep = 0;

  constructor(private readonly opts: VoiceSessionRegistryOptions) {
    this.repo = opts.repository;
    this.now = opts.now ?? Date.now;
    opts.changes.subscribe((change) => void this.changed(change).catch((err: unknown) => opts.logger.error({ err }, 'voice session change failed')));
  }

  async create(ctx: AuthContext, config: VoiceSessionConfig, reportingTag: string | null, resources: unknown): Promise<{ session: VoiceSession; token: string }> {
    this.sweep();
    const token = randomBytes(24).toString('base64url');
    const now = this.now();
    const row: VoiceSessionRow = {
      id: randomUUID(),
      account_id: ctx.account.id,
      key_id: ctx.key.id,
      config: JSON.stringify(config),
      reporting_tag: reportingTag,
      token_hash: hash(token),
      token_expires_at: now + TOKEN_TTL_MS,
      latest_hash: hash(token),
      generation: 0,
      connected: 0,
      ended: null,
      last_activity: now,
    };
    await this.repo.insert(row);
    const session = this.remember(row, ctx, config, resources);
    return { session, token };
  }

  private remember(row: VoiceSessionRow, ctx: AuthContext, config: VoiceSessionConfig, resources: unknown): VoiceSession {
    const session: VoiceSession = {
      id: row.id,
      ctx,
      config,
      reportingTag: row.reporting_tag,
      generation: row.generation,
      connection: null,
      resources,
      state: null,
      terminated: false,
      lastActivity: this.now(),
    };
    this.local.set(session.id, session);
    return session;
  }

  /**
   * GET /v3/voice/realtime?token=: the latest token (used or not) buys a new one and disconnects the live connection
   * (on whichever node holds it); an outdated token invalidates the session.
   */
  async reconnect(ctx: AuthContext, token: string): Promise<{ sessionId: string; token: string } | { error: 'invalid' | 'outdated' }> {
    const h = hash(token);
    const row = await this.repo.byToken(h);
    if (!row || row.ended !== null || row.account_id !== ctx.account.id) return { error: 'invalid' };
    // A token never used for a connection is only good until it expires.
    if (row.token_hash === h && this.now() > row.token_expires_at) return { error: 'invalid' };
    const next = randomBytes(24).toString('base64url');
    const reissued = row.latest_hash === h ? await this.repo.reissue(row.id, h, hash(next), this.now() + TOKEN_TTL_MS, this.now()) : undefined;
    if (!reissued) {
      await this.end(row.id, 'token_reused');
      return { error: 'outdated' };
    }
    this.replaced(reissued);
    await this.opts.changes.publish({ kind: 'voice_session', id: row.id });
    return { sessionId: row.id, token: next };
  }

  /** Consumes a token for a WebSocket connection (on any node). */
  async claim(token: string): Promise<ClaimOutcome> {
    const h = hash(token);
    const row = await this.repo.claim(h, this.now());
    if (!row) {
      const known = await this.repo.byToken(h);
      if (!known || known.ended !== null) return { ok: false, reason: 'invalid' };
      // a token once issued that is no longer the unused one was spent (used or replaced): its session ends
      if (known.token_hash !== h) {
        await this.end(known.id, 'token_reused');
        return { ok: false, reason: 'reused', config: JSON.parse(known.config) as VoiceSessionConfig };
      }
      return { ok: false, reason: 'invalid' };
    }
    let session = this.local.get(row.id);
    if (!session) {
      const config = JSON.parse(row.config) as VoiceSessionConfig;
      const restored = await this.opts.restore(row, config).catch((err: unknown) => {
        this.opts.logger.warn({ err, session: row.id }, 'voice session could not be restored on this node');
        return null;
      });
      if (!restored) {
        await this.end(row.id, 'ended');
        return { ok: false, reason: 'invalid' };
      }
      session = this.remember(row, restored.ctx, config, restored.resources);
    }
    session.generation = row.generation;
    session.lastActivity = this.now();
    return { ok: true, session };
  }

  /** The live connection on this node closed; the session stays reconnectable from any node. */
  released(session: VoiceSession): void {
    session.lastActivity = this.now();
    if (session.terminated) return;
    this.repo.disconnected(session.id, this.now()).catch((err: unknown) => this.opts.logger.error({ err }, 'voice session release failed'));
  }

  /** Ends a session (stream finished, or a token reused) everywhere. */
  terminate(session: VoiceSession, reason: 'token_reused' | 'ended'): void {
    this.end(session.id, reason).catch((err: unknown) => this.opts.logger.error({ err }, 'voice session end failed'));
  }

  private async end(id: string, reason: 'token_reused' | 'ended'): Promise<void> {
    this.endedHere(id, reason);
    if (await this.repo.end(id, reason, this.now())) await this.opts.changes.publish({ kind: 'voice_session', id });
  }

  private endedHere(id: string, reason: string | null): void {
    const session = this.local.get(id);
    if (!session || session.terminated) return;
    session.terminated = true;
    if (reason === 'token_reused') session.connection?.terminate('token_reused');
    session.connection = null;
    this.local.delete(id);
  }

  /** A reconnect started a new generation: this node's connection of an older one ends. */
  private replaced(row: VoiceSessionRow): void {
    const session = this.local.get(row.id);
    if (!session?.connection || session.generation >= row.generation) return;
    session.connection.terminate('replaced');
    session.connection = null;
  }

  /** Another node changed a session (or the feed was lost): connections held here follow the database. */
  private async changed(change: Change): Promise<void> {
    const ids = change.kind === 'voice_session' ? [change.id] : change.kind === 'reset' ? [...this.local.keys()] : [];
    for (const id of ids) {
      if (!this.local.get(id)?.connection) continue;
      const row = await this.repo.get(id);
      if (!row || row.ended !== null) this.endedHere(id, row?.ended ?? 'ended');
      else this.replaced(row);
    }
  }

  /** Forgets sessions nobody has used for a long time (here, and in the database at most once a minute). */
  sweep(): void {
    const now = this.now();
    const limit = now - SESSION_IDLE_TTL_MS;
    for (const s of this.local.values()) if (!s.connection && s.lastActivity < limit) this.local.delete(s.id);
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    this.repo.sweep(limit, now - ABANDONED_AFTER_MS).catch((err: unknown) => this.opts.logger.error({ err }, 'voice session sweep failed'));
  }

  /** Sessions this node knows (for shutdown). */
  all(): VoiceSession[] {
    return [...this.local.values()];
  }

  get size(): number {
    return this.local.size;
  }
}
