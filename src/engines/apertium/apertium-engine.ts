// The Apertium engine: rule-based MT from installed Debian pair packages, kept warm in null-flush pipelines.

export type { ApertiumEngineOptions };

import {
  EngineError,
  type EnginePairInfo,
  type EngineTranslateOptions,
  type LanguagePair,
  type TranslationEngine,
} from '../engine.js';
import { silentLogger, type Logger } from '../../lib/logger.js';
import { DEFAULT_VARIANTS } from './language-codes.js';
import { discoverModes, modeInstalled, type ApertiumMode } from './mode-discovery.js';
import { PairPool, wornOut, type PairPoolHost } from './pair-pool.js';
import { DEFAULTS, type ApertiumEngineOptions } from './engine-options.js';
import { ApertiumPipeline, type TaggerReset } from './pipeline.js';
import { chooseTaggerReset, forgetTaggerShim } from './tagger-shim.js';
import { existsSync } from 'node:fs';
import { deformat, lowerFirstLikeSource, reformat, splitEdges, splitForPipe, stripMarks } from './stream-format.js';
import { probeMode } from './probe.js';

/** RSS assumed for a mode never measured yet (MiB). */
const UNKNOWN_RSS_MB = 300;
/**
 * Most input bytes of one block: a segment longer than this is cut (at a sentence end, else a blank) so that another
 * account's block never waits long behind one of these (issue 31); far below PIPE_BUF.
 */
const BLOCK_BYTES = 1024;


interface Block {
  /** Index of the segment this block belongs to. */
  segment: number;
  lead: string;
  core: string;
  trail: string;
  /** Not the segment's first block: cut from it mid-sentence, maybe. */
  continued: boolean;
}

export interface ApertiumPairStats {
  pair: string;
  mode: string;
  pipelines: number;
  busy: number;
  /** Blocks in flight over all pipelines of the pair. */
  inFlight: number;
  /** Requests with blocks waiting to be sent. */
  queued: number;
  rssMb: number;
  /** Pipelines of the pair that died unexpectedly (crash, wedged) since start; each is replaced on demand. */
  restarts: number;
}

export class ApertiumEngine implements TranslationEngine, PairPoolHost {
  readonly name = 'apertium';
  readonly features = { context: false };
  private readonly opts: typeof DEFAULTS & {
    pairs?: string[];
    warmPairs?: string[];
    onPairsChanged?: () => void;
    variants: Record<string, string>;
    taggerShimDir?: string;
  };
  /** Settled by start(), before any pipeline is spawned. */
  private reset: TaggerReset = { kind: 'relay' };
  private rebuildingShim = false;
  private readonly log: Logger;
  private readonly pools = new Map<string, PairPool>();
  /** Pools not probed yet: their first request probes them (one probe however many requests wait). */
  private readonly unverified = new Map<PairPool, Promise<void> | null>();
  private readonly broken: { mode: string; reason: string }[] = [];
  private readonly deathsByMode = new Map<string, number>();
  /** Last measured RSS per mode, bytes. */
  private readonly rssByMode = new Map<string, number>();
  private sweeper: NodeJS.Timeout | undefined;
  private started = false;
  private closing = false;

