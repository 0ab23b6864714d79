// Per-pair pool of warm pipelines and the scheduler of their work. Requests come in as blocks (a sentence or up to a
// KiB or so each); the pool feeds the pipelines block by block, the next block taken from the account served longest
// ago, and keeps only a small window of blocks in flight per pipeline: a short request waits for at most that window of
// someone else's work, never for a whole large request already written into the stream (issue 31).

import { EngineError } from '../engine.js';
import type { ApertiumMode } from './mode-discovery.js';
import { ApertiumPipeline, type TaggerReset } from './pipeline.js';

/** Requesters whose last turn is remembered; beyond that the longest-served are forgotten (they count as new). */
const MAX_REMEMBERED_REQUESTERS = 1024;
/** Death reasons the pool chose itself, on idle pipelines: not failures. */
const ORDERLY = ['closed', 'evicted', 'idle', 'retired'];
/** A block in flight when its pipeline wedged or crashed this many times ends its request (a poison input). */
const MAX_BLAMES = 2;

interface Job {
  requester: string;
  /** Blocks not yet sent, in order (blocks of a dead pipeline come back to the front). */
  unsent: Block[];
  outputs: string[];
  /** Blocks not answered yet. */
  remaining: number;
  done: boolean;
  resolve: (outputs: string[]) => void;
  reject: (err: Error) => void;
}

interface Block {
  job: Job;
  index: number;
  text: string;
  bytes: number;
  /** Times this block was the oldest unanswered one of a pipeline that wedged or crashed. */
  blames: number;
}

export interface InFlightLimits {
  /** Blocks in flight at once in one pipeline (1 = no pipelining). */
  maxBlocks: number;
  /** Input bytes in flight in one pipeline; a block joins a busy pipeline only while the total stays within this. */
  maxBytes: number;
  /** A pipeline with blocks in flight that answers none for this long is wedged: killed, its blocks re-run elsewhere. */
  wedgeMs: number;
  /** The same for a new pipeline's first answer (it loads its data files first). */
  firstAnswerMs: number;
}

export interface PairPoolHost {
  /** Asks for room for one more pipeline of `pool` within the memory budget (may evict idle pipelines elsewhere). */
  reserve(pool: PairPool): boolean;
  /** Whether a pipeline should take no new work (too old, too many translations, too much memory); checked on release. */
  shouldRetire?(pipeline: ApertiumPipeline): string | undefined;
  /** Called when a pipeline of this pool dies unexpectedly. */
  onPipelineDeath(pool: PairPool, pipeline: ApertiumPipeline, reason: string): void;
  /** How new pipelines keep their tagger stateless (see pipeline.ts); default the relay. */
  readonly taggerReset?: TaggerReset;
}

/** When a pipeline is replaced (see ApertiumEngineOptions); lrx-proc grows ~95 bytes per translation. */
export const WEAR_LIMITS = { maxBlocksPerPipeline: 100_000, maxPipelineAgeMs: 6 * 3_600_000, maxRssGrowthMb: 64 };

/** Why a pipeline should be replaced, or undefined; `rss` (bytes, measured by the sweep) also checks its growth. */
export function wornOut(p: ApertiumPipeline, limits: typeof WEAR_LIMITS, rss?: number): string | undefined {
  if (p.translatedBlocks >= limits.maxBlocksPerPipeline) return `translated ${p.translatedBlocks} blocks`;
  if (Date.now() - p.startedAt >= limits.maxPipelineAgeMs) return 'age';
  if (rss === undefined) return undefined;
  p.firstRss ??= rss;
  return rss - p.firstRss > limits.maxRssGrowthMb * 2 ** 20 ? `resident memory grew to ${Math.round(rss / 2 ** 20)} MiB` : undefined;
}

export class PairPool {
  readonly pipelines: ApertiumPipeline[] = [];
  /** Jobs with blocks not yet sent, per requester, oldest first. */
  private readonly waiting = new Map<string, Job[]>();
  /** Blocks written to each pipeline and not answered yet, in stream order. */
  private readonly sent = new Map<ApertiumPipeline, Block[]>();
  /** When each busy pipeline last answered a block (or was handed one while idle). */
  private readonly progressAt = new Map<ApertiumPipeline, number>();
  /** Turn number of each requester's last block (insertion-ordered by turn). */
  private readonly lastServed = new Map<string, number>();
  private turns = 0;
  private watchdog: NodeJS.Timeout | undefined;
  lastUsed = 0;
  closed = false;

  constructor(
    readonly mode: ApertiumMode,
    private readonly host: PairPoolHost,
    private readonly maxPipelines: number,
    private readonly maxQueue: number,
    private readonly inFlight: InFlightLimits = { maxBlocks: 1, maxBytes: 0, wedgeMs: 10_000, firstAnswerMs: 10_000 },
  ) {}

