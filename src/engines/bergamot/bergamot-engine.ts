// The Bergamot engine: Firefox Translations' neural models (one directory per direction under the models directory),
// run by the WebAssembly runtime in worker threads; directories are re-scanned when they change, without a restart.
import { availableParallelism, totalmem } from 'node:os';
import {
  EngineError,
  type EnginePairInfo,
  type EngineTranslateOptions,
  type LanguagePair,
  type TranslationEngine,
} from '../engine.js';
import { DirectoryWatch } from '../../lib/dir-watch.js';
import { silentLogger, type Logger } from '../../lib/logger.js';
import { markTerms, placeTerms, translateAround } from './glossary-terms.js';
import { readModelFile, scanModelsDir, type BadModelDir, type ModelInfo } from './model-dir.js';
import { WorkerPool, type BergamotPoolStats, type LoadStats, type ModelPayload } from './worker-pool.js';

export interface BergamotEngineOptions {
  /** Directory holding one model directory per direction. */
  modelsDir: string;
  /** Worker threads, each with its own runtime. Default: one per core. */
  workers?: number;
  /**
   * Memory of the runtimes, MiB: every worker's WebAssembly heap (an upper bound of what it touches) and the loads in
   * progress; least recently used models are unloaded beyond it. Default: defaultMemoryBudgetMb().
   */
  memoryBudgetMb?: number;
  /** Limit of a call from the moment its model is ready (queue wait + translation). Default 15000. */
  requestTimeoutMs?: number;
  /** Longest a model may take to load (a burst that arrives meanwhile waits for it). Default 60000. */
  loadTimeoutMs?: number;
  /** An extra copy of a model, loaded while its queue was long, is given back after this long without it, ms. Default 10000. */
  spreadLingerMs?: number;
  /** A model unused this long is unloaded even when its memory is not needed, ms (0: only beyond the budget). Default 600000. */
  idleUnloadMs?: number;
  /** Most heap one runtime may reach, MiB (default: what the WebAssembly build allows, less a margin; lower only in tests). */
  runtimeHeapMaxMb?: number;
  /** Segments per runtime call. Default 64. */
  maxBatchSegments?: number;
  /** Re-scan the directory this often even without a change event, ms (0: never). Default 30000. */
  rescanIntervalMs?: number;
  logger?: Logger;
}

/** Decoding settings of Firefox's own translation worker (greedy search; the runtime's GEMM is int8). */
function runtimeConfig(precision: ModelInfo['precision']): string {
  return [
    'beam-size: 1',
    'normalize: 1.0',
    'word-penalty: 0',
    'max-length-break: 128',
    'mini-batch-words: 1024',
    'workspace: 128',
    'max-length-factor: 2.0',
    'skip-cost: true',
    'cpu-threads: 0',
    'quiet: true',
    'quiet-translation: true',
    `gemm-precision: ${precision}`,
    'alignment: soft',
    '',
  ].join('\n');
}

const WORKSPACE_BYTES = 128 * 1048576;

/**
 * The default memory budget, MiB: a quarter of the machine's memory, at least 2048 and at most 32768. A base-memory
 * direction reserves about 530 MiB of heap per copy, so 6144 MiB on a 24 GiB machine holds ten directions at once, and
 * the rest of the memory is left to the other engines (Apertium, the local language model) and the system.
 */
export function defaultMemoryBudgetMb(machineBytes = totalmem()): number {
  return Math.min(32768, Math.max(2048, Math.floor(machineBytes / 1048576 / 4)));
}

const pairKey = (source: string, target: string) => `${source}-${target}`;

export class BergamotEngine implements TranslationEngine {
  readonly name = 'bergamot';
  // No `context` (the models translate sentence by sentence). Glossary terms are carried by the runtime's HTML mode
  // and checked (glossary-terms.ts): a term the model loses is recovered, never dropped.
  readonly features = { context: false, glossary: true };
  private readonly opts: Required<Omit<BergamotEngineOptions, 'logger' | 'runtimeHeapMaxMb'>> & Pick<BergamotEngineOptions, 'runtimeHeapMaxMb'>;
  private readonly log: Logger;
  private pool: WorkerPool | undefined;
  private models = new Map<string, ModelInfo>();
  private badDirs: BadModelDir[] = [];
  private readonly watch: DirectoryWatch;
  private readonly listeners: (() => void)[] = [];
  /** Directories the runtime aborted on, by directory, with the file stamp they had. */
  private readonly refused = new Map<string, { stamp: string; reason: string }>();

