// One worker thread running the Bergamot runtime, as the pool sees it: its calls, the models it holds and the size of
// its WebAssembly heap (which never shrinks, so the pool counts it rather than the models' own sizes).
import { Worker } from 'node:worker_threads';
import { EngineError } from '../engine.js';
import type { CallReply, WorkerCall, WorkerReply } from './runtime-worker.js';

export interface Loaded {
  bytes: number;
  lastUsed: number;
}

export class RuntimeWorker {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  busy = false;
  /** Model whose batch it is translating now. */
  running: string | undefined;
  /** Aborted or exited: never given work again (its replacement is on the way). */
  dead = false;
  /** Restarted on purpose to give its memory back. */
  recycled = false;
  heapBytes = 0;
  /** The heap of the bare runtime, before any model. */
  baseHeapBytes = 0;
  /** Model being loaded, and the memory reserved for it until its load is measured. */
  loading: { key: string; reserved: number } | undefined;
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
          this.heapBytes = this.baseHeapBytes = m.heapBytes;
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

  /** Free space inside the heap: what models freed here left behind, reusable by the next load in this worker. */
  slackBytes(): number {
    let used = this.baseHeapBytes;
    for (const l of this.loaded.values()) used += l.bytes;
    return Math.max(0, this.heapBytes - used);
  }

  /** The most recent use of any of its models (0: holds none). */
  lastUsed(): number {
    let at = 0;
    for (const l of this.loaded.values()) at = Math.max(at, l.lastUsed);
    return at;
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
