// Background WAL checkpoints for the SQLite store. A checkpoint copies the WAL back into the database file and
// fsyncs both; run by SQLite's default auto-checkpoint it lands on whichever commit crosses 1,000 WAL pages, on the
// event loop (milliseconds each, several a second at 1,500 translate requests/s: a charge cost 53 µs with them and
// 29 µs without). Here a worker thread with its own connection checkpoints on a timer instead, and the server's
// connection only appends to the WAL.
import { Worker } from 'node:worker_threads';

/** How often the worker checkpoints; bounds the WAL to about this long of writes. */
export const WAL_CHECKPOINT_INTERVAL_MS = 500;

export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  /** `onFailure` runs once if the worker dies: the caller turns SQLite's own checkpoints back on. */
  constructor(file: string, onFailure: (err: Error) => void, intervalMs = WAL_CHECKPOINT_INTERVAL_MS) {
    this.worker = new Worker(new URL('./wal-checkpoint-worker.js', import.meta.url), { workerData: { file, intervalMs } });
    // the checkpointer alone must not keep the process alive
    this.worker.unref();
    this.worker.once('error', onFailure);
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
  }

  /** Stops the worker after its current checkpoint; resolves when it has closed its connection. */
  async stop(): Promise<void> {
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.exited;
  }
}
