// The local language model (llama.cpp through node-llama-cpp) on a generated GGUF model: lazy load under a memory
// budget, generation off the event loop, cancellation, fair slots between accounts, models found while running,
// and post-edits of another engine's translations that fall back to them when the model's answer fails the checks.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EngineError, type TranslationEngine } from '../../src/engines/engine.js';
import { FairSlots, type FairSlotsOptions, type ReleaseSlot } from '../../src/engines/llm/fair-slots.js';
import { LlmEngine, LocalLanguageModel, PostEditedEngine, llmModelsDir, type PostEditCounts } from '../../src/engines/llm/index.js';
import { defaultLlmThreads } from '../../src/engines/llm/local-model.js';
import { loadConfig } from '../../src/config.js';
import { LoopStallMonitor } from '../helpers/loop-stall.js';
import { installTestLlm } from '../helpers/test-llm.js';
import { waitFor } from '../helpers/wait.js';

const CHAT = [
  { role: 'system' as const, content: 'You are a helpful assistant.' },
  { role: 'user' as const, content: 'Say something about the house.' },
];

const isEngineError = (kind: string, message?: RegExp) => (err: unknown) =>
  err instanceof EngineError && err.kind === kind && (message === undefined || message.test(err.message));

describe('local language model', () => {
  let modelsDir: string;
  let model: LocalLanguageModel;

  before(() => {
    modelsDir = mkdtempSync(join(tmpdir(), 'tolk-llm-models-'));
    model = new LocalLanguageModel({ dir: llmModelsDir(modelsDir), memoryBudgetMb: 512, threads: 1, contextSize: 2048, timeoutMs: 30_000, rescanIntervalMs: 0 });
  });
  after(async () => {
    await model?.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  it('is unavailable without a model, then finds one installed while running and loads it on first use', async () => {
    await model.start();
    assert.equal(model.available(), false);
    await assert.rejects(model.complete(CHAT), isEngineError('unavailable', /tolk models install llm-NAME/));
    installTestLlm(modelsDir);
    await waitFor('the installed model to be found', () => model.available());
    assert.equal(model.model, 'tolk-test');
    assert.equal(model.stats().loaded, false, 'not loaded before a request');
    const monitor = new LoopStallMonitor(300);
    const answer = await model.complete(CHAT, { maxTokens: 24 }).finally(() => monitor.stop());
    assert.equal(monitor.worst(), undefined, `the first load stalled the event loop: ${JSON.stringify(monitor.worst())}`);
    assert.equal(typeof answer, 'string');
    const stats = model.stats();
    assert.equal(stats.loaded, true);
    assert.equal(stats.generations, 1);
    assert.ok(stats.generatedTokens > 0 && stats.generatedTokens <= 24, `tokens: ${stats.generatedTokens}`);
    assert.ok((stats.estimatedBytes ?? 0) > 0);
  });

  it('holds an answer of numbered texts to that shape, and is deterministic at temperature 0', async () => {
    const options = { answer: { maxChars: [30, 30] }, maxTokens: 200 };
    const first = await model.complete(CHAT, options);
    const parsed = JSON.parse(first) as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed).sort(), ['1', '2']);
    for (const v of Object.values(parsed)) assert.ok(typeof v === 'string' && v.length <= 30);
    assert.equal(await model.complete(CHAT, options), first);
  });

  it('generates off the event loop', async () => {
    const monitor = new LoopStallMonitor(150);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    try {
      await model.complete([{ role: 'user', content: 'Write a long story about the city and the water.' }], { maxTokens: 300 });
    } finally {
      clearInterval(ticker);
      monitor.stop();
    }
    assert.equal(monitor.worst(), undefined, `event loop stalled: ${JSON.stringify(monitor.worst())}`);
    assert.ok(ticks > 0, 'timers ran during the generation');
  });

  it('stops a generation when its client leaves', async () => {
    const client = new AbortController();
    let tokens = 0;
    const before = model.stats().generatedTokens;
    await assert.rejects(
      model.complete(CHAT, {
        maxTokens: 2000,
        signal: client.signal,
        onTokens: (n) => {
          tokens += n;
          if (tokens >= 5) client.abort();
        },
      }),
      isEngineError('failed', /aborted/),
    );
    assert.ok(model.stats().generatedTokens - before < 100, 'stopped soon after the abort');
  });

  it("serves accounts in turn: another account's request overtakes one account's backlog", async () => {
    const order: string[] = [];
    const call = (requester: string, tag: string) => model.complete(CHAT, { maxTokens: 8, requester }).then(() => order.push(tag));
    await Promise.all([call('a', 'a1'), call('a', 'a2'), call('a', 'a3'), call('b', 'b1')]);
    assert.deepEqual(order, ['a1', 'b1', 'a2', 'a3']);
  });

  it("starts a queued generation's deadline when it has its slot: a wait longer than the deadline still gets an answer", async () => {
    const timeoutMs = 3000;
    const queued = new LocalLanguageModel({ dir: llmModelsDir(modelsDir), memoryBudgetMb: 512, threads: 1, contextSize: 2048, timeoutMs, rescanIntervalMs: 0 });
    await queued.start();
    try {
      // loaded first: a first load counts against its generation's deadline
      await waitFor('the model to load and answer', () => queued.complete(CHAT, { maxTokens: 4 }).then(() => true, () => false));
      const holder = await queued.slots.acquire('holder');
      const asked = Date.now();
      const answer = queued.complete(CHAT, { maxTokens: 4, requester: 'a' });
      await waitFor('the request to queue', () => queued.queued() === 1);
      await waitFor('the wait to outlast the deadline', () => Date.now() - asked > timeoutMs + 500);
      holder();
      assert.equal(typeof (await answer), 'string');
    } finally {
      await queued.close();
    }
  });

  it('refuses to load a model over the memory budget', async () => {
    const small = new LocalLanguageModel({ dir: llmModelsDir(modelsDir), memoryBudgetMb: 1, threads: 1, timeoutMs: 30_000, rescanIntervalMs: 0 });
    await small.start();
    try {
      await assert.rejects(small.complete(CHAT), isEngineError('unavailable', /over the memory budget of 1 MB/));
    } finally {
      await small.close();
    }
  });

  describe('post-edits of another engine', () => {
    const drafts = new Map([['hello', 'hola'], ['keep ⟦1⟧ here', 'mantener ⟦1⟧ aquí']]);
    const inner: TranslationEngine = {
      name: 'fixed',
      features: { context: false },
      start: async () => {},
      close: async () => {},
      pairs: () => [{ source: 'en', target: 'es', formality: false }],
      translate: async (_pair, segments) => segments.map((s) => drafts.get(s) ?? s),
    };
    let counts: PostEditCounts;
    let engine: PostEditedEngine;
    before(() => {
      counts = { used: 0, refused: 0 };
      engine = new PostEditedEngine(inner, new LlmEngine({ backend: model, offerPairs: false }), counts, { info() {}, warn() {}, error() {} });
    });

    it('offers formality, custom instructions and style rules on register targets while a model is installed', async () => {
      assert.deepEqual(engine.pairs(), [{ source: 'en', target: 'es', formality: true }]);
      assert.equal(engine.features.customInstructions, true);
      assert.equal(engine.features.styleRules, true);
      const generations = model.stats().generations;
      const [out] = await engine.translate({ source: 'en', target: 'es' }, ['hello'], { styleRules: ['Write numbers as digits.'] });
      assert.equal(typeof out, 'string');
      assert.equal(model.stats().generations, generations + 1, 'the style rule went to the model');
    });

    it("rewrites through the model, and keeps the engine's text where the rewrite loses a placeholder", async () => {
      const generations = model.stats().generations;
      const { used, refused } = counts;
      const out = await engine.translate({ source: 'en', target: 'es' }, ['hello', 'keep ⟦1⟧ here'], { formality: 'more' });
      assert.equal(model.stats().generations, generations + 1, 'one model call for the batch');
      assert.equal(counts.used - used + counts.refused - refused, 2, 'each text rewritten or refused');
      // the generated model cannot know to keep ⟦1⟧: that text falls back to the engine's translation
      assert.equal(out[1], 'mantener ⟦1⟧ aquí');
      assert.ok(counts.refused > refused);
    });

    it('passes requests through untouched when nothing needs the model', async () => {
      const generations = model.stats().generations;
      assert.deepEqual(await engine.translate({ source: 'en', target: 'es' }, ['hello'], {}), ['hola']);
      assert.equal(model.stats().generations, generations);
    });
  });
});

