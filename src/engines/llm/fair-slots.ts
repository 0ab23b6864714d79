// A fixed number of generation slots (the model context's sequences) shared fairly between accounts: a waiting
// request of the account served longest ago goes first, so one account's backlog waits behind one request of every
// other account. A request waits at most a bounded time: one whose estimated wait (the requests ahead of it times
// the recent time a slot is held) is longer is refused at once as busy, with that estimate as the time to come back,
// rather than after minutes in the queue; so is one beyond its account's queue bound, and one still waiting when the
// bound runs out. A waiter whose client left is dropped at once. The wait is not part of a generation's deadline:
// the caller starts that clock once acquire() resolves.
import { EngineError } from '../engine.js';

/** Accounts whose last turn is remembered; beyond that the longest-served are forgotten (they count as new). */
const MAX_REMEMBERED = 1024;
/** Weight of the latest hold in the running estimate of how long a slot is held. */
const HOLD_WEIGHT = 0.3;

export interface FairSlotsOptions {
  slots: number;
  /** Waiting requests per account beyond this are refused as busy. */
  maxWaitingPerRequester: number;
  /** Longest a request may wait for a slot (ms): a longer estimated wait is refused at once; 0 = never wait. */
  maxWaitMs: number;
  /** Clock, for tests of the estimate; default Date.now. */
  now?: () => number;
}

/** Ends a slot's use; calling it again does nothing. */
export type ReleaseSlot = () => void;

interface Waiter {
  requester: string;
  resolve: (release: ReleaseSlot) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout | undefined;
}

export class FairSlots {
  private free: number;
  private readonly slots: number;
  private readonly waiters: Waiter[] = [];
  private readonly lastServed = new Map<string, number>();
  /** When each slot now in use was taken. */
  private readonly heldSince = new Set<{ at: number }>();
  private typicalHoldMs: number | undefined;
  private turns = 0;
  private readonly now: () => number;

  constructor(private readonly o: FairSlotsOptions) {
    this.slots = Math.max(1, o.slots);
    this.free = this.slots;
    this.now = o.now ?? Date.now;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Resolves with the release of the slot once it is this request's; rejects as busy when it cannot start in time. */
  acquire(requester: string, signal?: AbortSignal): Promise<ReleaseSlot> {
    if (signal?.aborted) return Promise.reject(new EngineError('failed', 'request aborted'));
    if (this.free > 0 && this.waiters.length === 0) {
      this.free--;
      return Promise.resolve(this.take(requester));
    }
    const own = this.waiters.filter((w) => w.requester === requester).length;
    if (own >= this.o.maxWaitingPerRequester) return Promise.reject(this.busy('too many language-model requests of this account are waiting', requester));
    if (this.o.maxWaitMs <= 0) return Promise.reject(this.busy('every language-model slot is in use', requester));
    const estimate = this.estimateWaitMs(requester);
    if (estimate !== undefined && estimate > this.o.maxWaitMs) {
      return Promise.reject(this.busy(`about ${Math.ceil(estimate / 1000)} s of language-model work is waiting`, requester));
    }
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const waiter: Waiter = { requester, resolve, reject, timer: undefined };
      const leave = (err: EngineError) => {
        const i = this.waiters.indexOf(waiter);
        if (i < 0) return;
        this.waiters.splice(i, 1);
        clearTimeout(waiter.timer);
        reject(err);
      };
      waiter.timer = setTimeout(() => leave(this.busy(`no language-model slot came free within ${this.o.maxWaitMs} ms`, requester)), this.o.maxWaitMs);
      this.waiters.push(waiter);
      signal?.addEventListener('abort', () => leave(new EngineError('failed', 'request aborted')), { once: true });
    });
  }

  /** Rejects every waiter (closing). */
  rejectAll(err: unknown): void {
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
  }

  /**
   * How long a new request of this account would wait: the requests served before it (its account's waiting ones,
   * and of every other account as many as get a turn before it) plus itself, in rounds of all slots, each round as
   * long as a slot is typically held. Undefined until a hold has finished or is under way.
   */
  estimateWaitMs(requester: string): number | undefined {
    const holdMs = this.typicalHoldMs ?? this.longestCurrentHoldMs();
    if (holdMs === undefined) return undefined;
    const waitingBy = new Map<string, number>();
    for (const w of this.waiters) waitingBy.set(w.requester, (waitingBy.get(w.requester) ?? 0) + 1);
    const own = waitingBy.get(requester) ?? 0;
    let ahead = own;
    for (const [other, n] of waitingBy) if (other !== requester) ahead += Math.min(n, own + 1);
    return Math.ceil((ahead + 1) / this.slots) * holdMs;
  }

  private longestCurrentHoldMs(): number | undefined {
    let oldest: number | undefined;
    for (const h of this.heldSince) oldest = Math.min(oldest ?? h.at, h.at);
    return oldest === undefined ? undefined : Math.max(1, this.now() - oldest);
  }

  private busy(why: string, requester: string): EngineError {
    const retryAfterMs = Math.max(1000, this.estimateWaitMs(requester) ?? this.o.maxWaitMs);
    return new EngineError('busy', `the language model is busy: ${why}`, { retryAfterMs });
  }

  /** Marks the slot as this requester's turn and returns its release. */
  private take(requester: string): ReleaseSlot {
    this.served(requester);
    const hold = { at: this.now() };
    this.heldSince.add(hold);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.heldSince.delete(hold);
      const heldMs = this.now() - hold.at;
      this.typicalHoldMs = this.typicalHoldMs === undefined ? heldMs : this.typicalHoldMs * (1 - HOLD_WEIGHT) + heldMs * HOLD_WEIGHT;
      this.handOver();
    };
  }

  private handOver(): void {
    if (this.waiters.length === 0) {
      this.free++;
      return;
    }
    const [next] = this.waiters.splice(this.nextWaiter(), 1);
    clearTimeout(next!.timer);
    next!.resolve(this.take(next!.requester));
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
