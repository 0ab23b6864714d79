// Worker threads running the Bergamot runtime. Requests are cut into small chunks, queued per model and batched;
// a model is loaded into one worker and copied into more while all its copies are busy with it and requests wait for
// them (longer than half a batch takes, or more than their batches hold), so a busy direction gets as many workers as its
// traffic keeps busy and M idle models cost M copies, not workers × M. Memory is counted as the runtimes hold it
// (each worker's WebAssembly heap, which never shrinks, plus the loads in progress) against the budget: models are
// freed in the worker that loads next, and idle workers that hold only cold, idle or duplicate models are restarted
// to give theirs back. A runtime holds at most what its 2 GiB of WebAssembly memory allows; models beyond go to
// further runtimes within the budget, which take turns on the `workers` slots (see placement.ts).
import { EngineError } from '../engine.js';
import { silentLogger, type Logger } from '../../lib/logger.js';
import { CHUNK_SEGMENTS, RequesterTurns, type Chunk, type Request } from './fair-batches.js';
import { RuntimeWorker } from './runtime-handle.js';
import { RUNTIME_HEAP_MAX_BYTES, copyDue, idleModels, planLoad } from './placement.js';
import type { BergamotPoolStats, LoadStats, PoolOptions } from './pool-options.js';

export type { BergamotPoolStats, LoadStats, ModelPayload, PoolOptions } from './pool-options.js';

export class WorkerPool {
  private workers: RuntimeWorker[] = [];
  private queue: Chunk[] = [];
  private seq = 0;
  private nextIndex = 0;
  private readonly turnsByRequester = new RequesterTurns();
  private closed = false;
  private trimTimer: { at: number; timer: NodeJS.Timeout } | undefined;
  /** Wakes dispatch when the oldest waiting chunk of a model will have waited long enough for another copy. */
  private spreadTimer: { at: number; timer: NodeJS.Timeout } | undefined;
  /** Recent duration of one batch, by model, ms (a moving average). */
  private readonly batchMs = new Map<string, number>();
  private readonly log: Logger;
  private readonly measured = new Map<string, number>();
  readonly loads: LoadStats[] = [];

  constructor(private readonly opts: PoolOptions) {
    this.log = opts.logger ?? silentLogger;
  }

  /** Starts the workers (done lazily on the first translation) and waits until each runtime is instantiated. */
  async start(): Promise<void> {
    if (this.workers.length === 0) for (let i = 0; i < this.opts.workers; i++) this.workers.push(this.spawn(this.nextIndex++));
    await Promise.all(this.workers.map((w) => w.ready));
  }

  private spawn(index: number): RuntimeWorker {
    return new RuntimeWorker(index, (w, err) => {
      const at = this.workers.indexOf(w);
      if (at < 0) return;
      this.workers.splice(at, 1);
      if (this.closed) return;
      if (!w.recycled) this.log.warn({ err, worker: index }, 'bergamot worker replaced');
      // A runtime started only to hold models is not replaced: there are enough for the cores.
      if (this.workers.length >= this.opts.workers) return;
      const replacement = this.spawn(index);
      this.workers.push(replacement);
      replacement.ready.then(() => this.dispatch(), () => {});
    });
  }

  get size(): number {
    return this.workers.length;
  }

  /** What the metrics show: workers (busy ones), requests waiting for one, and the models each worker holds. */
  stats(): BergamotPoolStats {
    return {
      workers: this.workers.length,
      busyWorkers: this.workers.filter((w) => w.busy).length,
      queuedRequests: new Set(this.queue.map((c) => c.request)).size,
      loadedModels: this.workers.flatMap((w) => [...w.loaded.keys()]),
    };
  }

  /** Memory of each worker's WebAssembly heap, bytes. */
  heapBytes(): number[] {
    return this.workers.map((w) => w.heapBytes);
  }

  /** Copies of each model, by model (loaded, not counting loads in progress). */
  copies(): Map<string, number> {
    const out = new Map<string, number>();
    for (const w of this.workers) for (const key of w.loaded.keys()) out.set(key, (out.get(key) ?? 0) + 1);
    return out;
  }