describe('fair generation slots', () => {
  const slotsOf = (o: Partial<FairSlotsOptions> = {}) => new FairSlots({ slots: 1, maxWaitingPerRequester: 8, maxWaitMs: 60_000, ...o });

  it("serves each account in turn: one account's backlog waits behind another's single request", async () => {
    const slots = slotsOf();
    const order: string[] = [];
    const held: ReleaseSlot[] = [await slots.acquire('a')];
    const waiting = ['a1', 'a2', 'b1'].map((tag) =>
      slots.acquire(tag[0]!).then((release) => {
        order.push(tag);
        held.push(release);
      }),
    );
    for (let i = 0; i < 3; i++) {
      held[i]!();
      await waitFor('a waiter to be served', () => order.length === i + 1);
    }
    await Promise.all(waiting);
    held[3]!();
    assert.deepEqual(order, ['b1', 'a1', 'a2']);
  });

  it("refuses an account's requests beyond its queue (busy, with a time to come back) and drops a waiter whose client left", async () => {
    const slots = slotsOf({ maxWaitingPerRequester: 1 });
    const release = await slots.acquire('a');
    const client = new AbortController();
    const queued = slots.acquire('a', client.signal);
    await assert.rejects(slots.acquire('a'), (err) => isEngineError('busy')(err) && (err as EngineError).retryAfterMs! >= 1000);
    client.abort();
    await assert.rejects(queued, isEngineError('failed', /aborted/));
    assert.equal(slots.waiting, 0);
    release();
  });

  it('refuses at once a request whose estimated wait (requests ahead × recent hold time) is over the bound', async () => {
    let now = 0;
    const slots = slotsOf({ maxWaitMs: 10_000, now: () => now });
    const first = await slots.acquire('a');
    now += 4000; // a hold of 4 s: the estimate's unit
    first();
    const running = await slots.acquire('a');
    const queued = [slots.acquire('a'), slots.acquire('a')]; // 4 s and 8 s ahead of them: within the bound
    const refused = await slots.acquire('a').then(
      () => assert.fail('a wait of 12 s was admitted under a 10 s bound'),
      (err: unknown) => err,
    );
    assert.ok(isEngineError('busy', /12 s of language-model work/)(refused), String(refused));
    assert.equal((refused as EngineError).retryAfterMs, 12_000);
    assert.equal(slots.waiting, 2, 'the refused request never queued');
    // another account goes before a's second waiter: one request ahead of it, 8 s, admitted
    const other = slots.acquire('b');
    assert.equal(slots.waiting, 3);
    assert.equal(slots.estimateWaitMs('c'), 12_000, 'a third account would wait behind a and b');
    running();
    (await other)();
    (await queued[0]!)();
    (await queued[1]!)();
  });

  it('refuses a waiter still waiting when the bound runs out, and every request that would wait when the bound is 0', async () => {
    const slots = slotsOf({ maxWaitMs: 50 });
    const release = await slots.acquire('a');
    await assert.rejects(slots.acquire('b'), isEngineError('busy', /no language-model slot came free within 50 ms/));
    assert.equal(slots.waiting, 0);
    release();
    const never = slotsOf({ maxWaitMs: 0 });
    const held = await never.acquire('a');
    await assert.rejects(never.acquire('b'), isEngineError('busy', /every language-model slot is in use/));
    held();
    (await never.acquire('b'))();
  });
});

describe('local model threads and queue configuration', () => {
  it('leaves cores to the other engines by default: half of them, never all, at least one', () => {
    assert.deepEqual([1, 2, 3, 4, 8, 16].map((cores) => defaultLlmThreads(cores)), [1, 1, 2, 2, 4, 8]);
  });

  it('reads TOLK_LLM_THREADS and TOLK_LLM_QUEUE_WAIT_MS, and refuses bad values naming them', () => {
    const defaults = loadConfig({}).localLlm;
    assert.equal(defaults.threads, undefined, 'unset: the default above, decided where the model loads');
    assert.equal(defaults.queueWaitMs, 60_000);
    const set = loadConfig({ TOLK_LLM_THREADS: '3', TOLK_LLM_QUEUE_WAIT_MS: '0' }).localLlm;
    assert.equal(set.threads, 3);
    assert.equal(set.queueWaitMs, 0);
    for (const [name, value] of [['TOLK_LLM_QUEUE_WAIT_MS', '-1'], ['TOLK_LLM_QUEUE_WAIT_MS', 'soon'], ['TOLK_LLM_THREADS', '-2']] as const) {
      assert.throws(() => loadConfig({ [name]: value }), new RegExp(name));
    }
  });
});