  constructor(options: BergamotEngineOptions) {
    this.opts = {
      workers: availableParallelism(),
      memoryBudgetMb: defaultMemoryBudgetMb(),
      requestTimeoutMs: 15_000,
      loadTimeoutMs: 60_000,
      spreadLingerMs: 10_000,
      idleUnloadMs: 600_000,
      maxBatchSegments: 64,
      rescanIntervalMs: 30_000,
      ...options,
    };
    this.log = options.logger ?? silentLogger;
    this.watch = new DirectoryWatch(this.opts.modelsDir, () => this.rescanOnce(), { intervalMs: this.opts.rescanIntervalMs, logger: this.log, what: 'bergamot models' });
  }

  async start(): Promise<void> {
    await this.rescan();
    this.pool = new WorkerPool({
      workers: Math.max(1, this.opts.workers),
      memoryBudgetBytes: this.opts.memoryBudgetMb * 1048576,
      maxBatchSegments: this.opts.maxBatchSegments,
      requestTimeoutMs: this.opts.requestTimeoutMs,
      loadTimeoutMs: this.opts.loadTimeoutMs,
      spreadLingerMs: this.opts.spreadLingerMs,
      idleUnloadMs: this.opts.idleUnloadMs,
      ...(this.opts.runtimeHeapMaxMb ? { runtimeHeapMaxBytes: this.opts.runtimeHeapMaxMb * 1048576 } : {}),
      loadModel: (key) => this.payload(key),
      // What a load adds to a worker's heap, as measured on generated tiny and base-memory models (290 MB for 5 MB of
      // files, 512 MB for 37 MB): the workspace twice over, and seven times the files.
      estimateBytes: (key) => (this.models.get(key)?.bytes ?? 0) * 7 + 2 * WORKSPACE_BYTES,
      onLoadFailed: (key, reason) => this.refuseLoaded(key, reason),
      logger: this.log,
    });
    // The runtimes start with the first translation: a server without models pays nothing for this engine.
    this.watch.start();
  }