  translate(key: string, texts: string[], { signal, html = [], requester = '' }: { signal?: AbortSignal; html?: boolean[]; requester?: string } = {}): Promise<string[]> {
    if (this.closed) return Promise.reject(new EngineError('unavailable', 'bergamot engine is closed'));
    if (texts.length === 0) return Promise.resolve([]);
    if (this.workers.length === 0) {
      void this.start().catch(async (err: Error) => {
        // No runtime: fail what waits (503) and try again on the next request.
        this.log.error({ err }, 'bergamot runtime did not start');
        const failed = this.workers.splice(0);
        await Promise.all(failed.map((w) => w.worker.terminate()));
        const e = err instanceof EngineError ? err : new EngineError('unavailable', err.message);
        for (const chunk of this.queue.splice(0)) this.settle(chunk.request, e);
      });
    }
    return new Promise((resolve, reject) => {
      const request: Request = { key, requester, out: new Array<string>(texts.length), pending: 0, settled: false, timer: undefined, resolve, reject };
      for (let at = 0; at < texts.length; at += CHUNK_SEGMENTS) {
        const chunkTexts = texts.slice(at, at + CHUNK_SEGMENTS);
        this.queue.push({ request, at, texts: chunkTexts, html: chunkTexts.map((_, k) => html[at + k] === true), seq: this.seq++, queuedAt: performance.now() });
        request.pending++;
      }
      signal?.addEventListener('abort', () => this.settle(request, signal.reason instanceof Error ? signal.reason : new EngineError('failed', 'translation aborted')), { once: true });
      // The deadline counts from the moment the model is ready: a burst that arrives during a load waits for it.
      if (this.isReady(key)) this.startDeadline(request);
      this.dispatch();
    });
  }

  /** Frees a model in every worker (after its directory changed or disappeared). */
  async unload(key: string): Promise<void> {
    this.measured.delete(key);
    await Promise.all(
      this.workers.filter((w) => w.loaded.delete(key)).map((w) => w.call({ op: 'free', key }).catch(() => undefined)),
    );
  }

  private isReady(key: string): boolean {
    return this.workers.some((w) => !w.dead && w.loaded.has(key));
  }

  private startDeadline(request: Request): void {
    if (request.timer || request.settled) return;
    const ms = this.opts.requestTimeoutMs;
    request.timer = setTimeout(() => this.settle(request, new EngineError('timeout', `bergamot ${request.key}: no answer within ${ms} ms`)), ms);
  }

  /** Ends a request with its result or an error; its chunks still queued are dropped. */
  private settle(request: Request, err?: Error): void {
    if (request.settled) return;
    request.settled = true;
    clearTimeout(request.timer);
    if (err) {
      this.queue = this.queue.filter((c) => c.request !== request);
      request.reject(err);
    } else request.resolve(request.out);
  }

  /** Fails every queued request of a model. */
  private failQueued(key: string, err: Error): void {
    for (const chunk of this.queue.filter((c) => c.request.key === key)) this.settle(chunk.request, err);
  }

  private dispatch(): void {
    if (this.closed) return;
    // Models in the order of their oldest waiting chunk.
    const keys = [...new Set(this.queue.map((c) => c.request.key))];
    for (const key of keys) {
      for (;;) {
        if (this.busyWorkers() >= this.opts.workers) return; // every core has its runtime at work
        const waiting = this.queue.filter((c) => c.request.key === key);
        if (waiting.length === 0) break;
        const live = this.workers.filter((w) => !w.dead);
        const holder = live.find((w) => !w.busy && w.loaded.has(key));
        if (holder) {
          this.runBatch(holder, key, this.takeBatch(waiting));
          continue;
        }
        const loading = live.filter((w) => w.loading?.key === key).length;
        const copies = live.filter((w) => w.loaded.has(key)).length + loading;
        const segments = waiting.reduce((n, c) => n + c.texts.length, 0);
        // A first copy; another while more waits than the copies' next batches take, or while every copy is busy
        // with this model and the oldest request has waited longer than half a batch. A copy busy with another model
        // of its runtime is free after that batch: a load (seconds) would not serve these requests sooner.
        const ownTraffic = live.every((w) => !w.loaded.has(key) || w.running === key);
        if (copies === 0 || segments > copies * this.opts.maxBatchSegments || (ownTraffic && this.waitedForCopy(key, waiting, copies - loading, loading, segments))) {
          if (this.startLoad(key, copies === 0)) continue;
        }
        break;
      }
    }
  }

  private busyWorkers(): number {
    return this.workers.filter((w) => w.busy && !w.dead).length;
  }