  constructor(options: ApertiumEngineOptions = {}) {
    const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
    this.opts = { ...DEFAULTS, variants: { ...DEFAULT_VARIANTS }, ...defined } as ApertiumEngine['opts'];
    this.log = options.logger ?? silentLogger;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const t0 = performance.now();
    this.reset = await chooseTaggerReset(this.opts.taggerReset, this.opts.taggerShimDir, this.log);
    const { modes, skipped } = await discoverModes(this.opts.modesDir, this.opts.variants);
    const wanted = this.opts.pairs ? new Set(this.opts.pairs.map((p) => p.toLowerCase())) : null;
    const candidates = modes.filter((m) => !wanted || wanted.has(`${m.source}-${m.target}`));
    // Listed without starting anything: a mode whose programs or data files are missing is left out now; one that
    // is installed but does not work is found by the probe of its first request (or of the warm-up below).
    for (const mode of candidates) {
      const missing = modeInstalled(mode);
      if (missing) this.broken.push({ mode: mode.name, reason: missing });
      else this.addPool(mode);
    }
    const warm = this.opts.warmPairs?.includes('*') ? [...this.pools.keys()] : (this.opts.warmPairs ?? []).map((p) => p.toLowerCase());
    const toWarm = warm.map((k) => this.pools.get(k)).filter((p): p is PairPool => p !== undefined);
    let next = 0;
    const worker = async () => {
      while (next < toWarm.length) await this.verify(toWarm[next++]!).catch(() => {});
    };
    await Promise.all(Array.from({ length: Math.max(1, this.opts.probeConcurrency) }, worker));
    this.log.info(
      {
        engine: this.name,
        pairs: [...this.pools.keys()].sort(),
        warm: toWarm.filter((p) => !p.closed && p.pipelines.length > 0).map((p) => `${p.mode.source}-${p.mode.target}`),
        broken: this.broken,
        skipped: skipped.length,
        startMs: Math.round(performance.now() - t0),
        warmRssMb: this.totalRssMb(),
      },
      'apertium modes found',
    );
    for (const b of this.broken) this.log.warn({ engine: this.name, mode: b.mode, reason: b.reason }, 'apertium mode broken, not listed');
    const every = Math.max(1000, Math.min(this.opts.idleRecycleMs / 2, 30_000));
    this.sweeper = setInterval(() => this.sweep(), every);
    this.sweeper.unref();
  }

  /**
   * How new pipelines keep their tagger stateless. A shim file removed meanwhile (a temp-directory cleaner) sends new
   * pipelines to the relay until it is built again.
   */
  get taggerReset(): TaggerReset {
    if (this.reset.kind === 'shim' && !existsSync(this.reset.path) && !this.rebuildingShim) {
      this.log.warn({ engine: this.name, path: this.reset.path }, 'apertium tagger shim removed; building it again, the relay meanwhile');
      this.reset = { kind: 'relay' };
      this.rebuildingShim = true;
      forgetTaggerShim(this.opts.taggerShimDir);
      void chooseTaggerReset(this.opts.taggerReset, this.opts.taggerShimDir, this.log)
        .then((reset) => (this.reset = reset), () => {})
        .finally(() => (this.rebuildingShim = false));
    }
    return this.reset;
  }

  private addPool(mode: ApertiumMode): void {
    const pool = new PairPool(mode, this, this.opts.maxPipelinesPerPair, this.opts.maxQueuePerPair, {
      maxBlocks: Math.max(1, this.opts.maxInFlightPerPipeline),
      maxBytes: this.opts.maxInFlightBytes,
      wedgeMs: this.opts.wedgeTimeoutMs,
      firstAnswerMs: this.opts.probeTimeoutMs,
    });
    this.pools.set(`${mode.source}-${mode.target}`, pool);
    this.unverified.set(pool, null);
  }

  /**
   * Probes a pool's mode once: the probe's pipeline becomes the pool's first (warm) pipeline, within the memory
   * budget. A mode that fails its probe is marked broken and unlisted; a probe that only timed out is tried again
   * by the next request.
   */
  private verify(pool: PairPool): Promise<void> {
    if (!this.unverified.has(pool)) return Promise.resolve();
    let pending = this.unverified.get(pool);
    if (pending) return pending;
    pending = (async () => {
      const key = `${pool.mode.source}-${pool.mode.target}`;
      const result = await probeMode(pool.mode, this.opts.probeTimeoutMs, this.taggerReset);
      if (result.ok) this.rssByMode.set(pool.mode.name, result.pipeline.rssBytes());
      if (result.ok) {
        this.unverified.delete(pool);
        if (!this.closing && !pool.closed && this.reserve(pool)) {
          pool.adopt(result.pipeline);
          pool.lastUsed = Date.now();
        } else {
          await result.pipeline.close();
        }
        return;
      }
      if (result.timedOut) {
        this.unverified.set(pool, null);
        throw new EngineError('timeout', `apertium ${key}: the pair did not start in time`);
      }
      this.unverified.delete(pool);
      this.pools.delete(key);
      await pool.close();
      this.broken.push({ mode: pool.mode.name, reason: result.reason });
      this.log.warn({ engine: this.name, mode: pool.mode.name, reason: result.reason }, 'apertium mode broken, no longer listed');
      this.opts.onPairsChanged?.();
      throw new EngineError('failed', `apertium ${key} does not work: ${result.reason}`);
    })();
    this.unverified.set(pool, pending);
    return pending;
  }

