// Voice sessions: one-time connection tokens (only their SHA-256 is kept), expiry, reconnection and the live
// connection of each session. In memory: a session lives on the node that issued it.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AuthContext } from '../accounts/accounts-service.js';
import type { VoiceSessionConfig } from './session-request.js';

/** An unused token expires after this long. */
export const TOKEN_TTL_MS = 5 * 60_000;
/** A session without a connection is forgotten after this long. */
export const SESSION_IDLE_TTL_MS = 60 * 60_000;

export interface LiveConnection {
  /** Ends the connection; `reason` says why (reconnected elsewhere, token reused). */
  terminate(reason: 'replaced' | 'token_reused'): void;
}

export interface VoiceSession {
  id: string;
  ctx: AuthContext;
  config: VoiceSessionConfig;
  reportingTag: string | null;
  /** Hash of the token that may connect next, and until when. */
  tokenHash: string | null;
  tokenExpiresAt: number;
  /** Hash of the most recently issued token: the one a reconnect request must present. */
  latestHash: string;
  /** Hashes of tokens already used or replaced: presenting one again terminates the session. */
  spentHashes: Set<string>;
  connection: LiveConnection | null;
  /** Resources resolved at request time (spoken terms, glossaries), owned by the voice service. */
  resources: unknown;
  /** Per-session state owned by the stream layer (kept across reconnections). */
  state: unknown;
  terminated: boolean;
  lastActivity: number;
}

export type ClaimOutcome =
  | { ok: true; session: VoiceSession }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'reused'; session: VoiceSession };

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

export class VoiceSessionRegistry {
  private readonly sessions = new Map<string, VoiceSession>();
  private readonly byToken = new Map<string, string>();

  constructor(private readonly now: () => number = Date.now) {}

  create(ctx: AuthContext, config: VoiceSessionConfig, reportingTag: string | null): { session: VoiceSession; token: string } {
    this.sweep();
    const session: VoiceSession = {
      id: randomUUID(),
      ctx,
      config,
      reportingTag,
      tokenHash: null,
      tokenExpiresAt: 0,
      latestHash: '',
      spentHashes: new Set(),
      connection: null,
      resources: null,
      state: null,
      terminated: false,
      lastActivity: this.now(),
    };
    this.sessions.set(session.id, session);
    return { session, token: this.issueToken(session) };
  }

  private issueToken(session: VoiceSession): string {
    if (session.tokenHash) session.spentHashes.add(session.tokenHash);
    const token = randomBytes(24).toString('base64url');
    session.tokenHash = hash(token);
    session.latestHash = session.tokenHash;
    session.tokenExpiresAt = this.now() + TOKEN_TTL_MS;
    this.byToken.set(session.tokenHash, session.id);
    return token;
  }

  /**
   * GET /v3/voice/realtime?token=: the latest token (used or not) buys a new one and disconnects the live
   * connection; an outdated token invalidates the session.
   */
  reconnect(ctx: AuthContext, token: string): { session: VoiceSession; token: string } | { error: 'invalid' | 'outdated' } {
    const h = hash(token);
    const session = this.lookup(h);
    if (!session || session.ctx.account.id !== ctx.account.id) return { error: 'invalid' };
    // A token never used for a connection is only good until it expires.
    if (session.tokenHash === h && this.now() > session.tokenExpiresAt) return { error: 'invalid' };
    if (session.latestHash !== h) {
      this.terminate(session, 'token_reused');
      return { error: 'outdated' };
    }
    session.connection?.terminate('replaced');
    session.connection = null;
    session.lastActivity = this.now();
    return { session, token: this.issueToken(session) };
  }

  /** Consumes a token for a WebSocket connection. */
  claim(token: string): ClaimOutcome {
    const h = hash(token);
    const session = this.lookup(h);
    if (!session) return { ok: false, reason: 'invalid' };
    if (session.tokenHash !== h || this.now() > session.tokenExpiresAt) {
      if (session.spentHashes.has(h)) {
        this.terminate(session, 'token_reused');
        return { ok: false, reason: 'reused', session };
      }
      return { ok: false, reason: 'invalid' };
    }
    session.spentHashes.add(h);
    session.tokenHash = null;
    session.lastActivity = this.now();
    return { ok: true, session };
  }

  private lookup(h: string): VoiceSession | null {
    const id = this.byToken.get(h);
    const session = id ? this.sessions.get(id) : undefined;
    return session && !session.terminated ? session : null;
  }

  terminate(session: VoiceSession, reason: 'token_reused' | 'ended'): void {
    if (session.terminated) return;
    session.terminated = true;
    if (reason === 'token_reused') session.connection?.terminate('token_reused');
    session.connection = null;
    this.sessions.delete(session.id);
    for (const h of [...session.spentHashes, session.tokenHash]) if (h) this.byToken.delete(h);
  }

  /** Drops sessions nobody has used for a long time. */
  sweep(): void {
    const limit = this.now() - SESSION_IDLE_TTL_MS;
    for (const s of this.sessions.values()) if (!s.connection && s.lastActivity < limit) this.terminate(s, 'ended');
  }

  /** Every live session (for shutdown). */
  all(): VoiceSession[] {
    return [...this.sessions.values()];
  }

  get size(): number {
    return this.sessions.size;
  }
}
