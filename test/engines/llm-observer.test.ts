// What the language-model engine tells its observer (the metrics): each call's operation and outcome, a refused
// output as refused (not as a success, nor as a server failure), the tokens the server reported, and each model
// call's wait for a slot, with the calls waiting counted while they wait.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineError } from '../../src/engines/engine.js';
import { LlmEngine, LocalLanguageModel, llmModelsDir, type LlmObserver, type LlmOperation, type LlmOutcome } from '../../src/engines/llm/index.js';
import { fakeLlmServerPerSuite } from './llm-test-server.js';
import { installTestLlm } from '../helpers/test-llm.js';
import { waitFor } from '../helpers/wait.js';

const EN_ES = { source: 'en', target: 'es' };

const suite = fakeLlmServerPerSuite();

/** An engine on the fake server (or on `backend`), and what it told its observer. */
async function observedEngine(concurrency = 4, backend?: LocalLanguageModel) {
  const e = backend
    ? new LlmEngine({ backend, offerPairs: false, languages: ['en'] })
    : new LlmEngine({ url: suite.server().url, model: 'test-model', languages: ['en', 'es', 'de'], retries: 0, timeoutMs: 2000, concurrency });
  await e.start();
  suite.track(e);
  const told = { requests: [] as [LlmOperation, LlmOutcome][], input: 0, output: 0, waits: [] as number[] };
  const observer: LlmObserver = {
    request: (operation, outcome) => told.requests.push([operation, outcome]),
    tokens: (input, output) => {
      told.input += input;
      told.output += output;
    },
    waited: (seconds) => told.waits.push(seconds),
  };
  e.observe(observer);
  return { engine: e, told };
}

const reported = () => ({
  input: suite.server().requests.reduce((n, r) => n + (r.usage?.prompt_tokens ?? 0), 0),
  output: suite.server().requests.reduce((n, r) => n + (r.usage?.completion_tokens ?? 0), 0),
});

it('translate and improve: ok, refused when the output keeps failing the checks, failed when the server refuses', async () => {
  const { engine, told } = await observedEngine();
  assert.equal((await engine.translate(EN_ES, ['Good morning.', 'The house.'], {})).length, 2);
  // a placeholder dropped by the first answer and both repairs: the output is refused
  suite.server().script('drop_placeholders', 'drop_placeholders', 'drop_placeholders');
  await assert.rejects(engine.translate(EN_ES, ['Keep ⟦1⟧ please.'], {}), (err) => err instanceof EngineError && err.kind === 'failed');
  // unreadable answers, twice, then two unreadable repairs: refused too
  suite.server().script('garbage', 'garbage', 'garbage', 'garbage');
  await assert.rejects(engine.improve(['Make this better.'], { mode: 'rephrase', language: 'en' }), EngineError);
  await engine.improve(['Make this better.'], { mode: 'rephrase', language: 'en' });
  // a 400 from the server (a configuration problem, no retry): failed, not refused
  suite.server().script('status400');
  await assert.rejects(engine.translate(EN_ES, ['Hello.'], {}), EngineError);
  assert.deepEqual(told.requests, [
    ['translate', 'ok'],
    ['translate', 'refused'],
    ['improve', 'refused'],
    ['improve', 'ok'],
    ['translate', 'failed'],
  ]);
  // every model call that reached the server waited for its slot once; tokens as the server reported them
  assert.equal(told.waits.length, suite.server().requests.length);
  assert.ok(told.waits.every((s) => s >= 0));
  assert.deepEqual({ input: told.input, output: told.output }, reported());
  assert.ok(told.input > 0 && told.output > 0);
});

it('post_edit: ok when every rewrite passes, refused when one is refused (the engine keeps that draft)', async () => {
  const { engine, told } = await observedEngine();
  const edits = await engine.postEdit(['La casa es grande.'], { target: 'es', formality: 'more' });
  assert.ok('text' in edits[0]!);
  suite.server().script('drop_placeholders');
  const refused = await engine.postEdit(['Pulse ⟦1⟧ ahora.', 'Hola.'], { target: 'es', formality: 'more' });
  assert.ok('problems' in refused[0]! && 'text' in refused[1]!);
  assert.deepEqual(told.requests, [
    ['post_edit', 'ok'],
    ['post_edit', 'refused'],
  ]);
});

it('a call waiting for a slot is counted while it waits, and its wait is told once it runs; a timeout is told as such', async () => {
  const { engine, told } = await observedEngine(1);
  suite.server().script('hang');
  const first = engine.translate(EN_ES, ['First.'], {}).catch((err: unknown) => err);
  await waitFor('the first call at the server', () => suite.server().requests.length === 1);
  const second = engine.translate(EN_ES, ['Second.'], {});
  await waitFor('the second call queued behind it', () => engine.queued() === 1);
  assert.equal(told.waits.length, 1, 'the waiting call has not been told yet');
  assert.ok((await first) instanceof EngineError);
  assert.deepEqual(await second, ['[Spanish] Second.']);
  assert.equal(engine.queued(), 0);
  assert.equal(told.waits.length, 2);
  assert.deepEqual(told.requests, [
    ['translate', 'timeout'],
    ['translate', 'ok'],
  ]);
});

it('a model on this machine reports the tokens it read and wrote, and its slot wait', async () => {
  const modelsDir = mkdtempSync(join(tmpdir(), 'tolk-llm-observed-'));
  installTestLlm(modelsDir);
  const model = new LocalLanguageModel({ dir: llmModelsDir(modelsDir), memoryBudgetMb: 512, threads: 1, contextSize: 2048, timeoutMs: 60_000, rescanIntervalMs: 0 });
  try {
    await model.start();
    const { engine, told } = await observedEngine(1, model);
    // the generated model's answers are nonsense: whether kept or refused, the call went through the model
    await engine.improve(['Make this better.'], { mode: 'rephrase', language: 'en' }).catch((err: unknown) => assert.ok(err instanceof EngineError, String(err)));
    assert.equal(told.requests.length, 1);
    assert.ok(['ok', 'refused'].includes(told.requests[0]![1]), told.requests[0]![1]);
    const generations = model.stats().generations;
    assert.ok(generations >= 1);
    assert.equal(told.waits.length, generations, 'one wait per generation');
    assert.ok(told.input > 0, 'the prompt tokens were counted');
    assert.equal(told.output, model.stats().generatedTokens);
  } finally {
    await model.close();
    rmSync(modelsDir, { recursive: true, force: true });
  }
});
