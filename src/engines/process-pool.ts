// A bounded pool of warm child processes shared fairly between accounts: a queue per account served round-robin,
// a deadline per request (the process working on it is killed and replaced), cancellation when the caller's signal
// aborts, and recycling of processes by age, by tasks served and by resident memory.
import { readFileSync } from 'node:fs';
import { EngineError } from './engine.js';

/** One warm process (or a small group of them) the pool hands to one task at a time. */
export interface PooledProcess {
  /** Process ids, for memory checks and for tests. */
  readonly pids: number[];
  /** False once any of its processes has exited: the pool drops it. */
  readonly alive: boolean;
  /** Ends every process now (SIGKILL; `alive` is false at once); a task still using it fails. */
  kill(): void;
}

export interface ProcessPoolOptions<P extends PooledProcess> {
  /** Names the pool in error messages ("hunspell en_US"). */
  name: string;
  create(): P;
  /** Processes at most. */
  size: number;
  /** Processes one account may hold at once; default size - 1 (at least 1), so another account always finds one. */
  maxPerAccount?: number;
  /** Waiting tasks per account; beyond, a task fails at once as overloaded. */
  maxQueuePerAccount?: number;
  /** Default deadline of a task, queueing included. */
  deadlineMs: number;
  /** A process is replaced after this long… */
  maxAgeMs?: number;
  /** …after serving this many tasks… */
  maxTasks?: number;
  /** …or once its resident memory (all its processes, VmRSS) exceeds this, checked after each task. */
  maxRssBytes?: number;
  now?: () => number;
}

export interface TaskOptions {
  /** Who the task is for: each account has its own queue. */
  account?: string;
  signal?: AbortSignal | undefined;
  deadlineMs?: number;
}

interface Slot<P> {
  process: P;
  startedAt: number;
  tasks: number;
  busy: boolean;
}

interface Waiting<P> {
  account: string;
  start(slot: Slot<P>): void;
  fail(err: Error): void;
}

const MAX_REMEMBERED_ACCOUNTS = 4096;

