// A fixed number of generation slots (the model context's sequences) shared fairly between accounts: a waiting
// request of the account served longest ago goes first, so one account's backlog waits behind one request of every
// other account; each account's queue is bounded (a full one is refused as overloaded, 529), and a waiter whose
// client left is dropped at once.
import { EngineError } from '../engine.js';

/** Accounts whose last turn is remembered; beyond that the longest-served are forgotten (they count as new). */
const MAX_REMEMBERED = 1024;

interface Waiter {
  requester: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class FairSlots {
  private free: number;
  private readonly waiters: Waiter[] = [];
  private readonly lastServed = new Map<string, number>();
  private turns = 0;

  constructor(
    slots: number,
    private readonly maxWaitingPerRequester: number,
  ) {
    this.free = Math.max(1, slots);
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Resolves once a slot is this request's; pair it with release(). */
  acquire(requester: string, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new EngineError('failed', 'request aborted'));
    if (this.free > 0 && this.waiters.length === 0) {
      this.free--;
      this.served(requester);
      return Promise.resolve();
    }
    if (this.waiters.filter((w) => w.requester === requester).length >= this.maxWaitingPerRequester) {
      return Promise.reject(new EngineError('overloaded', 'too many language-model requests of this account are waiting'));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { requester, resolve, reject };
      this.waiters.push(waiter);
      signal?.addEventListener(
        'abort',
        () => {
          const i = this.waiters.indexOf(waiter);
          if (i < 0) return;
          this.waiters.splice(i, 1);
          reject(new EngineError('failed', 'request aborted'));
        },
        { once: true },
      );
    });
  }

  release(): void {
    if (this.waiters.length === 0) {
      this.free++;
      return;
    }
    const [next] = this.waiters.splice(this.nextWaiter(), 1);
    this.served(next!.requester);
    next!.resolve();
  }

  /** Rejects every waiter (closing). */
  rejectAll(err: unknown): void {
    for (const w of this.waiters.splice(0)) w.reject(err);
  }

  /** Linear in the queue, which the per-account bound keeps short. */
  private nextWaiter(): number {
    let best = 0;
    let bestTurn = Infinity;
    this.waiters.forEach((w, i) => {
      const turn = this.lastServed.get(w.requester) ?? -1;
      if (turn < bestTurn) [best, bestTurn] = [i, turn];
    });
    return best;
  }

  private served(requester: string): void {
    this.lastServed.delete(requester); // re-inserted last: the Map stays ordered by turn and bounded below
    this.lastServed.set(requester, this.turns++);
    if (this.lastServed.size > MAX_REMEMBERED) this.lastServed.delete(this.lastServed.keys().next().value!);
  }
}
