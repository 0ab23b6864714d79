// How a busy direction spreads over the workers and how idle models give their memory back (issue 46): interactive
// one-sentence traffic, which never fills a batch, still gets more copies while it waits for them; copies and idle
// models go back when unused; the budget bounds it all; several directions share one worker's runtime.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { BergamotEngine, defaultMemoryBudgetMb } from '../../../src/engines/bergamot/index.js';
import { loadConfig } from '../../../src/config.js';
import { heapPeakSampler, measureOneModel, modelsDirWith } from '../../helpers/bergamot-models.js';
import { waitFor } from '../../helpers/wait.js';

const EN_ES = { source: 'en', target: 'es' };
const DE_EN = { source: 'de', target: 'en' };
const GiB = 1024 ** 3;

/** `clients` closed-loop clients, each sending one-sentence requests until `stop()` returns true; resolves to the count. */
async function interactive(engine: BergamotEngine, clients: number, stop: () => boolean): Promise<number> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      while (!stop()) {
        const [out] = await engine.translate(EN_ES, [`Client ${c} asks question ${sent++}.`], {});
        assert.ok(out!.length > 0);
      }
    }),
  );
  return sent;
}

describe('bergamot scaling', () => {
  let root: string;
  let oneModelHeap: number;
  let bareHeap: number;

  before(async () => {
    root = await modelsDirWith(['en-es', 'de-en']);
    ({ oneModelHeap, bareHeap } = await measureOneModel(root, EN_ES));
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('copies a direction into another worker under one-sentence requests that wait, and gives the copy back when idle', async () => {
    const engine = new BergamotEngine({ modelsDir: root, workers: 2, spreadLingerMs: 200, rescanIntervalMs: 0 });
    try {
      await engine.start();
      await engine.translate(EN_ES, ['The house is big.'], {});
      // Eight clients, one sentence each: never more than one batch (64 segments) waits, yet requests queue.
      let copied = false;
      const traffic = interactive(engine, 8, () => copied);
      await waitFor('a second copy of en-es', () => (copied = engine.runtimeMemory().copies.get('en-es') === 2));
      await traffic;
      assert.deepEqual(engine.loadStats().map((l) => l.key), ['en-es', 'en-es']);
      await waitFor('the extra copy given back', () => engine.runtimeMemory().copies.get('en-es') === 1);
    } finally {
      await engine.close();
    }
  });

  it('adds no copy that the budget cannot hold, however long requests wait', async () => {
    const budgetMb = (oneModelHeap * 1.5) / 1048576;
    const engine = new BergamotEngine({ modelsDir: root, workers: 2, memoryBudgetMb: budgetMb, rescanIntervalMs: 0 });
    const heaps = heapPeakSampler(engine);
    try {
      await engine.start();
      await engine.translate(EN_ES, ['The house is big.'], {});
      let done = 0;
      const sent = await interactive(engine, 8, () => ++done > 400);
      assert.ok(sent >= 400);
      const peak = heaps.peak();
      assert.deepEqual(engine.loadStats().map((l) => l.key), ['en-es']);
      assert.ok(peak <= budgetMb * 1048576, `${Math.round(peak / 1048576)} MiB held, budget ${Math.round(budgetMb)} MiB`);
    } finally {
      heaps.stop();
      await engine.close();
    }
  });

  it('holds several directions in one worker runtime', async () => {
    const engine = new BergamotEngine({ modelsDir: root, workers: 1, rescanIntervalMs: 0 });
    try {
      await engine.start();
      const [es] = await engine.translate(EN_ES, ['The house is big.'], {});
      const [en] = await engine.translate(DE_EN, ['Das Haus ist groß.'], {});
      assert.ok(es!.length > 0 && en!.length > 0);
      const { heapBytes, copies } = engine.runtimeMemory();
      assert.equal(heapBytes.length, 1);
      assert.deepEqual([...copies.keys()].sort(), ['de-en', 'en-es']);
      assert.ok(heapBytes[0]! > oneModelHeap, 'the second model grew the same heap');
    } finally {
      await engine.close();
    }
  });

  it("starts another runtime to hold a model its workers' heaps cannot, and still runs only `workers` batches at once", async () => {
    // Each runtime may hold one model: the second direction needs a second runtime, though there is one worker.
    const runtimeHeapMaxMb = (oneModelHeap * 1.5) / 1048576;
    const engine = new BergamotEngine({ modelsDir: root, workers: 1, runtimeHeapMaxMb, rescanIntervalMs: 0 });
    let mostBusy = 0;
    const sampler = setInterval(() => (mostBusy = Math.max(mostBusy, engine.stats().busyWorkers)), 2);
    try {
      await engine.start();
      for (let round = 0; round < 3; round++) {
        const outs = await Promise.all([
          ...Array.from({ length: 4 }, (_, i) => engine.translate(EN_ES, [`The house number ${i} is big.`], {})),
          ...Array.from({ length: 4 }, (_, i) => engine.translate(DE_EN, [`Das Haus Nummer ${i} ist groß.`], {})),
        ]);
        assert.ok(outs.every(([t]) => t!.length > 0));
      }
      const { heapBytes, copies } = engine.runtimeMemory();
      assert.equal(heapBytes.length, 2);
      assert.ok(heapBytes.every((h) => h <= runtimeHeapMaxMb * 1048576), `heaps ${heapBytes.map((h) => Math.round(h / 1048576))} MiB`);
      assert.deepEqual([...copies].sort(), [['de-en', 1], ['en-es', 1]]);
      // Each model loaded once: they live side by side, never pushing each other out.
      assert.deepEqual(engine.loadStats().map((l) => l.key).sort(), ['de-en', 'en-es']);
      assert.equal(mostBusy, 1);
    } finally {
      clearInterval(sampler);
      await engine.close();
    }
  });

  it('unloads a direction after it has been idle, giving the heap back, and loads it again when asked', async () => {
    const engine = new BergamotEngine({ modelsDir: root, workers: 1, idleUnloadMs: 300, rescanIntervalMs: 0 });
    try {
      await engine.start();
      const [es] = await engine.translate(EN_ES, ['The house is big.'], {});
      // Its only worker is restarted with a bare runtime.
      await waitFor('en-es unloaded', () => engine.runtimeMemory().copies.size === 0);
      await waitFor('the heap given back', () => {
        const heaps = engine.runtimeMemory().heapBytes;
        return heaps.length === 1 && heaps[0]! > 0 && heaps[0]! <= bareHeap * 2 && heaps[0]! < oneModelHeap;
      });
      const [again] = await engine.translate(EN_ES, ['The house is big.'], {});
      assert.equal(again, es);
      assert.deepEqual(engine.loadStats().map((l) => l.key), ['en-es', 'en-es']);
    } finally {
      await engine.close();
    }
  });

  it('keeps a used direction loaded while another one goes idle', async () => {
    const engine = new BergamotEngine({ modelsDir: root, workers: 1, idleUnloadMs: 2000, rescanIntervalMs: 0 });
    try {
      await engine.start();
      await engine.translate(DE_EN, ['Das Haus ist groß.'], {});
      await engine.translate(EN_ES, ['The house is big.'], {});
      // en-es keeps being used; de-en is not.
      await waitFor('de-en unloaded', async () => {
        await engine.translate(EN_ES, ['The house is big.'], {});
        return !engine.runtimeMemory().copies.has('de-en');
      });
      assert.equal(engine.runtimeMemory().copies.get('en-es'), 1);
      assert.deepEqual(engine.loadStats().map((l) => l.key), ['de-en', 'en-es']);
    } finally {
      await engine.close();
    }
  });

  it('has a default budget that follows the machine: a quarter of its memory, between 2 and 32 GiB', () => {
    assert.equal(defaultMemoryBudgetMb(4 * GiB), 2048);
    assert.equal(defaultMemoryBudgetMb(24 * GiB), 6144);
    assert.equal(defaultMemoryBudgetMb(64 * GiB), 16384);
    assert.equal(defaultMemoryBudgetMb(512 * GiB), 32768);
    // The configuration leaves it to the engine unless TOLK_BERGAMOT_MEMORY_MB is set.
    assert.equal(loadConfig({ TOLK_DATA_DIR: '/tmp/tolk-scaling-test' }).bergamot.memoryBudgetMb, undefined);
    assert.equal(loadConfig({ TOLK_DATA_DIR: '/tmp/tolk-scaling-test', TOLK_BERGAMOT_MEMORY_MB: '3000' }).bergamot.memoryBudgetMb, 3000);
  });
});