  pairs(): EnginePairInfo[] {
    return [...this.pools.values()]
      .map((p) => ({ source: p.mode.source, target: p.mode.target, formality: false }))
      .sort((a, b) => (a.source + a.target).localeCompare(b.source + b.target));
  }

  async translate(pair: LanguagePair, segments: string[], options: EngineTranslateOptions = {}): Promise<string[]> {
    const key = `${pair.source.toLowerCase()}-${pair.target.toLowerCase()}`;
    const pool = this.pools.get(key);
    if (!pool) throw new EngineError('unsupported_pair', `apertium has no working pair ${key}`);
    if (this.unverified.has(pool)) await this.verify(pool);
    const results = segments.map((s) => (splitEdges(s).core ? '' : s));
    const blocks: Block[] = [];
    segments.forEach((segment, i) => {
      const { core } = splitEdges(segment);
      if (!core) return;
      const { lead, trail } = splitEdges(segment);
      const chunks = splitForPipe(core, BLOCK_BYTES);
      chunks.forEach((chunk, j) => {
        const e = splitEdges(chunk);
        blocks.push({
          segment: i,
          lead: (j === 0 ? lead : '') + e.lead,
          core: e.core,
          trail: e.trail + (j === chunks.length - 1 ? trail : ''),
          continued: j > 0,
        });
      });
    });
    const work = blocks.filter((b) => b.core);
    if (work.length === 0) return segments.map((s, i) => results[i] || s);
    const input = work.map((b) => deformat(b.core));

    // The deadline and the caller's signal both drop only this request's blocks: the pipeline goes on with the others.
    const timeout = {
      ms: this.opts.requestTimeoutMs,
      error: () => new EngineError('timeout', `apertium ${key}: no answer within ${this.opts.requestTimeoutMs} ms`),
    };
    try {
      const raw = await pool.translate(input, options.requester, options.signal, timeout);
      const pieces = segments.map(() => [] as string[]);
      work.forEach((b, k) => {
        const out = reformat(raw[k] ?? '').trim();
        if (!out) throw new EngineError('failed', `apertium ${key} returned empty output for non-empty input`);
        const text = stripMarks(out, b.core);
        pieces[b.segment]!.push(b.lead + (b.continued ? lowerFirstLikeSource(b.core, text) : text) + b.trail);
      });
      return segments.map((s, i) => (pieces[i]!.length ? pieces[i]!.join('') : results[i] || s));
    } catch (err) {
      if (err instanceof EngineError) {
        if (err.kind === 'failed' || err.kind === 'timeout') this.log.warn({ engine: this.name, pair: key, kind: err.kind, err: err.message }, 'apertium translation failed');
        throw err;
      }
      throw new EngineError('failed', `apertium ${key}: ${(err as Error).message}`, { cause: err });
    }
  }

  // ---- PairPoolHost ----

