// Worker threads running the Bergamot runtime: one queue of translation jobs, batched per model, each model loaded
// into a worker on first use and evicted least-recently-used when the memory budget is reached.
import { Worker } from 'node:worker_threads';
import { EngineError } from '../engine.js';
import { silentLogger, type Logger } from '../../lib/logger.js';
import type { CallReply, WorkerCall, WorkerReply } from './runtime-worker.js';

export interface ModelPayload {
  config: string;
  model: ArrayBuffer;
  shortlist: ArrayBuffer;
  vocabs: ArrayBuffer[];
}

export interface PoolOptions {
  workers: number;
  memoryBudgetBytes: number;
  /** Most segments in one runtime call. */
  maxBatchSegments: number;
  /** Reads a model's files (called once per worker that loads the model). */
  loadModel: (key: string) => Promise<ModelPayload>;
  /** First guess of a model's memory before one load has been measured. */
  estimateBytes: (key: string) => number;
  /** The runtime refused to load a model (it aborted): the engine stops offering it. */
  onLoadFailed?: (key: string, reason: string) => void;
  logger?: Logger;
}

export interface BergamotPoolStats {
  workers: number;
  busyWorkers: number;
  queuedRequests: number;
  /** One entry per worker holding a model (a model loaded in two workers is listed twice). */
  loadedModels: string[];
}

interface Job {
  key: string;
  texts: string[];
  resolve: (out: string[]) => void;
  reject: (err: Error) => void;
  signal: AbortSignal | undefined;
}

interface Loaded {
  bytes: number;
  lastUsed: number;
}

export interface LoadStats {
  key: string;
  worker: number;
  bytes: number;
  loadMs: number;
}

class RuntimeWorker {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  busy = false;
  /** Aborted or exited: never given work again (its replacement is on the way). */
  dead = false;
  heapBytes = 0;
  readonly loaded = new Map<string, Loaded>();
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: CallReply) => void; reject: (e: Error) => void }>();

  constructor(
    readonly index: number,
    onExit: (w: RuntimeWorker, err: Error) => void,
  ) {
    this.worker = new Worker(new URL('./runtime-worker.js', import.meta.url));
    this.ready = new Promise((resolve, reject) => {
      this.worker.once('message', (m: WorkerReply) => {
        if ('ready' in m && m.ready) {
          this.heapBytes = m.heapBytes;
          resolve();
        } else reject(new EngineError('unavailable', `bergamot runtime did not start: ${'message' in m ? m.message : 'unknown'}`));
        this.worker.on('message', (r: WorkerReply) => this.settle(r));
      });
    });
    this.ready.catch(() => {});
    const fail = (err: Error) => {
      this.dead = true;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      onExit(this, err);
    };
    this.worker.on('error', (err) => fail(new EngineError('failed', `bergamot worker crashed: ${err.message}`, { cause: err })));
    this.worker.on('exit', (code) => fail(new EngineError('failed', `bergamot worker exited (${code})`)));
  }

  private settle(reply: WorkerReply): void {
    if (!('id' in reply)) return;
    const p = this.pending.get(reply.id);
    this.pending.delete(reply.id);
    if (reply.ok) this.heapBytes = reply.heapBytes;
    p?.resolve(reply);
  }

  async call(req: WorkerCall, transfer: ArrayBuffer[] = []): Promise<CallReply> {
    await this.ready;
    if (this.dead) throw new EngineError('failed', 'bergamot worker is gone');
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id }, transfer);
    });
  }
}

export class WorkerPool {
  private workers: RuntimeWorker[] = [];
  private queue: Job[] = [];
  private closed = false;
  private readonly log: Logger;
  private readonly measured = new Map<string, number>();
  readonly loads: LoadStats[] = [];

  constructor(private readonly opts: PoolOptions) {
    this.log = opts.logger ?? silentLogger;
  }

  /** Starts the workers (done lazily on the first translation) and waits until each runtime is instantiated. */
  async start(): Promise<void> {
    if (this.workers.length === 0) for (let i = 0; i < this.opts.workers; i++) this.workers.push(this.spawn(i));
    await Promise.all(this.workers.map((w) => w.ready));
  }