  /**
   * Whether what waits for a model whose loaded copies are all busy has waited long enough for one more (copyDue);
   * before that moment, dispatch is woken up then.
   */
  private waitedForCopy(key: string, waiting: Chunk[], loaded: number, loading: number, segments: number): boolean {
    const due = copyDue(waiting[0]!.queuedAt, this.batchMs.get(key), loaded, loading, segments);
    if (due === undefined) return false;
    if (performance.now() >= due) return true;
    if (!this.spreadTimer || this.spreadTimer.at > due) {
      clearTimeout(this.spreadTimer?.timer);
      const timer = setTimeout(() => {
        this.spreadTimer = undefined;
        this.dispatch();
      }, Math.max(1, due - performance.now()));
      this.spreadTimer = { at: due, timer };
    }
    return false;
  }

  /** A moving average of the model's batch time. */
  private noteBatchTime(key: string, ms: number): void {
    this.batchMs.set(key, (this.batchMs.get(key) ?? ms) * 0.7 + ms * 0.3);
  }

  /** The next batch for a model, taken out of the queue (see RequesterTurns). */
  private takeBatch(waiting: Chunk[]): Chunk[] {
    const batch = this.turnsByRequester.pick(waiting, this.opts.maxBatchSegments);
    const taken = new Set(batch);
    this.queue = this.queue.filter((c) => !taken.has(c));
    this.turnsByRequester.forgetAllBut(new Set(this.queue.map((c) => c.request.requester)));
    return batch;
  }

  private runBatch(worker: RuntimeWorker, key: string, batch: Chunk[]): void {
    worker.busy = true;
    worker.running = key;
    void (async () => {
      try {
        const html = batch.flatMap((c) => c.html);
        const started = performance.now();
        const reply = await worker.call({ op: 'translate', key, texts: batch.flatMap((c) => c.texts), ...(html.includes(true) ? { html } : {}) });
        if (!reply.ok) throw this.fail(worker, reply);
        this.noteBatchTime(key, performance.now() - started);
        const loaded = worker.loaded.get(key);
        if (loaded) loaded.lastUsed = performance.now();
        let at = 0;
        for (const chunk of batch) {
          const { request } = chunk;
          for (let k = 0; k < chunk.texts.length; k++) request.out[chunk.at + k] = reply.texts![at + k]!;
          at += chunk.texts.length;
          if (--request.pending === 0) this.settle(request);
        }
      } catch (err) {
        const e = err instanceof EngineError ? err : new EngineError('failed', `bergamot: ${(err as Error).message}`, { cause: err });
        for (const chunk of batch) this.settle(chunk.request, e);
      } finally {
        worker.busy = false;
        worker.running = undefined;
        this.scheduleTrim();
        this.dispatch();
      }
    })();
  }

  private fail(worker: RuntimeWorker, reply: { message: string; fatal: boolean }): EngineError {
    if (reply.fatal) {
      worker.dead = true;
      void worker.worker.terminate();
    }
    return new EngineError('failed', `bergamot: ${reply.message}`);
  }

  /**
   * Starts loading `key` when the budget allows (see planLoad), after freeing what the plan frees; returns false when
   * it must wait for a busy worker. A first copy is loaded over the budget only when nothing else holds memory.
   */
  private startLoad(key: string, first: boolean): boolean {
    const estimate = this.measured.get(key) ?? this.opts.estimateBytes(key);
    const plan = planLoad(this.workers, { estimate, first, budget: this.opts.memoryBudgetBytes, runtimeHeapMax: this.opts.runtimeHeapMaxBytes ?? RUNTIME_HEAP_MAX_BYTES, queued: new Set(this.queue.map((c) => c.request.key)) });
    if (plan.kind === 'wait') return false;
    let worker: RuntimeWorker;
    if (plan.kind === 'new-runtime') {
      worker = this.spawn(this.nextIndex++);
      this.workers.push(worker);
      this.log.info({ model: key, worker: worker.index }, 'bergamot runtime started to hold another model');
    } else {
      worker = plan.worker;
      for (const victim of plan.free) {
        worker.loaded.delete(victim);
        void worker.call({ op: 'free', key: victim }).catch(() => undefined);
        this.log.info({ model: victim, worker: worker.index }, 'bergamot model evicted');
      }
      for (const w of plan.recycle) this.recycle(w, 'bergamot models evicted');
    }
    void this.load(worker, key, estimate);
    return true;
  }

  /** Restarts an idle worker so that its heap is given back; its models are gone. */
  private recycle(worker: RuntimeWorker, why: string): void {
    this.log.info({ models: [...worker.loaded.keys()], worker: worker.index }, why);
    worker.recycled = true;
    worker.dead = true;
    worker.loaded.clear();
    worker.heapBytes = 0;
    void worker.worker.terminate();
  }

