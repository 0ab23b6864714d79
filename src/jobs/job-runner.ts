// The one job system of background work (document translation, TMX import and export): jobs are rows under a lease
// in the database, so any node runs any job. A runner claims jobs with bounded concurrency, renews each lease while
// its handler works, and on shutdown hands running jobs back so another worker or node takes them at once; a node
// that died leaves its leases to expire, and any runner then claims the job again (the claim counts an attempt).
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from '../lib/logger.js';

export interface JobProgress {
  done: number;
  total: number;
}

/** What a job kind's table offers the runner; claims must be atomic across nodes (SKIP LOCKED on PostgreSQL). */
export interface JobQueue<J> {
  /** Claims the oldest runnable job (waiting, or held under an expired lease) for `owner`, counting an attempt. */
  claimNext(owner: string, now: number, leaseMs: number): Promise<J | undefined>;
  /** Extends the lease of a job `owner` holds (recording progress where the table keeps it); false when lost. */
  renew(id: string, owner: string, leaseExpiresAt: number, progress: JobProgress): Promise<boolean>;
  /** Returns a job `owner` holds to the queue, not counting its claim as an attempt; false when not held. */
  handBack(id: string, owner: string): Promise<boolean>;
}

/** A claimed job as its handler sees it. The handler ends the job itself (through its table, as `owner`). */
export interface RunningJob {
  readonly owner: string;
  /** Aborted when the lease was lost (another node took the job over) or the runner is closing. */
  readonly signal: AbortSignal;
  /** True once the runner is closing: the handler stops without ending the job, and the runner hands it back. */
  readonly closing: boolean;
  /** Renewals record it (documents show it in their status). */
  readonly progress: JobProgress;
}

export type JobHandler<J> = (job: J, running: RunningJob) => Promise<void>;

export interface JobRunnerOptions<J> {
  /** Prefixes the lease owner, so an operator can tell which node holds a job. */
  name: string;
  /** Names the job kind in log lines ("document" → "document job handed back …"), with its id under `idField`. */
  label: string;
  idField: string;
  queue: JobQueue<J>;
  handler: JobHandler<J>;
  idOf: (job: J) => string;
  /** Jobs run at once on this node (0: never claims). */
  concurrency: number;
  leaseMs: number;
  /** How often an idle runner looks for jobs queued or abandoned by other nodes (local work wakes it at once). */
  pollIntervalMs: number;
  now: () => number;
  logger: Logger;
}

export class JobRunner<J> {
  readonly owner: string;
  /** Emits the id of every job that leaves this runner (ended, handed back or lost), so waiting requests re-read it. */
  readonly ended = new EventEmitter().setMaxListeners(0);
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private claiming: Promise<void> | undefined;
  private wakeAgain = false;
  private readonly jobs = new Set<Promise<void>>();
  private readonly aborts = new Set<AbortController>();

  constructor(private readonly o: JobRunnerOptions<J>) {
    this.owner = `${o.name}-${randomBytes(6).toString('hex')}`;
  }

  get started(): boolean {
    return this.running;
  }

  /** Starts claiming: first what is waiting (or was left behind by a dead node), then on every wake and poll. */
  start(): void {
    if (this.running || this.o.concurrency <= 0) return;
    this.running = true;
    this.o.logger.info({ worker: this.owner }, `${this.o.label} worker started`);
    this.timer = setInterval(() => this.wake(), this.o.pollIntervalMs);
    this.timer.unref();
    this.wake();
  }

  /** Looks for work now (called when this node queues a job, so it starts without waiting for a poll). */
  wake(): void {
    if (!this.running) return;
    if (this.claiming) {
      this.wakeAgain = true;
      return;
    }
    this.claiming = this.fill().finally(() => {
      this.claiming = undefined;
      if (this.wakeAgain) {
        this.wakeAgain = false;
        this.wake();
      }
    });
  }

  /** Resolves once no claim is under way and no job runs here (tests, and callers that wait for local work). */
  async idle(): Promise<void> {
    while (this.claiming || this.jobs.size > 0) await Promise.allSettled([this.claiming, ...this.jobs]);
  }

  /** Stops claiming; running jobs stop at their next check and go back to the queue for another worker or node. */
  async close(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const a of this.aborts) a.abort();
    await this.idle();
  }

  private async fill(): Promise<void> {
    while (this.running && this.jobs.size < this.o.concurrency) {
      let job: J | undefined;
      try {
        job = await this.o.queue.claimNext(this.owner, this.o.now(), this.o.leaseMs);
      } catch (err) {
        this.o.logger.error({ err }, `${this.o.label} queue: claim failed`);
        return;
      }
      if (!job) return;
      const run = this.run(job).finally(() => {
        this.jobs.delete(run);
        this.wake();
      });
      this.jobs.add(run);
    }
  }

  private async run(job: J): Promise<void> {
    const id = this.o.idOf(job);
    const abort = new AbortController();
    this.aborts.add(abort);
    const runner = this;
    const running: RunningJob = {
      owner: this.owner,
      signal: abort.signal,
      get closing() {
        return !runner.running;
      },
      progress: { done: 0, total: 0 },
    };
    const beat = setInterval(() => {
      void this.o.queue
        .renew(id, this.owner, this.o.now() + this.o.leaseMs, running.progress)
        .then((held) => held || abort.abort())
        .catch(() => {}); // a failed renewal is retried at the next beat; the lease outlives two of them
    }, Math.max(50, Math.floor(this.o.leaseMs / 3)));
    beat.unref();
    try {
      await this.o.handler(job, running);
    } catch (err) {
      this.o.logger.error({ err, [this.o.idField]: id }, `${this.o.label} job failed`);
    } finally {
      clearInterval(beat);
      this.aborts.delete(abort);
    }
    // Shutdown: a job its handler did not end goes back to the queue at once (no lease to wait out); a failed
    // hand-back leaves the lease to expire.
    if (running.closing) {
      await this.o.queue
        .handBack(id, this.owner)
        .then((back) => back && this.o.logger.info({ [this.o.idField]: id }, `${this.o.label} job handed back for another worker`))
        .catch((err) => this.o.logger.error({ err, [this.o.idField]: id }, `${this.o.label} queue: could not hand a job back`));
    }
    this.ended.emit('ended', id);
  }
}