  /** Requests with blocks still waiting to be sent. */
  get queued(): number {
    let n = 0;
    for (const jobs of this.waiting.values()) n += jobs.length;
    return n;
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
      if (!ORDERLY.includes(reason)) this.host.onPipelineDeath(this, p, reason);
      this.requeue(p, reason);
      // the blocks it held, and anyone waiting, go to the other pipelines or a replacement
      this.dispatch();
    };
  }

  private spawn(): ApertiumPipeline {
    const p = new ApertiumPipeline(this.mode.name, this.mode.stages, this.host.taggerReset);
    this.watch(p);
    this.pipelines.push(p);
    return p;
  }

  /**
   * Translates deformatted blocks (in order), sharing the pipelines block by block with other requests; resolves with
   * the raw output of each. An abort (the caller going away) or the deadline (`timeout`: its length and the error it
   * gives) drops the blocks not sent yet and rejects at once; its blocks already in a pipeline are answered there and
   * discarded, so the stream stays in sync. (The deadline is a timer here rather than a second AbortSignal: a signal
   * costs several µs per request, docs/benchmarks.md, "CPU per request".)
   */
  translate(blocks: string[], requester = '', signal?: AbortSignal, timeout?: { ms: number; error: () => Error }): Promise<string[]> {
    if (this.closed) return Promise.reject(new EngineError('failed', 'apertium engine is closed'));
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    this.lastUsed = Date.now();
    if (blocks.length === 0) return Promise.resolve([]);
    if (this.queued >= this.maxQueue) {
      return Promise.reject(new EngineError('overloaded', `apertium ${this.mode.name}: queue full (${this.maxQueue})`));
    }
    return new Promise<string[]>((resolve, reject) => {
      const onAbort = () => this.finish(job, abortReason(signal!));
      const timer = timeout ? setTimeout(() => this.finish(job, timeout.error()), timeout.ms) : undefined;
      const settled = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const job: Job = {
        requester,
        unsent: [],
        outputs: new Array<string>(blocks.length),
        remaining: blocks.length,
        done: false,
        resolve: (outputs) => {
          settled();
          resolve(outputs);
        },
        reject: (err) => {
          settled();
          reject(err);
        },
      };
      job.unsent = blocks.map((text, index) => ({ job, index, text, bytes: Buffer.byteLength(text) + 1, blames: 0 }));
      signal?.addEventListener('abort', onAbort, { once: true });
      const jobs = this.waiting.get(requester);
      if (jobs) jobs.push(job);
      else this.waiting.set(requester, [job]);
      this.dispatch();
    });
  }

  /** Ends a job: resolved when `err` is undefined; its blocks not sent yet are dropped. */
  private finish(job: Job, err?: Error): void {
    if (job.done) return;
    job.done = true;
    job.unsent.length = 0;
    this.unqueue(job);
    if (err) job.reject(err);
    else job.resolve(job.outputs);
  }

  private unqueue(job: Job): void {
    const jobs = this.waiting.get(job.requester);
    const i = jobs?.indexOf(job) ?? -1;
    if (i < 0) return;
    jobs!.splice(i, 1);
    if (jobs!.length === 0) this.waiting.delete(job.requester);
  }

  /** Picks a pipeline with room for a block of `bytes`: idle first, then a new one, then the least loaded busy one. */
  private pick(bytes: number): ApertiumPipeline | undefined {
    let best: ApertiumPipeline | undefined;
    let serving = 0;
    for (const p of this.pipelines) {
      if (!p.alive || p.retiring) continue;
      serving++;
      if (p.inflight === 0) return p;
      if (!best || p.inflightBytes < best.inflightBytes) best = p;
    }
    // a retiring pipeline still drains its blocks but does not count: its replacement starts at once
    if (serving < this.maxPipelines && this.host.reserve(this)) return this.spawn();
    if (best && best.inflight < this.inFlight.maxBlocks && best.inflightBytes + bytes <= this.inFlight.maxBytes) return best;
    return undefined;
  }

  /** Sends waiting blocks while some pipeline has room, one block per turn, the requester served longest ago first. */
  private dispatch(): void {
    while (this.waiting.size > 0 && !this.closed) {
      const requester = this.nextRequester();
      const jobs = this.waiting.get(requester)!;
      const job = jobs[0]!;
      const p = this.pick(job.unsent[0]!.bytes);
      if (!p) break;
      const block = job.unsent.shift()!;
      if (job.unsent.length === 0) this.unqueue(job);
      this.served(requester);
      this.send(p, block);
    }
    this.armWatchdog();
  }

  private send(p: ApertiumPipeline, block: Block): void {
    if (p.inflight === 0) this.progressAt.set(p, Date.now());
    p.inflight++;
    p.inflightBytes += block.bytes;
    const queue = this.sent.get(p);
    if (queue) queue.push(block);
    else this.sent.set(p, [block]);
    // a rejection means the pipeline died: onDeath has already put the block back
    p.run([block.text]).then(([out]) => this.answered(p, block, out!), () => {});
  }

  private answered(p: ApertiumPipeline, block: Block, out: string): void {
    const queue = this.sent.get(p);
    const i = queue?.indexOf(block) ?? -1;
    if (i < 0) return;
    queue!.splice(i, 1);
    p.inflight = Math.max(0, p.inflight - 1);
    p.inflightBytes = Math.max(0, p.inflightBytes - block.bytes);
    this.progressAt.set(p, Date.now());
    this.lastUsed = Date.now();
    const job = block.job;
    if (!job.done) {
      job.outputs[block.index] = out;
      if (--job.remaining === 0) this.finish(job);
    }
    // checked on every answer: under steady load a pipeline may never drain by itself
    p.retiring ??= this.host.shouldRetire?.(p);
    if (p.inflight === 0) {
      this.sent.delete(p);
      this.progressAt.delete(p);
      this.retireIfDrained(p);
    }
    this.dispatch();
  }

  /**
   * Puts the unanswered blocks of a dead pipeline back in front of their requests. The oldest of them is the one the
   * pipeline was stuck on (answers come in order), so it alone is blamed; blamed twice, its request ends.
   */
  private requeue(p: ApertiumPipeline, reason: string): void {
    const blocks = this.sent.get(p) ?? [];
    this.sent.delete(p);
    this.progressAt.delete(p);
    p.inflight = 0;
    p.inflightBytes = 0;
    const head = blocks[0];
    if (head && !ORDERLY.includes(reason) && ++head.blames >= MAX_BLAMES && !head.job.done) {
      this.finish(
        head.job,
        reason === 'wedged'
          ? new EngineError('timeout', `apertium ${this.mode.name}: the engine hung on this text twice`)
          : new EngineError('failed', `apertium ${this.mode.name}: the pipeline failed twice on this text: ${p.lastError || reason}`),
      );
    }
    for (const block of blocks.reverse()) {
      const job = block.job;
      if (job.done) continue;
      if (job.unsent.length === 0) {
        const jobs = this.waiting.get(job.requester);
        if (jobs) jobs.unshift(job);
        else this.waiting.set(job.requester, [job]);
      }
      job.unsent.unshift(block);
    }
  }

  /** While blocks are in flight, checks every half wedge time for a pipeline that answered none for a whole one. */
  private armWatchdog(): void {
    if (this.watchdog || this.progressAt.size === 0 || this.closed) return;
    const wedgeMs = this.inFlight.wedgeMs;
    this.watchdog = setTimeout(() => {
      this.watchdog = undefined;
      const now = Date.now();
      for (const [p, at] of [...this.progressAt]) {
        const limit = p.translatedBlocks > 0 ? wedgeMs : Math.max(wedgeMs, this.inFlight.firstAnswerMs);
        if (now - at >= limit && p.alive) p.kill('wedged');
      }
      this.armWatchdog();
    }, wedgeMs / 2);
    this.watchdog.unref();
  }

  /** The waiting requester served longest ago (never served first). Linear in the requesters waiting. */
  private nextRequester(): string {
    let best = '';
    let bestTurn = Infinity;
    for (const requester of this.waiting.keys()) {
      const turn = this.lastServed.get(requester) ?? -1;
      if (turn < bestTurn) [best, bestTurn] = [requester, turn];
    }
    return best;
  }

  private served(requester: string): void {
    this.lastServed.delete(requester); // re-inserted last: the Map stays ordered by turn and bounded below
    this.lastServed.set(requester, this.turns++);
    if (this.lastServed.size > MAX_REMEMBERED_REQUESTERS) this.lastServed.delete(this.lastServed.keys().next().value!);
  }

  /** Marks a pipeline to take no new blocks; it is closed as soon as its blocks are answered. */
  retire(p: ApertiumPipeline, reason: string): void {
    p.retiring ??= reason;
    this.retireIfDrained(p);
    this.dispatch();
  }

  private retireIfDrained(p: ApertiumPipeline): void {
    if (p.retiring && p.inflight === 0 && p.alive) p.kill('retired');
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
    clearTimeout(this.watchdog);
    for (const jobs of [...this.waiting.values()]) for (const job of [...jobs]) this.finish(job, new EngineError('failed', 'apertium engine is closing'));
    for (const blocks of this.sent.values()) for (const b of blocks) this.finish(b.job, new EngineError('failed', 'apertium engine is closing'));
    await Promise.all([...this.pipelines].map((p) => p.close()));
    this.pipelines.length = 0;
  }
}

function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  if (r instanceof EngineError) return r;
  return new EngineError('failed', 'translation aborted', { cause: r });
}
