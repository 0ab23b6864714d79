// What the Bergamot worker pool is given (its options, a model's files) and what it reports (its state, its loads).
import type { Logger } from '../../lib/logger.js';

export interface ModelPayload {
  config: string;
  model: ArrayBuffer;
  shortlist: ArrayBuffer;
  vocabs: ArrayBuffer[];
}

export interface PoolOptions {
  /**
   * Runtimes translating or loading at once (one per core). More runtimes may be started to hold models beyond what
   * these can (each is capped at RUNTIME_HEAP_MAX_BYTES), within the memory budget; they take turns on these slots.
   */
  workers: number;
  memoryBudgetBytes: number;
  /** Most heap one runtime may reach (default RUNTIME_HEAP_MAX_BYTES; lower only to test what happens there). */
  runtimeHeapMaxBytes?: number;
  /** Most segments in one runtime call. */
  maxBatchSegments: number;
  /** A request's limit from the moment its model is ready (queue wait + translation), ms. */
  requestTimeoutMs: number;
  /** Longest a model may take to load before its requests fail, ms. */
  loadTimeoutMs: number;
  /** An extra copy of a model is given back after its queue has been empty this long, ms. */
  spreadLingerMs: number;
  /** A model unused this long is freed even when nothing else needs the memory, ms (0: only under memory pressure). */
  idleUnloadMs: number;
  /** Reads a model's files (called once per worker that loads the model). */
  loadModel: (key: string) => Promise<ModelPayload>;
  /** First guess of a model's memory before one load has been measured. */
  estimateBytes: (key: string) => number;
  /** The runtime refused to load a model (it aborted): the engine stops offering it. */
  onLoadFailed?: (key: string, reason: string) => void;
  logger?: Logger;
}

export interface BergamotPoolStats {
  workers: number;
  busyWorkers: number;
  queuedRequests: number;
  /** One entry per worker holding a model (a model loaded in two workers is listed twice). */
  loadedModels: string[];
}

export interface LoadStats {
  key: string;
  worker: number;
  bytes: number;
  loadMs: number;
}