  private spawn(index: number): RuntimeWorker {
    return new RuntimeWorker(index, (w, err) => {
      const at = this.workers.indexOf(w);
      if (at < 0) return;
      this.workers.splice(at, 1);
      if (this.closed) return;
      this.log.warn({ err, worker: index }, 'bergamot worker replaced');
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
      queuedRequests: this.queue.length,
      loadedModels: this.workers.flatMap((w) => [...w.loaded.keys()]),
    };
  }

  /** Memory of each worker's WebAssembly heap, bytes. */
  heapBytes(): number[] {
    return this.workers.map((w) => w.heapBytes);
  }

  translate(key: string, texts: string[], signal?: AbortSignal): Promise<string[]> {
    if (this.closed) return Promise.reject(new EngineError('unavailable', 'bergamot engine is closed'));
    if (this.workers.length === 0) {
      void this.start().catch(async (err: Error) => {
        // No runtime: fail what waits (503) and try again on the next request.
        this.log.error({ err }, 'bergamot runtime did not start');
        const failed = this.workers.splice(0);
        await Promise.all(failed.map((w) => w.worker.terminate()));
        for (const job of this.queue.splice(0)) job.reject(err instanceof EngineError ? err : new EngineError('unavailable', err.message));
      });
    }
    return new Promise((resolve, reject) => {
      const job: Job = { key, texts, resolve, reject, signal };
      signal?.addEventListener(
        'abort',
        () => {
          const at = this.queue.indexOf(job);
          if (at >= 0) this.queue.splice(at, 1);
          reject(signal.reason instanceof Error ? signal.reason : new EngineError('failed', 'translation aborted'));
        },
        { once: true },
      );
      this.queue.push(job);
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

  private dispatch(): void {
    while (this.queue.length > 0) {
      const key = this.queue[0]!.key;
      const idle = this.workers.filter((w) => !w.busy && !w.dead);
      if (idle.length === 0) return;
      const worker = idle.find((w) => w.loaded.has(key)) ?? idle.find((w) => w.loaded.size === 0) ?? idle[0]!;
      // Waiting jobs for this model join one batch (the segments of concurrent requests run together), shared out
      // between the idle workers so that none waits while another translates everything.
      const waiting = this.queue.reduce((n, job) => n + (job.key === key ? job.texts.length : 0), 0);
      const limit = Math.min(this.opts.maxBatchSegments, Math.ceil(waiting / idle.length));
      const batch: Job[] = [];
      let segments = 0;
      this.queue = this.queue.filter((job) => {
        if (job.key !== key || (segments > 0 && segments + job.texts.length > limit)) return true;
        batch.push(job);
        segments += job.texts.length;
        return false;
      });
      worker.busy = true;
      this.runBatch(worker, key, batch).finally(() => {
        worker.busy = false;
        this.dispatch();
      });
    }
  }

  private async runBatch(worker: RuntimeWorker, key: string, batch: Job[]): Promise<void> {
    try {
      await this.ensureLoaded(worker, key);
      const texts = batch.flatMap((j) => j.texts);
      const reply = await worker.call({ op: 'translate', key, texts });
      if (!reply.ok) throw this.fail(worker, reply);
      worker.loaded.get(key)!.lastUsed = performance.now();
      let at = 0;
      for (const job of batch) {
        job.resolve(reply.texts!.slice(at, at + job.texts.length));
        at += job.texts.length;
      }
    } catch (err) {
      const e = err instanceof EngineError ? err : new EngineError('failed', `bergamot: ${(err as Error).message}`, { cause: err });
      for (const job of batch) job.reject(e);
    }
  }

  private fail(worker: RuntimeWorker, reply: { message: string; fatal: boolean }): EngineError {
    if (reply.fatal) {
      worker.dead = true;
      void worker.worker.terminate();
    }
    return new EngineError('failed', `bergamot: ${reply.message}`);
  }

  private totalLoaded(): number {
    let sum = 0;
    for (const w of this.workers) for (const l of w.loaded.values()) sum += l.bytes;
    return sum;
  }

  private async ensureLoaded(worker: RuntimeWorker, key: string): Promise<void> {
    if (worker.loaded.has(key)) return;
    const estimate = this.measured.get(key) ?? this.opts.estimateBytes(key);
    // Evict least recently used models (in any idle worker, this one included) until the new one fits.
    while (this.totalLoaded() + estimate > this.opts.memoryBudgetBytes) {
      let victim: { w: RuntimeWorker; key: string; at: number } | undefined;
      for (const w of this.workers) {
        if (w.busy && w !== worker) continue;
        for (const [k, l] of w.loaded) if (!victim || l.lastUsed < victim.at) victim = { w, key: k, at: l.lastUsed };
      }
      if (!victim) break;
      victim.w.loaded.delete(victim.key);
      await victim.w.call({ op: 'free', key: victim.key }).catch(() => undefined);
      this.log.info({ model: victim.key, worker: victim.w.index }, 'bergamot model evicted');
    }
    const started = performance.now();
    const payload = await this.opts.loadModel(key);
    const before = worker.heapBytes;
    const reply = await worker.call({ op: 'load', key, ...payload }, [payload.model, payload.shortlist, ...new Set(payload.vocabs)]);
    // One short sentence allocates the model's workspace now: the load then measures what the model really holds.
    const warm = reply.ok ? await worker.call({ op: 'translate', key, texts: ['Hello.'] }) : reply;
    if (!warm.ok) {
      this.opts.onLoadFailed?.(key, warm.message);
      throw this.fail(worker, warm);
    }
    const grown = warm.heapBytes - before;
    const bytes = grown > 0 ? Math.max(grown, this.measured.get(key) ?? 0) : estimate;
    this.measured.set(key, bytes);
    worker.loaded.set(key, { bytes, lastUsed: performance.now() });
    const loadMs = performance.now() - started;
    this.loads.push({ key, worker: worker.index, bytes, loadMs });
    if (this.loads.length > 100) this.loads.shift();
    this.log.info({ model: key, worker: worker.index, ms: Math.round(loadMs), mb: Math.round(bytes / 1048576) }, 'bergamot model loaded');
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new EngineError('unavailable', 'bergamot engine is closed'));
    const workers = this.workers.splice(0);
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }
}
