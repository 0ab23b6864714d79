// Per-pair pool of warm pipelines: prefers an idle pipeline, grows up to a limit, then pipelines further requests
// into the least loaded pipeline (bounded by requests and bytes in flight), and queues the rest.

import { EngineError } from '../engine.js';
import type { ApertiumMode } from './mode-discovery.js';
import { ApertiumPipeline, type TaggerReset } from './pipeline.js';

/** Requesters whose last turn is remembered; beyond that the longest-served are forgotten (they count as new). */
const MAX_REMEMBERED_REQUESTERS = 1024;

interface Waiter {
  bytes: number;
  /** Who asked (an account); waiters are served one requester at a time, longest-unserved first. */
  requester: string;
  resolve: (p: ApertiumPipeline) => void;
  reject: (err: Error) => void;
}

export interface InFlightLimits {
  /** Requests in flight at once in one pipeline (1 = no pipelining). */
  maxRequests: number;
  /**
   * Input bytes in flight in one pipeline; a request joins a busy pipeline only while the total stays within this.
   * A request alone may exceed it (its blocks are each below PIPE_BUF).
   */
  maxBytes: number;
}

export interface PairPoolHost {
  /** Asks for room for one more pipeline of `pool` within the memory budget (may evict idle pipelines elsewhere). */
  reserve(pool: PairPool): boolean;
  /** Whether a pipeline should take no new work (too old, too many translations, too much memory); checked on release. */
  shouldRetire?(pipeline: ApertiumPipeline): string | undefined;
  /** Called when a pipeline of this pool dies unexpectedly. */
  onPipelineDeath(pool: PairPool, pipeline: ApertiumPipeline, reason: string): void;
  /** How new pipelines keep their tagger stateless (see pipeline.ts); default the relay. */
  readonly taggerReset?: TaggerReset;
}

/** When a pipeline is replaced (see ApertiumEngineOptions); lrx-proc grows ~95 bytes per translation. */
export const WEAR_LIMITS = { maxBlocksPerPipeline: 100_000, maxPipelineAgeMs: 6 * 3_600_000, maxRssGrowthMb: 64 };

/** Why a pipeline should be replaced, or undefined; `rss` (bytes, measured by the sweep) also checks its growth. */
export function wornOut(p: ApertiumPipeline, limits: typeof WEAR_LIMITS, rss?: number): string | undefined {
  if (p.translatedBlocks >= limits.maxBlocksPerPipeline) return `translated ${p.translatedBlocks} blocks`;
  if (Date.now() - p.startedAt >= limits.maxPipelineAgeMs) return 'age';
  if (rss === undefined) return undefined;
  p.firstRss ??= rss;
  return rss - p.firstRss > limits.maxRssGrowthMb * 2 ** 20 ? `resident memory grew to ${Math.round(rss / 2 ** 20)} MiB` : undefined;
}

export class PairPool {
  readonly pipelines: ApertiumPipeline[] = [];
  private readonly waiters: Waiter[] = [];
  /** Turn number of each requester's last service (insertion-ordered by turn). */
  private readonly lastServed = new Map<string, number>();
  private turns = 0;
  lastUsed = 0;
  closed = false;

  constructor(
    readonly mode: ApertiumMode,
    private readonly host: PairPoolHost,
    private readonly maxPipelines: number,
    private readonly maxQueue: number,
    private readonly inFlight: InFlightLimits = { maxRequests: 1, maxBytes: 0 },
  ) {}

  get queued(): number {
    return this.waiters.length;
  }

  /** Adds an already running pipeline (e.g. the one used for probing) as idle. */
  adopt(p: ApertiumPipeline): void {
    this.watch(p);
    this.pipelines.push(p);
  }

  private watch(p: ApertiumPipeline): void {
    p.onDeath = (reason) => {
      const i = this.pipelines.indexOf(p);
      if (i >= 0) this.pipelines.splice(i, 1);
      if (!['closed', 'evicted', 'idle', 'retired'].includes(reason)) this.host.onPipelineDeath(this, p, reason);
      // someone may be waiting for a pipeline that will never come back: start a replacement
      this.serveWaiters();
    };
  }

  private spawn(): ApertiumPipeline {
    const p = new ApertiumPipeline(this.mode.name, this.mode.stages, this.host.taggerReset);
    this.watch(p);
    this.pipelines.push(p);
    return p;
  }

