// The Bergamot worker pool's memory: loads in progress count against the budget, a model lives in one worker until
// its queue is long, and a burst that arrives during a load waits for it instead of failing on the deadline.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { EngineError } from '../../../src/engines/engine.js';
import { BergamotEngine } from '../../../src/engines/bergamot/index.js';
import { heapPeakSampler, measureOneModel, modelsDirWith } from '../../helpers/bergamot-models.js';
import { waitFor } from '../../helpers/wait.js';

const EN_ES = { source: 'en', target: 'es' };
const DE_EN = { source: 'de', target: 'en' };
const burst = (engine: BergamotEngine, pair: typeof EN_ES, n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => engine.translate(pair, [`The house number ${i} is big.`], {})));

/** Delays the reading of model files, as a slow disk would (the load then lasts at least `ms`). */
function slowStorage(engine: BergamotEngine, ms: number): void {
  const target = engine as unknown as { payload: (key: string) => Promise<unknown> };
  const read = target.payload.bind(engine);
  target.payload = async (key) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return read(key);
  };
}

describe('bergamot memory', () => {
  let root: string;
  let oneModelHeap: number;

  before(async () => {
    root = await modelsDirWith(['en-es', 'de-en']);
    ({ oneModelHeap } = await measureOneModel(root, EN_ES));
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('loads a model into one worker for a burst of short requests, not into every worker', async () => {
    const engine = new BergamotEngine({ modelsDir: root, workers: 4, rescanIntervalMs: 0 });
    try {
      await engine.start();
      const outs = await burst(engine, EN_ES, 8);
      assert.equal(outs.length, 8);
      assert.deepEqual(engine.loadStats().map((l) => l.key), ['en-es']);
      assert.deepEqual([...engine.runtimeMemory().copies], [['en-es', 1]]);
    } finally {
      await engine.close();
    }
  });

  it('counts loads in progress: two models asked at once never hold more than the budget', async () => {
    // Room for one model and a half: the second must wait and take the first one's place.
    const budgetMb = (oneModelHeap * 1.5) / 1048576;
    const engine = new BergamotEngine({ modelsDir: root, workers: 2, memoryBudgetMb: budgetMb, rescanIntervalMs: 0 });
    const heaps = heapPeakSampler(engine);
    try {
      await engine.start();
      const [en, de] = await Promise.all([burst(engine, EN_ES, 4), burst(engine, DE_EN, 4)]);
      assert.equal(en.length + de.length, 8);
      const peak = heaps.peak();
      assert.ok(peak <= budgetMb * 1048576, `${Math.round(peak / 1048576)} MiB held, budget ${Math.round(budgetMb)} MiB`);
      assert.deepEqual(engine.loadStats().map((l) => l.key).sort(), ['de-en', 'en-es']);
    } finally {
      heaps.stop();
      await engine.close();
    }
  });

  it('copies a model into a second worker while its queue is long, and gives the copy back when it is idle', async () => {
    const engine = new BergamotEngine({ modelsDir: root, workers: 2, spreadLingerMs: 50, rescanIntervalMs: 0 });
    try {
      await engine.start();
      await engine.translate(EN_ES, ['The house is big.'], {});
      // Several requests with more segments than one batch takes: the queue stays long.
      const long = Array.from({ length: 40 }, (_, i) => `Sentence ${i} is here.`);
      await Promise.all([engine.translate(EN_ES, long, {}), engine.translate(EN_ES, long, {}), engine.translate(EN_ES, long, {})]);
      // On a loaded machine the copy may finish loading just after the queue has drained: it still loads, once.
      await waitFor('the copy loaded', () => engine.loadStats().length === 2);
      assert.deepEqual(engine.loadStats().map((l) => l.key), ['en-es', 'en-es']);
      await waitFor('the extra copy given back', () => engine.runtimeMemory().copies.get('en-es') === 1);
    } finally {
      await engine.close();
    }
  });

  it("serves another account's short request between the chunks of a long one", async () => {
    const engine = new BergamotEngine({ modelsDir: root, workers: 1, rescanIntervalMs: 0 });
    try {
      await engine.start();
      await engine.translate(EN_ES, ['The house is big.'], {});
      const done: string[] = [];
      const long = engine.translate(EN_ES, Array.from({ length: 200 }, (_, i) => `Sentence ${i} is here.`), { requester: 'bulk' }).then(() => done.push('long'));
      const short = engine.translate(EN_ES, ['The house is big.'], { requester: 'interactive' }).then(() => done.push('short'));
      await Promise.all([long, short]);
      assert.deepEqual(done, ['short', 'long']);
    } finally {
      await engine.close();
    }
  });

  it('lets a burst that arrives during a load wait for it; the deadline starts when the model is ready', async () => {
    const engine = new BergamotEngine({ modelsDir: root, workers: 2, requestTimeoutMs: 3000, rescanIntervalMs: 0 });
    slowStorage(engine, 3500);
    try {
      await engine.start();
      const outs = await burst(engine, EN_ES, 8);
      assert.ok(outs.every(([t]) => t!.length > 0));
    } finally {
      await engine.close();
    }
  });

  it('fails a load that outlasts its limit with a clear timeout', async () => {
    const engine = new BergamotEngine({ modelsDir: root, workers: 1, loadTimeoutMs: 200, rescanIntervalMs: 0 });
    slowStorage(engine, 600);
    try {
      await engine.start();
      await assert.rejects(engine.translate(EN_ES, ['The house is big.'], {}), (err: unknown) => {
        assert.ok(err instanceof EngineError && err.kind === 'timeout');
        assert.match(err.message, /en-es: the model did not load within 200 ms/);
        return true;
      });
    } finally {
      await engine.close();
    }
  });
});