  private async load(worker: RuntimeWorker, key: string, estimate: number): Promise<void> {
    worker.busy = true;
    worker.loading = { key, reserved: Math.max(0, estimate - worker.slackBytes()) };
    const started = performance.now();
    let timedOut = false;
    // A load runs inside the runtime and cannot be interrupted: past its limit, the worker is restarted.
    const limit = setTimeout(() => {
      if (worker.loading?.key !== key) return;
      timedOut = true;
      const err = new EngineError('timeout', `bergamot ${key}: the model did not load within ${this.opts.loadTimeoutMs} ms`);
      this.log.error({ model: key, worker: worker.index }, err.message);
      worker.dead = true;
      worker.loading = undefined;
      void worker.worker.terminate();
      if (!this.isReady(key) && !this.workers.some((w) => !w.dead && w.loading?.key === key)) this.failQueued(key, err);
    }, this.opts.loadTimeoutMs);
    try {
      const payload = await this.opts.loadModel(key);
      await worker.ready;
      const before = worker.heapBytes;
      const reply = await worker.call({ op: 'load', key, ...payload }, [payload.model, payload.shortlist, ...new Set(payload.vocabs)]);
      // One short sentence allocates the model's workspace now: the load then measures what the model really holds.
      const warmStarted = performance.now();
      const warm = reply.ok ? await worker.call({ op: 'translate', key, texts: ['Hello.'] }) : reply;
      if (!warm.ok) {
        this.opts.onLoadFailed?.(key, warm.message);
        throw this.fail(worker, warm);
      }
      if (worker.dead) return;
      if (!this.batchMs.has(key)) this.noteBatchTime(key, performance.now() - warmStarted);
      const grown = warm.heapBytes - before;
      const bytes = grown > 0 ? Math.max(grown, this.measured.get(key) ?? 0) : estimate;
      this.measured.set(key, bytes);
      worker.loaded.set(key, { bytes, lastUsed: performance.now() });
      const loadMs = performance.now() - started;
      this.loads.push({ key, worker: worker.index, bytes, loadMs });
      if (this.loads.length > 100) this.loads.shift();
      this.log.info({ model: key, worker: worker.index, ms: Math.round(loadMs), mb: Math.round(bytes / 1048576) }, 'bergamot model loaded');
      for (const chunk of this.queue) if (chunk.request.key === key) this.startDeadline(chunk.request);
    } catch (err) {
      if (!timedOut && !this.isReady(key)) {
        this.failQueued(key, err instanceof EngineError ? err : new EngineError('failed', `bergamot: ${(err as Error).message}`, { cause: err }));
      }
    } finally {
      clearTimeout(limit);
      worker.loading = undefined;
      worker.busy = false;
      this.scheduleTrim();
      this.dispatch();
    }
  }

  /**
   * After a burst, extra copies go back once their model's queue has stayed empty for spreadLingerMs; a model's last
   * copy goes back after idleUnloadMs unused.
   */
  private scheduleTrim(delayMs = this.opts.spreadLingerMs): void {
    const at = performance.now() + Math.max(1, delayMs);
    if (this.closed || (this.trimTimer && this.trimTimer.at <= at)) return;
    clearTimeout(this.trimTimer?.timer);
    const timer = setTimeout(() => {
      this.trimTimer = undefined;
      this.trim();
    }, at - performance.now());
    timer.unref();
    this.trimTimer = { at, timer };
  }

  private trim(): void {
    const now = performance.now();
    const queued = new Set(this.queue.map((c) => c.request.key));
    const { extra, nextDue } = idleModels(this.workers, queued, now, this.opts.spreadLingerMs, this.opts.idleUnloadMs);
    for (const [w, keys] of extra) {
      // All of its models: the whole heap goes back. Otherwise they are freed for this worker's next load.
      if (keys.length === w.loaded.size) this.recycle(w, 'bergamot idle models given back');
      else {
        for (const key of keys) {
          w.loaded.delete(key);
          void w.call({ op: 'free', key }).catch(() => undefined);
        }
      }
    }
    if (nextDue < Infinity) this.scheduleTrim(nextDue - now);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.trimTimer?.timer);
    clearTimeout(this.spreadTimer?.timer);
    const err = new EngineError('unavailable', 'bergamot engine is closed');
    for (const chunk of this.queue.splice(0)) this.settle(chunk.request, err);
    const workers = this.workers.splice(0);
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }
}
