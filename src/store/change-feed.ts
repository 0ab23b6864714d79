// The change feed: tells every node that a cached row changed (a key deactivated, a limit lowered, a glossary edited),
// so caches drop it within a second instead of serving it until they expire. PostgreSQL LISTEN/NOTIFY between nodes;
// on SQLite (one node) the changes go to this process's listeners, and a write by another process on the same file
// (the `tolk` command revoking a key while the server runs) is noticed by catchUp() before a cached row is used.
import pg from 'pg';
import { sql, type Kysely } from 'kysely';

export type ChangedKind = 'key' | 'account' | 'glossary' | 'memory' | 'voice_session';

/** `reset`: notifications may have been missed (the listening connection was lost): every cache starts over. */
export type Change = { kind: ChangedKind; id: string } | { kind: 'reset' };

export type ChangeListener = (change: Change) => void;

export interface ChangeFeed {
  /**
   * Announces a change to every node, this one included. With `db` a transaction, PostgreSQL delivers it when that
   * transaction commits (never for a rolled-back change).
   */
  publish(change: Change, db?: Kysely<any>): Promise<void>;
  subscribe(listener: ChangeListener): () => void;
  /**
   * Delivers, before returning, what other processes changed in the store since the last look, where that can be
   * known without waiting (SQLite); a cache calls it before serving a cached row. PostgreSQL's notifications arrive
   * by themselves.
   */
  catchUp(): void;
  close(): Promise<void>;
}

const KINDS: ReadonlySet<string> = new Set<ChangedKind>(['key', 'account', 'glossary', 'memory', 'voice_session']);

/** A notification's payload as a Change, or undefined for anything else on the channel. */
export function parseChange(payload: string | undefined): Change | undefined {
  if (!payload || payload.length > 1024) return undefined;
  try {
    const value = JSON.parse(payload) as { kind?: unknown; id?: unknown };
    if (value.kind === 'reset') return { kind: 'reset' };
    if (typeof value.kind === 'string' && KINDS.has(value.kind) && typeof value.id === 'string') return { kind: value.kind as ChangedKind, id: value.id };
  } catch {
    // not one of ours
  }
  return undefined;
}

class Listeners {
  private readonly set = new Set<ChangeListener>();

  add(listener: ChangeListener): () => void {
    this.set.add(listener);
    return () => this.set.delete(listener);
  }

  deliver(change: Change): void {
    for (const listener of this.set) listener(change);
  }
}

/**
 * SQLite: one node. Its own changes go to its listeners at once; another process writing the same file (the `tolk`
 * command revoking a key while the server runs, another HTTP process of the node) is seen through `version`, which
 * moves when another connection announced a change (`announce`, called on publish, writes a new stamp and returns the
 * one it replaced): which rows changed is then unknown, so every cache starts over (a reset). With `pollMs`, it also
 * looks by itself (voice connections held here for a session reconnected through another process).
 */
export class LocalChangeFeed implements ChangeFeed {
  private readonly listeners = new Listeners();
  private seen: number | undefined;
  private readonly poll: NodeJS.Timeout | undefined;

  constructor(
    private readonly version?: () => number | undefined,
    private readonly announce?: () => number | undefined,
    pollMs?: number,
  ) {
    this.seen = version?.();
    this.poll = pollMs ? setInterval(() => this.catchUp(), pollMs).unref() : undefined;
  }

  async publish(change: Change): Promise<void> {
    const replaced = this.announce?.();
    if (replaced !== undefined) {
      // a stamp other than the last one seen: another process announced meanwhile
      const missed = replaced !== this.seen;
      this.seen = this.version?.();
      if (missed) this.listeners.deliver({ kind: 'reset' });
    }
    this.listeners.deliver(change);
  }

  subscribe(listener: ChangeListener): () => void {
    return this.listeners.add(listener);
  }

  catchUp(): void {
    const now = this.version?.();
    if (now === undefined || now === this.seen) return;
    this.seen = now;
    this.listeners.deliver({ kind: 'reset' });
  }

  async close(): Promise<void> {
    clearInterval(this.poll);
  }
}

/** How long after losing its connection the listener tries again. */
const RECONNECT_DELAY_MS = 1_000;

/**
 * PostgreSQL: one dedicated connection LISTENs (a pooled one would be handed to queries); publishing is a pg_notify
 * on the caller's connection. The channel carries the schema's name, so schemas sharing a database (tests, tenants)
 * do not hear each other.
 */
export class PostgresChangeFeed implements ChangeFeed {
  private readonly listeners = new Listeners();
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  readonly channel: string;

  private constructor(
    private readonly db: Kysely<any>,
    private readonly connection: pg.ClientConfig,
    schema: string | undefined,
  ) {
    this.channel = `tolk_changes_${schema ?? 'public'}`;
  }

  static async start(db: Kysely<any>, connection: pg.ClientConfig, schema: string | undefined): Promise<PostgresChangeFeed> {
    const feed = new PostgresChangeFeed(db, connection, schema);
    await feed.listen();
    return feed;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client(this.connection);
    // Errors of an idle connection arrive as events: without a listener they would end the process.
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (msg) => {
      if (msg.channel !== this.channel) return;
      const change = parseChange(msg.payload);
      if (change) this.listeners.deliver(change);
    });
    await client.connect();
    await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`);
    this.client = client;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    client.end().catch(() => {});
    // Whatever was announced while nobody listened is unknown: caches start over once listening again.
    const again = () => {
      this.retry = undefined;
      if (this.closed) return;
      this.listen().then(
        () => this.listeners.deliver({ kind: 'reset' }),
        () => (this.retry = setTimeout(again, RECONNECT_DELAY_MS).unref()),
      );
    };
    this.retry = setTimeout(again, RECONNECT_DELAY_MS).unref();
    this.listeners.deliver({ kind: 'reset' });
  }

  async publish(change: Change, db: Kysely<any> = this.db): Promise<void> {
    await sql`SELECT pg_notify(${this.channel}, ${JSON.stringify(change)})`.execute(db);
  }

  subscribe(listener: ChangeListener): () => void {
    return this.listeners.add(listener);
  }

  catchUp(): void {}

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
