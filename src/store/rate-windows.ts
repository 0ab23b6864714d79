// Request-rate counting in fixed windows, in one place for the whole cluster: Redis when configured (one round trip,
// atomic in a script), else the PostgreSQL database (one atomic upsert), else the SQLite file when several processes
// of one node serve (one upsert), else this process's memory.
import { Redis } from 'ioredis';
import type SqliteDatabase from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface WindowHit {
  /** Hits in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  resetInMs: number;
}

export interface RateWindows {
  readonly kind: 'memory' | 'database' | 'redis';
  /** Counts one hit for `bucket` in its current window of `windowMs` (memory answers synchronously: no promise per request). */
  hit(bucket: string, windowMs: number): WindowHit | Promise<WindowHit>;
  close(): Promise<void>;
}

/** Buckets kept in memory at most; beyond, the oldest window goes (as @fastify/rate-limit's own LRU does). */
const MEMORY_BUCKETS = 10_000;

export class MemoryRateWindows implements RateWindows {
  readonly kind = 'memory';
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  hit(bucket: string, windowMs: number): WindowHit {
    const now = this.now();
    let window = this.windows.get(bucket);
    if (!window || window.start + windowMs <= now) {
      window = { start: now, count: 0 };
      // re-inserted, so the Map's order stays oldest-window first
      this.windows.delete(bucket);
      this.windows.set(bucket, window);
      if (this.windows.size > MEMORY_BUCKETS) this.windows.delete(this.windows.keys().next().value!);
    }
    window.count += 1;
    return { count: window.count, resetInMs: window.start + windowMs - now };
  }

  async close(): Promise<void> {}
}

/** How often expired windows are deleted from the table. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * PostgreSQL: one row per bucket, renewed in place when its window has ended. The database's clock decides, so nodes
 * with skewed clocks still share one window.
 */
export class DatabaseRateWindows implements RateWindows {
  readonly kind = 'database';
  private readonly sweeper: NodeJS.Timeout;
  private longestWindowMs = 0;

  constructor(private readonly db: Kysely<Database>) {
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), SWEEP_INTERVAL_MS).unref();
  }

  async hit(bucket: string, windowMs: number): Promise<WindowHit> {
    this.longestWindowMs = Math.max(this.longestWindowMs, windowMs);
    const now = sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;
    const { rows } = await sql<{ hits: number; window_start: number; now: number }>`
      INSERT INTO rate_limit_windows AS w (bucket, window_start, hits) VALUES (${bucket}, ${now}, 1)
      ON CONFLICT (bucket) DO UPDATE SET
        hits = CASE WHEN w.window_start + ${windowMs} <= ${now} THEN 1 ELSE w.hits + 1 END,
        window_start = CASE WHEN w.window_start + ${windowMs} <= ${now} THEN ${now} ELSE w.window_start END
      RETURNING hits, window_start, ${now} AS now`.execute(this.db);
    const row = rows[0]!;
    return { count: Number(row.hits), resetInMs: Math.max(0, Number(row.window_start) + windowMs - Number(row.now)) };
  }

  /** Deletes windows that ended (a key's row comes back with its next request). */
  async sweep(): Promise<void> {
    if (this.longestWindowMs === 0) return;
    await sql`DELETE FROM rate_limit_windows
      WHERE window_start < (extract(epoch from clock_timestamp()) * 1000)::bigint - ${this.longestWindowMs}`.execute(this.db);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

/**
 * SQLite shared by the HTTP processes of one node: one upsert per hit, answered synchronously (better-sqlite3; the
 * file's write lock orders the processes, its busy timeout lets them wait their turn). One machine: one clock.
 */
export class SqliteRateWindows implements RateWindows {
  readonly kind = 'database';
  private readonly sweeper: NodeJS.Timeout;
  private longestWindowMs = 0;
  private readonly upsert: SqliteDatabase.Statement;
  private readonly expire: SqliteDatabase.Statement;

  constructor(
    sqlite: SqliteDatabase.Database,
    private readonly now: () => number = Date.now,
  ) {
    this.upsert = sqlite.prepare(`
      INSERT INTO rate_limit_windows AS w (bucket, window_start, hits) VALUES (@bucket, @now, 1)
      ON CONFLICT (bucket) DO UPDATE SET
        hits = CASE WHEN w.window_start + @windowMs <= @now THEN 1 ELSE w.hits + 1 END,
        window_start = CASE WHEN w.window_start + @windowMs <= @now THEN @now ELSE w.window_start END
      RETURNING hits, window_start`);
    this.expire = sqlite.prepare('DELETE FROM rate_limit_windows WHERE window_start < ?');
    this.sweeper = setInterval(() => {
      try {
        if (this.longestWindowMs > 0) this.expire.run(this.now() - this.longestWindowMs);
      } catch {
        // busy or closing: the next sweep deletes them
      }
    }, SWEEP_INTERVAL_MS).unref();
  }

  hit(bucket: string, windowMs: number): WindowHit {
    this.longestWindowMs = Math.max(this.longestWindowMs, windowMs);
    const now = this.now();
    const row = this.upsert.get({ bucket, now, windowMs }) as { hits: number; window_start: number };
    return { count: row.hits, resetInMs: Math.max(0, row.window_start + windowMs - now) };
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

// INCR, and the window's expiry set by the hit that opened it.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

/** Longest a Redis command may take before the hit fails (the limiter then lets the request through). */
const REDIS_COMMAND_TIMEOUT_MS = 1_000;

export class RedisRateWindows implements RateWindows {
  readonly kind = 'redis';

  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Connects (failing when Redis does not answer within `connectTimeoutMs`). */
  static async connect(url: string, options: { prefix?: string; connectTimeoutMs?: number } = {}): Promise<RedisRateWindows> {
    const redis = new Redis(url, {
      lazyConnect: true,
      connectTimeout: options.connectTimeoutMs ?? 5_000,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      // a request waits for one reconnection at most, never for a queue of them
      maxRetriesPerRequest: 1,
    });
    // connection errors are reported through the failing commands; unhandled, the event would end the process
    redis.on('error', () => {});
    try {
      await redis.connect();
    } catch (err) {
      redis.disconnect();
      throw new Error(`TOLK_REDIS_URL: cannot connect to Redis (${(err as Error).message})`);
    }
    redis.defineCommand('tolkRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    return new RedisRateWindows(redis, options.prefix ?? 'tolk:rate:');
  }

  async hit(bucket: string, windowMs: number): Promise<WindowHit> {
    const run = (this.redis as unknown as { tolkRateHit(key: string, ms: number): Promise<[number, number]> }).tolkRateHit;
    const [count, ttl] = await run.call(this.redis, this.prefix + bucket, windowMs);
    return { count: Number(count), resetInMs: Number(ttl) };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
