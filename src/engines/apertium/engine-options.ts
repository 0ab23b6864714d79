// Options of the Apertium engine and their defaults.

import { availableParallelism, totalmem } from 'node:os';
import type { Logger } from '../../lib/logger.js';
import { WEAR_LIMITS } from './pair-pool.js';

export interface ApertiumEngineOptions {
  /** Directory with Apertium *.mode files. Default "/usr/share/apertium/modes". */
  modesDir?: string;
  /**
   * Upper bound for the summed RSS of all warm pipelines, in MiB; idle pairs are evicted LRU to stay below. Default
   * half the machine's memory, at least 512 and at most 4096.
   */
  memoryBudgetMb?: number;
  /** Pipelines per pair when requests queue up. Default 1 on a machine with ≤ 2 cores, else 2. */
  maxPipelinesPerPair?: number;
  /** Whole-request limit (queue wait + translation); at the deadline the request's blocks not sent yet are dropped. Default 15000. */
  requestTimeoutMs?: number;
  /**
   * Blocks (a sentence, or up to 1 KiB of one) in flight at once in one pipeline: pipelining keeps its stages busy; the
   * window is what a newly arrived short request may wait behind. 1 turns pipelining off. Default 4 (beside another
   * account's bulk requests, 4 blocks / 1 KiB gave a short request a third of the latency of 16 / 4 KiB, with the
   * same throughput, on a busy 2-core machine: docs/benchmarks.md).
   */
  maxInFlightPerPipeline?: number;
  /** Input bytes in flight in one pipeline (a block alone may exceed it). Default 1024. */
  maxInFlightBytes?: number;
  /**
   * A pipeline with blocks in flight that answers none for this long is wedged: it is replaced and its blocks re-run
   * on the new one (the block it hung on once only). Default 5000; a new pipeline's first answer may take probeTimeoutMs.
   */
  wedgeTimeoutMs?: number;
  /** Requests allowed to wait per pair before EngineError('overloaded'). Default 64. */
  maxQueuePerPair?: number;
  /** Idle pipelines are closed after this long (restarted lazily on the next request). Default 600000 (10 min). */
  idleRecycleMs?: number;
  /** A pipeline is replaced (its requests answered first) after this many blocks (default 100000), this long (ms, default
   *  6 h) or when its resident memory grew this much (MiB) over its first measurement (default 64; lrx-proc grows). */
  maxBlocksPerPipeline?: number;
  maxPipelineAgeMs?: number;
  maxRssGrowthMb?: number;
  /** Only use these pairs ("en-es", Tolk codes); default: every installed mode. */
  pairs?: string[];
  /**
   * Pairs probed and kept warm at start ("*": every pair); the others start on their first request, which probes
   * them first (a pair whose probe fails is marked broken and no longer listed). Default none.
   */
  warmPairs?: string[];
  /** Called when the listed pairs change (a pair found broken on first use), so routes can be rebuilt. */
  onPairsChanged?: () => void;
  /** Apertium variant suffix → Tolk code ("pt_BR" → "pt-br"); default en_US, en_GB, pt_BR, pt_PT. */
  variants?: Record<string, string>;
  /** Probes run in parallel at start(). Default 2. */
  probeConcurrency?: number;
  /** Per-mode probe limit, ms. Default 10000. */
  probeTimeoutMs?: number;
  /**
   * How the HMM tagger is kept from carrying state from one request into the next (issue 20): `shim` (a library
   * preloaded into the tagger, tagger-shim.ts), `relay` (switching to fresh taggers, tagger-relay.ts), `off`, or `auto`
   * (default): the shim where it compiles and applies, else the relay.
   */
  taggerReset?: 'auto' | 'shim' | 'relay' | 'off';
  /** Where the compiled tagger shim is cached; default a private directory under the system's temp directory. */
  taggerShimDir?: string;
  logger?: Logger;
}

export const DEFAULTS = {
  modesDir: '/usr/share/apertium/modes',
  memoryBudgetMb: Math.min(4096, Math.max(512, Math.round(totalmem() / 2 ** 20 / 2))),
  // One warm pipeline keeps about two cores busy (its stages run in parallel), so a pair may use one per two cores;
  // more start only while requests wait for one (PairPool.pick). On 2 cores a second one cost HTTP throughput; on 16,
  // 8 pipelines served 2× the requests of 2 (issue 46's table: 9,224 against 4,579 requests/s at 32 clients).
  maxPipelinesPerPair: Math.max(1, Math.floor(availableParallelism() / 2)),
  requestTimeoutMs: 15_000,
  maxQueuePerPair: 64,
  maxInFlightPerPipeline: 4,
  maxInFlightBytes: 1024,
  wedgeTimeoutMs: 5000,
  idleRecycleMs: 600_000,
  ...WEAR_LIMITS,
  probeConcurrency: 2,
  probeTimeoutMs: 10_000,
  taggerReset: 'auto' as 'auto' | 'shim' | 'relay' | 'off',
};