/** Resident memory of a process in bytes (0 when it is gone or /proc is not there). */
export function residentBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export class ProcessPool<P extends PooledProcess> {
  private readonly slots: Slot<P>[] = [];
  private readonly queues = new Map<string, Waiting<P>[]>();
  /** When each account with waiting or running tasks was last served (a serial number): the longest-waiting goes first. */
  private readonly lastServed = new Map<string, number>();
  private served = 0;
  private readonly holding = new Map<string, number>();
  private readonly now: () => number;
  private closed = false;
  /** Processes replaced so far, by reason (tests and logs). */
  readonly replaced = { deadline: 0, cancelled: 0, age: 0, tasks: 0, memory: 0, died: 0 };

  constructor(private readonly o: ProcessPoolOptions<P>) {
    this.now = o.now ?? Date.now;
  }

  private get maxPerAccount(): number {
    return this.o.maxPerAccount ?? Math.max(1, this.o.size - 1);
  }

  /** Runs `task` with a process of its own; the process is killed when the deadline passes or the signal aborts. */
  run<T>(task: (process: P) => Promise<T>, options: TaskOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(new EngineError('failed', `${this.o.name}: closed`));
    const account = options.account ?? '';
    const queue = this.queues.get(account) ?? [];
    if (queue.length >= (this.o.maxQueuePerAccount ?? 256)) {
      return Promise.reject(new EngineError('overloaded', `${this.o.name}: too many requests of one account waiting`));
    }
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const deadlineMs = options.deadlineMs ?? this.o.deadlineMs;
    return new Promise<T>((resolve, reject) => {
      let slot: Slot<P> | undefined;
      let settled = false;
      let killed = false;
      const settle = (err: Error | undefined, value?: T) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (slot) this.giveBack(account, slot, killed);
        else this.forget(account, waiting);
        if (err) reject(err);
        else resolve(value as T);
      };
      // A process still working on an abandoned task is killed: its answer would come too late for anyone.
      const stop = (err: Error, reason: 'deadline' | 'cancelled') => {
        if (settled) return;
        if (slot && slot.process.alive) {
          this.replaced[reason]++;
          slot.process.kill();
          killed = true;
        }
        settle(err);
      };
      const timer = setTimeout(
        () => stop(new EngineError('timeout', `${this.o.name}: no answer within ${deadlineMs / 1000} s`), 'deadline'),
        deadlineMs,
      );
      const onAbort = () => stop(abortError(signal!), 'cancelled');
      signal?.addEventListener('abort', onAbort, { once: true });
      const waiting: Waiting<P> = {
        account,
        start: (s) => {
          slot = s;
          task(s.process).then(
            (value) => settle(undefined, value),
            (err: unknown) => settle(err instanceof Error ? err : new EngineError('failed', String(err))),
          );
        },
        fail: (err) => settle(err),
      };
      queue.push(waiting);
      this.queues.set(account, queue);
      this.dispatch();
    });
  }

  private forget(account: string, waiting: Waiting<P>): void {
    const queue = this.queues.get(account);
    const i = queue?.indexOf(waiting) ?? -1;
    if (i >= 0) queue!.splice(i, 1);
    if (queue && queue.length === 0) this.queues.delete(account);
    this.forgetIdle();
  }

  /**
   * An account's turn is remembered between its requests (a request's next batch must not count as a newcomer's);
   * only when very many accounts were seen are those with nothing waiting or running forgotten.
   */
  private forgetIdle(): void {
    if (this.lastServed.size < MAX_REMEMBERED_ACCOUNTS) return;
    for (const account of this.lastServed.keys()) if (!this.queues.has(account) && !this.holding.has(account)) this.lastServed.delete(account);
  }

  /** After a task: the process goes back idle, or is replaced when it died, grew old, served enough or grew big. */
  private giveBack(account: string, slot: Slot<P>, killed: boolean): void {
    slot.busy = false;
    slot.tasks++;
    this.holding.set(account, (this.holding.get(account) ?? 1) - 1);
    if (this.holding.get(account)! <= 0) this.holding.delete(account);
    this.forgetIdle();
    const reason = !slot.process.alive
      ? undefined
      : this.o.maxAgeMs !== undefined && this.now() - slot.startedAt >= this.o.maxAgeMs
        ? 'age'
        : this.o.maxTasks !== undefined && slot.tasks >= this.o.maxTasks
          ? 'tasks'
          : this.o.maxRssBytes !== undefined && slot.process.pids.reduce((n, pid) => n + residentBytes(pid), 0) > this.o.maxRssBytes
            ? 'memory'
            : undefined;
    if (reason) {
      this.replaced[reason]++;
      slot.process.kill();
    } else if (!slot.process.alive && !killed) this.replaced.died++;
    const at = this.slots.indexOf(slot);
    if (!slot.process.alive && at >= 0) this.slots.splice(at, 1);
    this.dispatch();
  }

  /** The waiting account served longest ago (never served first) among those holding fewer than their share. */
  private nextAccount(): string | undefined {
    let best: string | undefined;
    let bestServed = Infinity;
    for (const account of this.queues.keys()) {
      if ((this.holding.get(account) ?? 0) >= this.maxPerAccount) continue;
      const served = this.lastServed.get(account) ?? -1;
      if (served < bestServed) [best, bestServed] = [account, served];
    }
    return best;
  }

  /** Hands free processes to waiting tasks, round-robin between accounts. */
  private dispatch(): void {
    while (!this.closed && this.queues.size > 0) {
      const account = this.nextAccount();
      if (account === undefined) return;
      const slot = this.freeSlot();
      if (!slot) return;
      const queue = this.queues.get(account)!;
      const waiting = queue.shift()!;
      if (queue.length === 0) this.queues.delete(account);
      this.lastServed.set(account, this.served++);
      slot.busy = true;
      this.holding.set(account, (this.holding.get(account) ?? 0) + 1);
      try {
        waiting.start(slot);
      } catch (err) {
        waiting.fail(err as Error);
      }
    }
  }

  private freeSlot(): Slot<P> | undefined {
    for (let i = this.slots.length - 1; i >= 0; i--) {
      const s = this.slots[i]!;
      if (!s.process.alive && !s.busy) this.slots.splice(i, 1);
    }
    const idle = this.slots.find((s) => !s.busy);
    if (idle) return idle;
    if (this.slots.length >= this.o.size) return undefined;
    const slot: Slot<P> = { process: this.o.create(), startedAt: this.now(), tasks: 0, busy: false };
    this.slots.push(slot);
    return slot;
  }

  /** Process ids of every running process (tests check they end). */
  pids(): number[] {
    return this.slots.filter((s) => s.process.alive).flatMap((s) => s.process.pids);
  }

  /** Tasks waiting per account (tests, metrics). */
  waiting(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  close(): void {
    this.closed = true;
    for (const queue of [...this.queues.values()]) for (const w of [...queue]) w.fail(new EngineError('failed', `${this.o.name}: closing`));
    this.queues.clear();
    for (const s of this.slots.splice(0)) s.process.kill();
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new EngineError('failed', 'the request was cancelled');
}
