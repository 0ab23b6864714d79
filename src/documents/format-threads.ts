// Document extraction and rebuilding run in worker threads (format-thread.ts), one document per thread at a time,
// so a hostile or huge file can never block the event loop that serves every other account. Each job has a time
// budget for its format work (time spent waiting for translations on the main thread is not counted): past it the
// thread is terminated and the job ends with a clear error, once. Threads are reused between jobs and ended when idle.
import { Worker } from 'node:worker_threads';
import { trimCHeap } from '../lib/c-heap.js';
import type { FromThread, ThreadData, ToThread } from './format-thread.js';
import { DocumentFormatError, type ExtractedDocument, type ExtractOptions, type PixelLimits } from './formats/index.js';

export interface FormatThreadsOptions {
  /** Format work one job may do (extraction plus rebuilding), in milliseconds. */
  budgetMs: number;
  /**
   * V8 heap of one thread: a document that needs more ends in error instead of exhausting the server's memory.
   * Native memory (canvases, decoded images, buffers) is outside it: `limits` bound that.
   */
  maxHeapMb?: number;
  /** Pixels the formats may draw and decode (format.ts DEFAULT_PIXEL_LIMITS unless given). */
  limits?: PixelLimits;
  /** A thread idle this long is ended (each holds ~50 MiB with every format loaded); the next job starts one. */
  idleMs?: number;
}

/** Default of FormatThreadsOptions.idleMs: a burst of documents leaves no threads behind a minute later. */
const IDLE_MS = 30_000;

/** A document extracted in a thread: rebuilding runs there too. `release` hands the thread back when done. */
export interface ThreadDocument extends ExtractedDocument {
  release(): void;
}

type Reply = Extract<FromThread, { kind: 'extracted' | 'output' }>;

const THREAD_URL = new URL('./format-thread.js', import.meta.url);
/** Time a given-up thread has to kill its job's child processes before it is terminated. */
const ABORT_GRACE_MS = 200;

export class FormatThreads {
  private readonly idle: Worker[] = [];
  private readonly all = new Set<Worker>();
  private readonly retiring = new WeakSet<Worker>();
  private readonly idleTimers = new Map<Worker, NodeJS.Timeout>();

  constructor(private readonly o: FormatThreadsOptions) {}

  /** Parses a document in a thread; throws DocumentFormatError for a file the format cannot read or over budget. */
  async extract(format: string, input: Buffer, options: ExtractOptions, signal: AbortSignal): Promise<ThreadDocument> {
    const session = new Session(this, this.take(), this.o.budgetMs, signal);
    try {
      const bytes = new Uint8Array(input);
      const r = await session.call({ op: 'extract', format, input: bytes, options }, [bytes.buffer as ArrayBuffer]);
      if (r.kind !== 'extracted') throw new Error('unexpected reply from the document thread');
      const output = async (m: ToThread) => {
        const o = await session.call(m);
        if (o.kind !== 'output') throw new Error('unexpected reply from the document thread');
        return Buffer.from(o.bytes.buffer, o.bytes.byteOffset, o.bytes.byteLength);
      };
      return {
        segments: r.segments,
        characters: r.characters,
        ...(r.billedCharacters !== undefined ? { billedCharacters: r.billedCharacters } : {}),
        ...(r.notice !== undefined ? { notice: r.notice } : {}),
        rebuild: (translations) => output({ op: 'rebuild', translations }),
        ...(r.rebuildAs ? { rebuildAs: (outputFormat: string, translations: string[]) => output({ op: 'rebuildAs', outputFormat, translations }) } : {}),
        ...(r.translateWith
          ? {
              translateWith: (translate: (texts: string[]) => Promise<string[]>, outputFormat?: string) => {
                session.translate = translate;
                return output({ op: 'translateWith', ...(outputFormat !== undefined ? { outputFormat } : {}) });
              },
            }
          : {}),
        release: () => session.release(),
      };
    } catch (err) {
      session.release();
      throw err;
    }
  }

  /** Starts one thread ahead of the first job (loading every format takes a second or two), unless one exists. */
  warm(): void {
    if (this.all.size === 0) this.park(this.spawn());
  }

  /** The heap limit of a thread in MB, when one is set. */
  get maxHeapMb(): number | undefined {
    return this.o.maxHeapMb;
  }

  /** Threads alive, busy or idle. */
  get size(): number {
    return this.all.size;
  }

  /** Terminates every thread (running jobs fail; their leases expire and another start resumes them). */
  async close(): Promise<void> {
    const threads = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    await Promise.allSettled(threads.map((w) => w.terminate()));
  }

  private take(): Worker {
    const w = this.idle.pop();
    if (!w) return this.spawn();
    clearTimeout(this.idleTimers.get(w));
    this.idleTimers.delete(w);
    return w;
  }

  /** Keeps a thread for the next job, for idleMs at most. */
  private park(w: Worker): void {
    this.idle.push(w);
    const timer = setTimeout(() => {
      this.idleTimers.delete(w);
      void w.terminate();
    }, this.o.idleMs ?? IDLE_MS);
    timer.unref();
    this.idleTimers.set(w, timer);
  }