  reserve(pool: PairPool, evict = true): boolean {
    const budget = this.opts.memoryBudgetMb * 1024 * 1024;
    const need = this.rssByMode.get(pool.mode.name) ?? UNKNOWN_RSS_MB * 1024 * 1024;
    let used = this.totalRssBytes();
    if (used + need <= budget) return true;
    if (!evict) return false;
    // evict idle pipelines of other pairs, least recently used pair first
    const others = [...this.pools.values()].filter((p) => p !== pool && p.pipelines.some((x) => !x.busy)).sort((a, b) => a.lastUsed - b.lastUsed);
    for (const other of others) {
      while (used + need > budget) {
        const victim = other.evictOne();
        if (!victim) break;
        used -= this.rssOf(victim);
        this.log.info({ engine: this.name, evicted: other.mode.name, for: pool.mode.name }, 'apertium pipeline evicted (memory budget)');
      }
      if (used + need <= budget) return true;
    }
    if (pool.pipelines.length === 0 && evict) {
      this.log.warn({ engine: this.name, mode: pool.mode.name, usedMb: Math.round(used / 2 ** 20), budgetMb: this.opts.memoryBudgetMb }, 'apertium memory budget exceeded; starting the only pipeline of this pair anyway');
      return true;
    }
    return false;
  }

  shouldRetire(p: ApertiumPipeline): string | undefined {
    return wornOut(p, this.opts);
  }

  onPipelineDeath(pool: PairPool, pipeline: ApertiumPipeline, reason: string): void {
    if (this.closing) return;
    this.deathsByMode.set(pool.mode.name, (this.deathsByMode.get(pool.mode.name) ?? 0) + 1);
    this.log.warn({ engine: this.name, mode: pool.mode.name, pipeline: pipeline.id, reason: pipeline.lastError || reason }, 'apertium pipeline died; it will be replaced on demand');
  }

  private rssOf(p: ApertiumPipeline): number {
    // a pipeline still loading its transducers reports less than it will hold; use the larger of both
    const measured = p.rssBytes();
    return Math.max(measured, p.translatedBlocks > 0 ? measured : this.rssByMode.get(p.modeName) ?? 0);
  }

  private totalRssBytes(): number {
    let total = 0;
    for (const pool of this.pools.values()) for (const p of pool.pipelines) total += this.rssOf(p);
    return total;
  }

  private totalRssMb(): number {
    return Math.round(this.totalRssBytes() / 2 ** 20);
  }

  private sweep(): void {
    for (const pool of this.pools.values()) {
      for (const p of [...pool.pipelines]) {
        if (p.translatedBlocks === 0) continue;
        const rss = p.rssBytes();
        if (rss > 0 && !p.busy) this.rssByMode.set(p.modeName, rss);
        const reason = wornOut(p, this.opts, rss);
        if (reason && !p.retiring) {
          this.log.info({ engine: this.name, mode: pool.mode.name, pipeline: p.id, reason }, 'apertium pipeline retired');
          pool.retire(p, reason);
        }
      }
      const n = pool.recycleIdle(this.opts.idleRecycleMs);
      if (n > 0) this.log.info({ engine: this.name, mode: pool.mode.name, closed: n }, 'apertium idle pipelines recycled');
    }
  }

  /** Live view for health/metrics: pipelines, queue and RSS per pair. */
  stats(): ApertiumPairStats[] {
    return [...this.pools.entries()].map(([pair, pool]) => ({
      pair,
      mode: pool.mode.name,
      pipelines: pool.pipelines.length,
      busy: pool.pipelines.filter((p) => p.busy).length,
      inFlight: pool.pipelines.reduce((n, p) => n + p.inflight, 0),
      queued: pool.queued,
      rssMb: Math.round(pool.pipelines.reduce((n, p) => n + p.rssBytes(), 0) / 2 ** 20),
      restarts: this.deathsByMode.get(pool.mode.name) ?? 0,
    }));
  }

  /** Measured RSS per mode (MiB), from the probe or later sweeps. */
  rssPerMode(): Record<string, number> {
    return Object.fromEntries([...this.rssByMode.entries()].map(([m, b]) => [m, Math.round(b / 2 ** 20)]));
  }

  /** Child process ids of all running stages, optionally of one pair ("en-es"), for tests and diagnostics. */
  childPids(pair?: string): number[] {
    return [...this.pools.entries()].filter(([k]) => !pair || k === pair).flatMap(([, pool]) => pool.pipelines.flatMap((p) => p.pids));
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    await Promise.all([...this.pools.values()].map((p) => p.close()));
  }
}