  /** Picks a pipeline with room for `bytes` more input: idle first, then a new one, then the least loaded busy one. */
  private pick(bytes: number): ApertiumPipeline | undefined {
    let best: ApertiumPipeline | undefined;
    let serving = 0;
    for (const p of this.pipelines) {
      if (!p.alive || p.retiring) continue;
      serving++;
      if (p.inflight === 0) return p;
      if (!best || p.inflightBytes < best.inflightBytes) best = p;
    }
    // a retiring pipeline still drains its requests but does not count: its replacement starts at once
    if (serving < this.maxPipelines && this.host.reserve(this)) return this.spawn();
    if (best && best.inflight < this.inFlight.maxRequests && best.inflightBytes + bytes <= this.inFlight.maxBytes) return best;
    return undefined;
  }

  private take(p: ApertiumPipeline, bytes: number): ApertiumPipeline {
    p.inflight++;
    p.inflightBytes += bytes;
    return p;
  }

  /** Resolves with a pipeline that has room for a request of `bytes` input bytes; pair it with release(). */
  acquire(signal?: AbortSignal, bytes = 0, requester = ''): Promise<ApertiumPipeline> {
    if (this.closed) return Promise.reject(new EngineError('failed', 'apertium engine is closed'));
    this.lastUsed = Date.now();
    if (this.waiters.length === 0) {
      const p = this.pick(bytes);
      if (p) {
        this.served(requester);
        return Promise.resolve(this.take(p, bytes));
      }
    }
    if (this.waiters.length >= this.maxQueue) {
      return Promise.reject(new EngineError('overloaded', `apertium ${this.mode.name}: queue full (${this.maxQueue})`));
    }
    return new Promise<ApertiumPipeline>((resolve, reject) => {
      const waiter: Waiter = { bytes, requester, resolve, reject };
      this.waiters.push(waiter);
      signal?.addEventListener(
        'abort',
        () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) {
            this.waiters.splice(i, 1);
            reject(signal.reason instanceof Error ? signal.reason : new EngineError('failed', 'aborted'));
          }
        },
        { once: true },
      );
    });
  }

  /** Gives back what acquire(…, bytes) took, once the request's output has come back (or the pipeline died). */
  release(p: ApertiumPipeline, bytes = 0): void {
    p.inflight = Math.max(0, p.inflight - 1);
    p.inflightBytes = Math.max(0, p.inflightBytes - bytes);
    this.lastUsed = Date.now();
    p.retiring ??= this.host.shouldRetire?.(p);
    this.retireIfDrained(p);
    this.serveWaiters();
  }

  private serveWaiters(): void {
    while (this.waiters.length > 0 && !this.closed) {
      const at = this.nextWaiter();
      const p = this.pick(this.waiters[at]!.bytes);
      if (!p) return;
      const [w] = this.waiters.splice(at, 1);
      this.served(w!.requester);
      w!.resolve(this.take(p, w!.bytes));
    }
  }

  /**
   * The oldest waiter of the requester served longest ago: one account's backlog waits behind one request of every
   * other account, not the reverse. Linear in the queue, which maxQueue bounds.
   */
  private nextWaiter(): number {
    let best = 0;
    let bestTurn = Infinity;
    const seen = new Set<string>();
    this.waiters.forEach((w, i) => {
      if (seen.has(w.requester)) return;
      seen.add(w.requester);
      const turn = this.lastServed.get(w.requester) ?? -1;
      if (turn < bestTurn) [best, bestTurn] = [i, turn];
    });
    return best;
  }

  private served(requester: string): void {
    this.lastServed.delete(requester); // re-inserted last: the Map stays ordered by turn and bounded below
    this.lastServed.set(requester, this.turns++);
    if (this.lastServed.size > MAX_REMEMBERED_REQUESTERS) this.lastServed.delete(this.lastServed.keys().next().value!);
  }

  /** Marks a pipeline to take no new requests; it is closed as soon as its requests are answered. */
  retire(p: ApertiumPipeline, reason: string): void {
    p.retiring ??= reason;
    this.retireIfDrained(p);
    this.serveWaiters();
  }

  private retireIfDrained(p: ApertiumPipeline): void {
    if (p.retiring && p.inflight === 0 && p.alive) p.kill('retired');
  }

  /** Closes idle pipelines unused for `maxIdleMs`; returns how many were closed. */
  recycleIdle(maxIdleMs: number, now = Date.now()): number {
    let n = 0;
    for (const p of [...this.pipelines]) {
      if (!p.busy && now - p.lastUsed >= maxIdleMs) {
        p.kill('idle');
        n++;
      }
    }
    return n;
  }

  /** Kills one idle pipeline (for the memory budget); returns it or null. */
  evictOne(): ApertiumPipeline | null {
    const p = this.pipelines.find((x) => !x.busy);
    if (!p) return null;
    p.kill('evicted');
    return p;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.reject(new EngineError('failed', 'apertium engine is closing'));
    await Promise.all([...this.pipelines].map((p) => p.close()));
    this.pipelines.length = 0;
  }
}
