// The language-model engine against a local OpenAI-compatible server: batching, prompts, retries, repair, timeouts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError, type EngineErrorKind } from '../../src/engines/engine.js';
import { LlmEngine, type LlmEngineOptions } from '../../src/engines/llm/index.js';
import { runEngineContract } from './engine.case.js';
import { fakeLlmServerPerSuite, startFakeLlmServer, unreachableUrl } from './llm-test-server.js';
import { waitFor } from '../helpers/wait.js';

const EN_ES = { source: 'en', target: 'es' };

function isEngineError(kind: EngineErrorKind) {
  return (err: unknown) => err instanceof EngineError && err.kind === kind;
}

runEngineContract('llm (fake OpenAI-compatible server)', async () => {
  const server = await startFakeLlmServer();
  const engine = new LlmEngine({ url: server.url, model: 'test-model', languages: ['en', 'es', 'de'] });
  const close = engine.close.bind(engine);
  engine.close = async () => {
    await close();
    await server.close();
  };
  return { engine, pair: EN_ES, samples: ['Good morning.', 'The house is red.', 'Where is the station?'] };
});

describe('llm engine', () => {
  const suite = fakeLlmServerPerSuite();

  async function engine(options: Partial<LlmEngineOptions> = {}): Promise<LlmEngine> {
    const e = new LlmEngine({ url: suite.server().url, model: 'test-model', apiKey: 'sk-test', languages: ['en', 'es', 'de', 'pt-br'], backoffMs: 5, ...options });
    await e.start();
    return suite.track(e);
  }

  it('offers every pair between its languages, with formality where the target has it', async () => {
    const e = await engine();
    const pairs = e.pairs();
    assert.ok(pairs.some((p) => p.source === 'en' && p.target === 'pt-br' && p.formality));
    assert.ok(pairs.some((p) => p.source === 'de' && p.target === 'en' && !p.formality));
    assert.ok(!pairs.some((p) => p.source === 'pt-br'), 'variants are targets only');
    assert.ok(!pairs.some((p) => p.source === p.target));
  });

  it('sends one numbered JSON batch with model, key and json response format, and reads answers back in order', async () => {
    const e = await engine();
    suite.server().answers.set('Hello.', 'Hola.');
    suite.server().answers.set('Thank you.', 'Gracias.');
    const out = await e.translate(EN_ES, ['Hello.', '', 'Thank you.'], {});
    assert.deepEqual(out, ['Hola.', '', 'Gracias.']);
    assert.equal(suite.server().requests.length, 1);
    const [req] = suite.server().requests;
    assert.equal(req!.body.model, 'test-model');
    assert.equal(req!.headers.authorization, 'Bearer sk-test');
    assert.deepEqual(req!.body.response_format, { type: 'json_object' });
    assert.deepEqual(req!.texts, { '1': 'Hello.', '2': 'Thank you.' });
    assert.match(req!.system, /from English to Spanish/);
  });

  it('splits large inputs into several batches', async () => {
    const e = await engine({ batchSize: 2 });
    const out = await e.translate(EN_ES, ['a one', 'b two', 'c three', 'd four', 'e five'], {});
    assert.equal(out.length, 5);
    assert.equal(suite.server().requests.length, 3);
    assert.deepEqual(out, ['a one', 'b two', 'c three', 'd four', 'e five'].map((t) => `[Spanish] ${t}`));
  });

  it('puts context, formality, custom instructions, style rules and glossary terms in the prompt', async () => {
    const e = await engine();
    suite.server().answers.set('The cat sleeps.', 'Der Kater schläft.');
    await e.translate({ source: 'en', target: 'de' }, ['The cat sleeps.'], {
      formality: 'more',
      context: 'A children book about pets.',
      customInstructions: ['Keep sentences short.'],
      styleRules: ['Use straight apostrophes.'],
      glossary: [
        { source: 'cat', target: 'Kater' },
        { source: 'dog', target: 'Hund' },
      ],
    });
    const system = suite.server().requests[0]!.system;
    assert.match(system, /formal register/);
    assert.match(system, /A children book about pets/);
    assert.match(system, /Keep sentences short/);
    assert.match(system, /Use straight apostrophes/);
    assert.match(system, /"cat" → "Kater"/);
    assert.doesNotMatch(system, /Hund/, 'terms absent from the batch stay out of the prompt');
    suite.server().requests.length = 0;
    await e.translate({ source: 'en', target: 'de' }, ['The cat sleeps.'], { formality: 'less' });
    assert.match(suite.server().requests[0]!.system, /informal register/);
  });

  it('retries after 500 and 429 and then succeeds', async () => {
    const e = await engine({ retries: 2 });
    suite.server().script('status500', 'status429');
    assert.deepEqual(await e.translate(EN_ES, ['Hi there.'], {}), ['[Spanish] Hi there.']);
    assert.equal(suite.server().requests.length, 3);
  });

  it('gives up after the retries: 5xx means unavailable, 429 overloaded, other 4xx failed', async () => {
    const e = await engine({ retries: 1 });
    suite.server().script('status500', 'status500');
    await assert.rejects(e.translate(EN_ES, ['x y'], {}), isEngineError('unavailable'));
    suite.server().script('status429', 'status429');
    await assert.rejects(e.translate(EN_ES, ['x y'], {}), isEngineError('overloaded'));
    suite.server().requests.length = 0;
    suite.server().script('status400');
    await assert.rejects(e.translate(EN_ES, ['x y'], {}), isEngineError('failed'));
    assert.equal(suite.server().requests.length, 1, 'a 400 is not retried');
  });

  it('times out a hanging model server', async () => {
    const e = await engine({ timeoutMs: 300 });
    suite.server().script('hang');
    await assert.rejects(e.translate(EN_ES, ['slow one'], {}), (err: unknown) => isEngineError('timeout')(err) && /within 300 ms/.test((err as Error).message));
    // the limit covers the whole call: the hung attempt is not followed by retries
    assert.equal(suite.server().requests.length, 1);
  });

  it('reports an unreachable model server as unavailable', async () => {
    const e = new LlmEngine({ url: await unreachableUrl(), model: 'm', languages: ['en', 'es'], retries: 1, backoffMs: 5 });
    await e.start();
    await assert.rejects(e.translate(EN_ES, ['anyone there'], {}), isEngineError('unavailable'));
  });

  it('repairs a segment whose placeholders were lost, alone, and keeps the others from the batch', async () => {
    const e = await engine();
    suite.server().answers.set('Click <b>here</b> now.', 'Haga clic <b>aquí</b> ahora.');
    suite.server().answers.set('Item ⟦1⟧ of ⟦2⟧.', 'Elemento ⟦1⟧ de ⟦2⟧.');
    suite.server().answers.set('Plain text.', 'Texto plano.');
    suite.server().script('drop_placeholders');
    const out = await e.translate(EN_ES, ['Click <b>here</b> now.', 'Plain text.', 'Item ⟦1⟧ of ⟦2⟧.'], {});
    assert.deepEqual(out, ['Haga clic <b>aquí</b> ahora.', 'Texto plano.', 'Elemento ⟦1⟧ de ⟦2⟧.']);
    // one batch call, then one repair call per broken segment, each alone and told what was wrong
    assert.equal(suite.server().requests.length, 3);
    assert.deepEqual(suite.server().requests[1]!.texts, { '1': 'Click <b>here</b> now.' });
    assert.match(suite.server().requests[1]!.system, /missing <b>/);
  });

  it('never returns a segment that keeps losing its placeholders', async () => {
    const e = await engine();
    suite.server().script('drop_placeholders', 'drop_placeholders', 'drop_placeholders');
    await assert.rejects(e.translate(EN_ES, ['Keep ⟦1⟧ please.'], {}), isEngineError('failed'));
  });

  it('repairs a segment that lacks a required glossary term', async () => {
    const e = await engine();
    suite.server().answers.set('The cat sleeps.', 'Die Katze schläft.');
    let calls = 0;
    suite.server().script('ok', (texts) => {
      calls++;
      return Object.fromEntries(Object.keys(texts).map((k) => [k, 'Der Kater schläft.']));
    });
    const out = await e.translate({ source: 'en', target: 'de' }, ['The cat sleeps.'], { glossary: [{ source: 'cat', target: 'Kater' }] });
    assert.deepEqual(out, ['Der Kater schläft.']);
    assert.equal(calls, 1);
    assert.match(suite.server().requests[1]!.system, /glossary term "cat" must be translated as "Kater"/);
  });

  it('asks again after an unreadable answer, accepts fenced JSON and repairs a missing key', async () => {
    const e = await engine();
    suite.server().script('garbage');
    assert.deepEqual(await e.translate(EN_ES, ['one two'], {}), ['[Spanish] one two']);
    assert.equal(suite.server().requests.length, 2);
    suite.server().script('fenced');
    assert.deepEqual(await e.translate(EN_ES, ['three'], {}), ['[Spanish] three']);
    suite.server().requests.length = 0;
    suite.server().script('drop_last_key');
    assert.deepEqual(await e.translate(EN_ES, ['four', 'five'], {}), ['[Spanish] four', '[Spanish] five']);
    assert.equal(suite.server().requests.length, 2);
    assert.deepEqual(suite.server().requests[1]!.texts, { '1': 'five' });
  });

  it('rejects pairs it is not configured for', async () => {
    const e = await engine();
    await assert.rejects(e.translate({ source: 'en', target: 'ja' }, ['hi'], {}), isEngineError('unsupported_pair'));
  });

  it('stops when the caller aborts', async () => {
    const e = await engine({ timeoutMs: 5000 });
    suite.server().script('hang');
    const controller = new AbortController();
    const translating = e.translate(EN_ES, ['wait'], { signal: controller.signal });
    await waitFor('the request to reach the model server', () => suite.server().requests.length === 1);
    controller.abort();
    await assert.rejects(translating, isEngineError('failed'));
  });

  it('refuses work beyond its queue as overloaded', async () => {
    const e = await engine({ concurrency: 1, maxQueue: 1, timeoutMs: 400 });
    suite.server().script('hang', 'hang');
    const first = e.translate(EN_ES, ['first'], {});
    const second = e.translate(EN_ES, ['second'], {});
    await assert.rejects(e.translate(EN_ES, ['third'], {}), isEngineError('overloaded'));
    await assert.rejects(first, isEngineError('timeout'));
    await assert.rejects(second, isEngineError('timeout'));
  });

  it('improves texts: correct asks for minimal changes, rephrase carries style or tone and the variant', async () => {
    const e = await engine();
    suite.server().answers.set('I has a idea.', 'I have an idea.');
    assert.deepEqual(await e.improve(['I has a idea.'], { mode: 'correct', language: 'en-us' }), ['I have an idea.']);
    assert.match(suite.server().requests[0]!.system, /fewest changes possible/);
    assert.match(suite.server().requests[0]!.system, /American English/);
    await e.improve(['We should meet.'], { mode: 'rephrase', language: 'de', style: 'business' });
    assert.match(suite.server().requests[1]!.system, /business style/);
    await e.improve(['We should meet.'], { mode: 'rephrase', language: 'de', tone: 'friendly' });
    assert.match(suite.server().requests[2]!.system, /friendly tone/);
  });
});