  /** Called after the set of pairs changed (models installed or removed while running). */
  onPairsChanged(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Model directories that were refused at the last scan, with the reason. */
  badModelDirs(): BadModelDir[] {
    return this.badDirs;
  }

  installedModels(): ModelInfo[] {
    return [...this.models.values()];
  }

  /** The worker pool now (all zero before the first translation starts it) and the models installed. */
  stats(): BergamotPoolStats & { installedModels: number } {
    const pool = this.pool?.stats() ?? { workers: 0, busyWorkers: 0, queuedRequests: 0, loadedModels: [] };
    return { ...pool, installedModels: this.models.size };
  }

  /** Each worker's WebAssembly heap, bytes, and the copies of each loaded model. */
  runtimeMemory(): { heapBytes: number[]; copies: Map<string, number> } {
    return { heapBytes: this.pool?.heapBytes() ?? [], copies: this.pool?.copies() ?? new Map() };
  }

  /** Loads seen so far (model, worker, measured memory, cold-load time). */
  loadStats(): LoadStats[] {
    return this.pool?.loads ?? [];
  }

  /** Re-reads the models directory; serialised, and repeated once if asked again while running. */
  rescan(): Promise<void> {
    return this.watch.rescan();
  }

  private async rescanOnce(): Promise<void> {
    const { models, bad } = await scanModelsDir(this.opts.modelsDir);
    const next = new Map<string, ModelInfo>();
    for (const m of models) {
      const refused = this.refused.get(m.dir);
      if (refused?.stamp === m.stamp) {
        bad.push({ dir: m.dir, reason: refused.reason });
        continue;
      }
      this.refused.delete(m.dir);
      const key = pairKey(m.source, m.target);
      const other = next.get(key);
      if (other) bad.push({ dir: m.dir, reason: `a second model for ${key} (${other.dir} is used)` });
      else next.set(key, m);
    }
    const known = new Set(this.badDirs.map((b) => `${b.dir}\n${b.reason}`));
    for (const b of bad) if (!known.has(`${b.dir}\n${b.reason}`)) this.log.error({ dir: b.dir, reason: b.reason }, 'bergamot model directory refused');
    this.badDirs = bad;
    let changed = next.size !== this.models.size;
    for (const [key, old] of this.models) {
      const now = next.get(key);
      if (!now || now.stamp !== old.stamp || now.dir !== old.dir) {
        changed = true;
        await this.pool?.unload(key);
      }
    }
    for (const key of next.keys()) if (!this.models.has(key)) changed = true;
    this.models = next;
    if (changed) {
      this.log.info({ pairs: [...next.keys()] }, 'bergamot models');
      for (const l of this.listeners) l();
    }
  }

  /** A model the runtime aborted on: refused like a bad directory until its files change. */
  private refuseLoaded(key: string, reason: string): void {
    const info = this.models.get(key);
    if (!info) return;
    this.models.delete(key);
    this.refused.set(info.dir, { stamp: info.stamp, reason: `the runtime cannot load it (${reason})` });
    this.badDirs = [...this.badDirs, { dir: info.dir, reason: this.refused.get(info.dir)!.reason }];
    this.log.error({ dir: info.dir, reason }, 'bergamot model directory refused');
    for (const l of this.listeners) l();
  }

  private async payload(key: string): Promise<ModelPayload> {
    const info = this.models.get(key);
    if (!info) throw new EngineError('unsupported_pair', `no bergamot model for ${key}`);
    const { files } = info;
    const read = async (path: string) => {
      const buf = await readModelFile(path);
      // A standalone copy, so the transfer to the worker moves exactly this file's bytes.
      return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
    };
    const [model, shortlist, src] = await Promise.all([read(files.model), read(files.shortlist), read(files.srcVocab)]);
    const vocabs = files.trgVocab === files.srcVocab ? [src] : [src, await read(files.trgVocab)];
    return { config: runtimeConfig(info.precision), model, shortlist, vocabs };
  }

  pairs(): EnginePairInfo[] {
    return [...this.models.values()].map((m) => ({ source: m.source, target: m.target, formality: false }));
  }

  async translate(pair: LanguagePair, segments: string[], options: EngineTranslateOptions): Promise<string[]> {
    const key = pairKey(pair.source.toLowerCase(), pair.target.toLowerCase());
    if (!this.models.has(key)) throw new EngineError('unsupported_pair', `no bergamot model for ${pair.source}→${pair.target}`);
    if (!this.pool) throw new EngineError('unavailable', 'bergamot engine is not started');
    const texts: string[] = [];
    const at: number[] = [];
    segments.forEach((s, i) => {
      if (s.trim() !== '') {
        at.push(i);
        texts.push(s);
      }
    });
    const out = segments.map(() => '');
    if (texts.length === 0) return out;
    const marked = options.glossary?.length ? texts.map((t) => markTerms(t, options.glossary!)) : [];
    const run = async (input: string[], html: boolean[] = []) => {
      try {
        return await this.pool!.translate(key, input, { signal: options.signal, html, requester: options.requester });
      } catch (err) {
        throw err instanceof EngineError ? err : new EngineError('failed', String((err as Error)?.message ?? err), { cause: err });
      }
    };
    const translated = await run(
      texts.map((t, i) => marked[i]?.html ?? t),
      texts.map((_, i) => marked[i] !== undefined),
    );
    const recover: number[] = [];
    marked.forEach((m, i) => {
      if (!m) return;
      const placed = placeTerms(translated[i]!, m.targets);
      translated[i] = placed.text;
      if (placed.lost.length > 0) recover.push(i);
    });
    if (recover.length > 0) {
      this.log.warn({ model: key, segments: recover.length }, 'bergamot lost glossary terms; translating around them');
      const recovered = await translateAround(recover.map((i) => marked[i]!), (input) => run(input));
      recover.forEach((i, r) => (translated[i] = recovered[r]!));
    }
    at.forEach((i, k) => (out[i] = translated[k]!));
    return out;
  }

  async close(): Promise<void> {
    await this.watch.close();
    await this.pool?.close();
  }
}