  private spawn(): Worker {
    const workerData: ThreadData = this.o.limits ? { limits: this.o.limits } : {};
    const w = new Worker(THREAD_URL, { workerData, ...(this.o.maxHeapMb ? { resourceLimits: { maxOldGenerationSizeMb: this.o.maxHeapMb } } : {}) });
    w.unref(); // an idle thread never keeps the process alive
    // A thread that fails outside a job is dropped (an 'error' event without a listener would end the process).
    w.on('error', () => undefined);
    w.on('exit', () => {
      this.all.delete(w);
      const at = this.idle.indexOf(w);
      if (at >= 0) this.idle.splice(at, 1);
      clearTimeout(this.idleTimers.get(w));
      this.idleTimers.delete(w);
      // What the thread freed stays in its glibc arena until trimmed (docs/benchmarks.md, issue 31).
      trimCHeap();
    });
    this.all.add(w);
    return w;
  }

  /** @internal a session is done with its thread: reused when healthy, else terminated. */
  giveBack(w: Worker, healthy: boolean): void {
    if (healthy && this.all.has(w)) this.park(w);
    else this.retire(w);
  }

  /**
   * Ends a thread whose job was given up: it is first told to abort the job, so the child processes it started (OCR)
   * are killed — terminating a thread does not end them — and terminated shortly after, done or not.
   */
  retire(w: Worker): void {
    if (this.retiring.has(w)) return;
    this.retiring.add(w);
    w.postMessage({ op: 'abort' } satisfies ToThread);
    setTimeout(() => void w.terminate(), ABORT_GRACE_MS).unref();
  }
}

/** One job's conversation with its thread: one call at a time, the budget clock running only while the thread works. */
class Session {
  translate: ((texts: string[]) => Promise<string[]>) | undefined;
  private pending: { resolve: (r: Reply) => void; reject: (e: Error) => void } | undefined;
  private remaining: number;
  private clockStart = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Translations the thread is waiting for (its clock is stopped meanwhile). */
  private waiting = 0;
  /** The first failure of a translation the thread asked for: the job's real error. */
  private translateError: unknown;
  private broken = false;
  /** translateWith failed: its other translation lanes may still be running in the thread, so it is not reused. */
  private failed = false;
  private released = false;

  constructor(
    private readonly threads: FormatThreads,
    private readonly worker: Worker,
    private readonly budgetMs: number,
    private readonly signal: AbortSignal,
  ) {
    this.remaining = budgetMs;
    worker.on('message', this.onMessage);
    worker.on('error', this.onError);
    worker.on('exit', this.onExit);
    signal.addEventListener('abort', this.onAbort);
  }

  call(message: ToThread, transfer: ArrayBuffer[] = []): Promise<Reply> {
    if (this.signal.aborted) return Promise.reject(new DocumentFormatError('Translation was cancelled.'));
    if (this.broken || this.released) return Promise.reject(new Error('the document thread is gone'));
    return new Promise<Reply>((resolve, reject) => {
      this.pending = { resolve, reject };
      this.startClock();
      this.worker.postMessage(message, transfer);
    });
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.stopClock();
    this.worker.off('message', this.onMessage);
    this.worker.off('error', this.onError);
    this.worker.off('exit', this.onExit);
    this.signal.removeEventListener('abort', this.onAbort);
    this.threads.giveBack(this.worker, !this.broken && !this.failed && this.pending === undefined);
  }

  private startClock(): void {
    if (this.timer || this.waiting > 0 || !this.pending) return;
    this.clockStart = performance.now();
    this.timer = setTimeout(() => this.fail(this.overBudget()), Math.max(0, this.remaining));
  }

  private stopClock(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.remaining -= performance.now() - this.clockStart;
  }

  private overBudget(): DocumentFormatError {
    const limit = this.budgetMs >= 1000 ? `${Math.round(this.budgetMs / 100) / 10} s` : `${this.budgetMs} ms`;
    return new DocumentFormatError(`Processing the document took longer than ${limit}, the limit for one document; it was stopped.`);
  }

  /** Ends the pending call with `err` and discards the thread (its state is unknown). */
  private fail(err: Error): void {
    this.stopClock();
    this.broken = true;
    this.threads.retire(this.worker);
    const p = this.pending;
    this.pending = undefined;
    p?.reject(err);
  }

  private settle(reply: Reply | Error): void {
    this.stopClock();
    const p = this.pending;
    this.pending = undefined;
    if (reply instanceof Error) p?.reject(reply);
    else p?.resolve(reply);
  }

  private readonly onMessage = (m: FromThread): void => {
    if (m.kind === 'translate') {
      this.stopClock();
      this.waiting++;
      const answer = (texts?: string[]) => {
        this.waiting--;
        if (this.broken || this.released) return;
        this.startClock();
        this.worker.postMessage({ op: 'translated', id: m.id, ...(texts ? { texts } : {}) } satisfies ToThread);
      };
      const translate = this.translate;
      (translate ? translate(m.texts) : Promise.reject(new Error('no translator for this call'))).then(answer, (err: unknown) => {
        this.translateError ??= err;
        answer();
      });
      return;
    }
    if (m.kind === 'failed') {
      if (this.translate) this.failed = true;
      if (this.translateError !== undefined) return this.settle(this.translateError as Error);
      const err = m.formatError ? new DocumentFormatError(m.message) : new Error(m.message);
      if (m.stack) err.stack = m.stack;
      return this.settle(err);
    }
    this.settle(m);
  };

  private readonly onError = (err: Error): void => {
    const oom = (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
    const allowed = this.threads.maxHeapMb === undefined ? '' : ` (${this.threads.maxHeapMb} MB)`;
    this.fail(oom ? new DocumentFormatError(`The document needs more memory than this server allows for one document${allowed}; it was stopped.`) : err);
  };

  private readonly onExit = (): void => {
    if (!this.broken) this.fail(new Error('the document thread exited'));
  };

  private readonly onAbort = (): void => this.fail(new DocumentFormatError('Translation was cancelled.'));
}
