// Per-pair pool of warm pipelines: hands one pipeline to one request at a time, grows up to a limit, queues the rest.

import { EngineError } from '../engine.js';
import type { ApertiumMode } from './mode-discovery.js';
import { ApertiumPipeline } from './pipeline.js';

interface Waiter {
  resolve: (p: ApertiumPipeline) => void;
  reject: (err: Error) => void;
}

export interface PairPoolHost {
  /** Asks for room for one more pipeline of `pool` within the memory budget (may evict idle pipelines elsewhere). */
  reserve(pool: PairPool): boolean;
  /** Called when a pipeline of this pool dies unexpectedly. */
  onPipelineDeath(pool: PairPool, pipeline: ApertiumPipeline, reason: string): void;
}

export class PairPool {
  readonly pipelines: ApertiumPipeline[] = [];
  private readonly waiters: Waiter[] = [];
  lastUsed = 0;
  closed = false;

  constructor(
    readonly mode: ApertiumMode,
    private readonly host: PairPoolHost,
    private readonly maxPipelines: number,
    private readonly maxQueue: number,
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
      if (reason !== 'closed' && reason !== 'evicted' && reason !== 'idle') this.host.onPipelineDeath(this, p, reason);
      // someone may be waiting for a pipeline that will never come back: start a replacement
      this.serveWaiters();
    };
  }

  private spawn(): ApertiumPipeline {
    const p = new ApertiumPipeline(this.mode.name, this.mode.stages);
    this.watch(p);
    this.pipelines.push(p);
    return p;
  }

  /** Resolves with a pipeline reserved for the caller; pair it with release(). */
  acquire(signal?: AbortSignal): Promise<ApertiumPipeline> {
    if (this.closed) return Promise.reject(new EngineError('failed', 'apertium engine is closed'));
    this.lastUsed = Date.now();
    const idle = this.pipelines.find((p) => p.alive && !p.busy);
    if (idle) {
      idle.busy = true;
      return Promise.resolve(idle);
    }
    if (this.pipelines.length < this.maxPipelines && this.host.reserve(this)) {
      const p = this.spawn();
      p.busy = true;
      return Promise.resolve(p);
    }
    if (this.waiters.length >= this.maxQueue) {
      return Promise.reject(new EngineError('overloaded', `apertium ${this.mode.name}: queue full (${this.maxQueue})`));
    }
    return new Promise<ApertiumPipeline>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject };
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

  release(p: ApertiumPipeline): void {
    p.busy = false;
    this.lastUsed = Date.now();
    this.serveWaiters();
  }

  private serveWaiters(): void {
    while (this.waiters.length > 0 && !this.closed) {
      let p = this.pipelines.find((x) => x.alive && !x.busy);
      if (!p && this.pipelines.length < this.maxPipelines && this.host.reserve(this)) p = this.spawn();
      if (!p) return;
      p.busy = true;
      this.waiters.shift()!.resolve(p);
    }
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
