// Where the Bergamot pool loads a model and what it frees for it, when a busy model gets another copy, and which
// models idled long enough to go back: the decisions only, over the runtimes as they are now (worker-pool.ts carries them out).
import type { RuntimeWorker } from './runtime-handle.js';

/**
 * Most heap one runtime may reach with its models: the WebAssembly build's maximum memory is 2 GiB, and a load that
 * outgrows it aborts the runtime (a fifth base-memory model in one worker does). The margin covers a load's heap
 * growing past what the same model measured before.
 */
export const RUNTIME_HEAP_MAX_BYTES = 2048 * 1048576 - 96 * 1048576;

/** Waiting segments per copy being loaded at once for a busy model: 64 waiting one-sentence requests load 16. */
const SEGMENTS_PER_NEW_COPY = 4;

/**
 * When what waits for a model whose loaded copies are all busy will have waited long enough for one more copy:
 * half its recent batch time after the oldest waiting chunk was queued. Undefined: no copy now (none loaded yet, or
 * one load under way per SEGMENTS_PER_NEW_COPY waiting segments already).
 */
export function copyDue(oldestQueuedAt: number, batchMs: number | undefined, loaded: number, loading: number, segments: number): number | undefined {
  if (loaded === 0 || loading >= Math.ceil(segments / SEGMENTS_PER_NEW_COPY)) return undefined;
  return oldestQueuedAt + (batchMs ?? 0) / 2;
}

export interface LoadRequest {
  /** What the load will add to a runtime's heap (measured before, else estimated). */
  estimate: number;
  /** A first copy may free other models; a further copy only uses free room. */
  first: boolean;
  budget: number;
  runtimeHeapMax: number;
  /** Models with requests waiting: a load blocks its runtime for seconds, so it goes where none of these are. */
  queued?: ReadonlySet<string>;
}

export type LoadPlan =
  | { kind: 'wait' }
  | { kind: 'new-runtime' }
  | { kind: 'load'; worker: RuntimeWorker; free: string[]; recycle: RuntimeWorker[] };

/** Memory the runtimes hold or are about to: every worker's heap and the loads in progress. */
export function committedBytes(workers: RuntimeWorker[]): number {
  let sum = 0;
  for (const w of workers) sum += w.heapBytes + (w.loading?.reserved ?? 0);
  return sum;
}

/** Whether every model a worker holds is also held by another live worker. */
export function holdsOnlyCopies(worker: RuntimeWorker, workers: RuntimeWorker[]): boolean {
  return [...worker.loaded.keys()].every((key) => workers.some((o) => o !== worker && !o.dead && o.loaded.has(key)));
}

/**
 * The idle worker that fits the load as it is, whose models have nothing waiting (a load holds its runtime for
 * seconds, and their requests would wait for it), with the fewest models; else a new runtime when the existing ones are
 * full and the budget holds one more; else (a first copy only) the idle worker whose models are the coldest, after
 * freeing its own models and then whole idle workers. Waits when nothing can be freed before a busy worker is done.
 */
export function planLoad(workers: RuntimeWorker[], req: LoadRequest): LoadPlan {
  const idle = workers.filter((w) => !w.dead && !w.busy);
  if (idle.length === 0) return { kind: 'wait' };
  const { estimate, budget } = req;
  const committed = committedBytes(workers);
  const underCap = (w: RuntimeWorker, slack = w.slackBytes()) => w.heapBytes + Math.max(0, estimate - slack) <= req.runtimeHeapMax;
  const waitedFor = (w: RuntimeWorker) => [...w.loaded.keys()].filter((k) => req.queued?.has(k)).length;
  const fitting = idle
    .filter((w) => underCap(w) && committed + Math.max(0, estimate - w.slackBytes()) <= budget)
    .sort((a, b) => waitedFor(a) - waitedFor(b) || a.loaded.size - b.loaded.size);
  if (fitting[0]) return { kind: 'load', worker: fitting[0], free: [], recycle: [] };
  const bareHeap = Math.max(...workers.map((w) => w.baseHeapBytes));
  if (committed + bareHeap + estimate <= budget) return { kind: 'new-runtime' };
  if (!req.first) return { kind: 'wait' }; // a further copy never pushes anything out
  // Workers that hold only extra copies go first (their models stay loaded elsewhere), then the coldest.
  const byVictimOrder = (a: RuntimeWorker, b: RuntimeWorker) => Number(holdsOnlyCopies(b, workers)) - Number(holdsOnlyCopies(a, workers)) || a.lastUsed() - b.lastUsed();
  const worker = [...idle].sort(byVictimOrder)[0]!;
  // Its own models first (their space is reused by this load), then whole idle workers; nothing is freed unless the
  // load can then start.
  const free: string[] = [];
  let slack = worker.slackBytes();
  const over = () => committed + Math.max(0, estimate - slack) - budget;
  for (const [victim, l] of [...worker.loaded].sort((a, b) => a[1].lastUsed - b[1].lastUsed)) {
    if (over() <= 0 && underCap(worker, slack)) break;
    free.push(victim);
    slack += l.bytes;
  }
  const recycle: RuntimeWorker[] = [];
  let left = over();
  for (const w of idle.filter((w) => w !== worker && w.loaded.size > 0).sort(byVictimOrder)) {
    if (left <= 0) break;
    recycle.push(w);
    left -= w.heapBytes - w.baseHeapBytes;
  }
  if (left > 0 && workers.some((w) => w !== worker && !recycle.includes(w) && (w.loaded.size > 0 || w.loading))) return { kind: 'wait' };
  return { kind: 'load', worker, free, recycle };
}

/**
 * Models to give back now, by worker (idle workers only; nothing with a queue): an extra copy unused for lingerMs, a
 * model's last copy unused for idleMs (0: never); and when the next one will be due (Infinity: none).
 */
export function idleModels(workers: RuntimeWorker[], queued: Set<string>, now: number, lingerMs: number, idleMs: number): { extra: Map<RuntimeWorker, string[]>; nextDue: number } {
  const extra = new Map<RuntimeWorker, string[]>();
  let nextDue = Infinity;
  const held = (key: string, by: RuntimeWorker) => workers.some((o) => o !== by && !o.dead && o.loaded.has(key) && !extra.get(o)?.includes(key));
  for (const w of [...workers].sort((a, b) => a.lastUsed() - b.lastUsed())) {
    if (w.dead || w.busy || w.loaded.size === 0) continue;
    const keys: string[] = [];
    for (const [key, l] of w.loaded) {
      if (queued.has(key)) continue;
      const linger = held(key, w) ? lingerMs : idleMs;
      if (linger <= 0) continue;
      if (now - l.lastUsed >= linger) keys.push(key);
      else nextDue = Math.min(nextDue, l.lastUsed + linger);
    }
    if (keys.length === 0) continue;
    extra.set(w, keys);
  }
  return { extra, nextDue };
}
