// Many directions side by side (issue 46): within the budget, every direction visited stays loaded and is served
// without a reload, and a load goes to a runtime whose models have nothing waiting (a load holds its runtime for
// seconds). The ten base-memory directions of the issue are checked on the placement itself, with the heap each
// one measured in bench/bergamot-memory.ts; generated small models check the engine end to end.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { BergamotEngine, defaultMemoryBudgetMb } from '../../../src/engines/bergamot/index.js';
import { RUNTIME_HEAP_MAX_BYTES, planLoad } from '../../../src/engines/bergamot/placement.js';
import { RuntimeWorker } from '../../../src/engines/bergamot/runtime-handle.js';
import { heapPeakSampler, measureOneModel, modelsDirWith } from '../../helpers/bergamot-models.js';

const MiB = 1048576;
/** Heap of the bare runtime and what one base-memory direction adds to it (478–557 MiB measured; the most, rounded up). */
const BARE_HEAP = 53 * MiB;
const BASE_MEMORY_MODEL = 560 * MiB;

/** A runtime as the pool sees it, without its thread: the placement only reads its state. */
function runtime(index: number): RuntimeWorker {
  return Object.assign(Object.create(RuntimeWorker.prototype) as RuntimeWorker, {
    index, busy: false, dead: false, heapBytes: BARE_HEAP, baseHeapBytes: BARE_HEAP, loading: undefined, loaded: new Map(),
  });
}

describe('bergamot directions side by side', () => {
  it("places ten base-memory directions under the default budget, none pushing another out (this 2-core machine, the issue's 16-core one)", () => {
    for (const [cores, gib] of [[2, 24], [16, 128]] as const) {
      const budget = defaultMemoryBudgetMb(gib * 1024 * MiB) * MiB;
      const workers = Array.from({ length: cores }, (_, i) => runtime(i));
      for (let d = 0; d < 10; d++) {
        const plan = planLoad(workers, { estimate: BASE_MEMORY_MODEL, first: true, budget, runtimeHeapMax: RUNTIME_HEAP_MAX_BYTES });
        assert.notEqual(plan.kind, 'wait', `direction ${d} on ${cores} cores`);
        let worker: RuntimeWorker;
        if (plan.kind === 'new-runtime') workers.push((worker = runtime(workers.length)));
        else if (plan.kind === 'load') {
          assert.deepEqual([plan.free, plan.recycle], [[], []], `direction ${d} on ${cores} cores frees nothing`);
          worker = plan.worker;
        } else continue;
        worker.loaded.set(`d${d}`, { bytes: BASE_MEMORY_MODEL, lastUsed: d });
        worker.heapBytes += BASE_MEMORY_MODEL;
      }
      assert.equal(workers.reduce((n, w) => n + w.loaded.size, 0), 10);
      assert.ok(workers.every((w) => w.heapBytes <= RUNTIME_HEAP_MAX_BYTES));
      const total = workers.reduce((n, w) => n + w.heapBytes, 0);
      assert.ok(total <= budget, `${cores} cores: ${Math.round(total / MiB)} MiB of heaps, budget ${budget / MiB} MiB`);
      // Enough cores: one direction per runtime, so ten directions translate at once.
      if (cores >= 10) assert.ok(workers.every((w) => w.loaded.size <= 1));
    }
  });

  it('loads a direction into a runtime whose models have no request waiting', () => {
    const [busyModels, quiet] = [runtime(0), runtime(1)];
    busyModels.loaded.set('en-es', { bytes: BASE_MEMORY_MODEL, lastUsed: 1 });
    quiet.loaded.set('de-en', { bytes: BASE_MEMORY_MODEL, lastUsed: 2 });
    for (const w of [busyModels, quiet]) w.heapBytes += BASE_MEMORY_MODEL;
    const req = { estimate: BASE_MEMORY_MODEL, first: true, budget: 8192 * MiB, runtimeHeapMax: RUNTIME_HEAP_MAX_BYTES };
    const plan = planLoad([busyModels, quiet], { ...req, queued: new Set(['fr-en', 'en-es']) });
    assert.equal(plan.kind === 'load' && plan.worker, quiet);
    // Nothing waiting anywhere: the runtime with the fewest models, the first of equals.
    assert.equal((planLoad([busyModels, quiet], req) as { worker?: RuntimeWorker }).worker, busyModels);
  });

  describe('end to end, generated models', () => {
    const PAIRS = ['en-es', 'de-en', 'es-en'];
    let root: string;
    let runtimeHeapMaxMb: number;
    before(async () => {
      root = await modelsDirWith(PAIRS);
      // Room for two models per runtime, as base-memory models have three: co-located models take turns.
      const { oneModelHeap, bareHeap } = await measureOneModel(root, { source: 'en', target: 'es' });
      runtimeHeapMaxMb = (bareHeap + 2.5 * (oneModelHeap - bareHeap)) / MiB;
    });
    after(() => rm(root, { recursive: true, force: true }));

    it('serves directions visited in turn without reloading any, under the default budget', async () => {
      // Two workers, two models per runtime: a request for one model waits while its runtime translates the other,
      // which is no reason for a copy in the idle worker (a load takes longer than that batch). Each round asks every
      // two directions at once and then all three, so the two models that share a runtime wait on each other while
      // the other worker idles; no direction ever waits behind its own traffic (that wait may earn a copy when a
      // worker is idle, by design: worker-pool.ts).
      const engine = new BergamotEngine({ modelsDir: root, workers: 2, runtimeHeapMaxMb, rescanIntervalMs: 0, requestTimeoutMs: 120_000 });
      const heaps = heapPeakSampler(engine);
      const pair = (p: string) => ({ source: p.slice(0, 2), target: p.slice(3) });
      try {
        await engine.start();
        const stream = async (rounds: number) => {
          const [a, b, c] = PAIRS as [string, string, string];
          for (let round = 0; round < rounds; round++) {
            for (const together of [[a, b], [a, c], [b, c], [a, b, c]]) {
              await Promise.all(
                together.map(async (p) => {
                  const [out] = await engine.translate(pair(p), [`Round ${round} asks ${p}.`], {});
                  assert.ok(out!.length > 0);
                }),
              );
            }
          }
        };
        await stream(2);
        const afterFirstVisits = engine.loadStats().length;
        await stream(5);
        assert.equal(engine.loadStats().length, afterFirstVisits, 'no load after every direction was visited');
        assert.deepEqual(engine.loadStats().map((l) => l.key).sort(), [...PAIRS].sort());
        const { copies, heapBytes } = engine.runtimeMemory();
        assert.deepEqual([...copies].sort(), PAIRS.map((p) => [p, 1]).sort());
        assert.equal(heapBytes.length, 2);
        const peak = heaps.peak();
        assert.ok(peak <= defaultMemoryBudgetMb() * MiB, `${Math.round(peak / MiB)} MiB of heaps, budget ${defaultMemoryBudgetMb()} MiB`);
      } finally {
        heaps.stop();
        await engine.close();
      }
    });
  });
});
