// App-string placeholders through the neural engine (a generated Bergamot model of the real format, which drops the
// marks the core gives it): direct en→es, with a glossary (the engine's own term handling), and a pivot en→pt whose
// first leg is neural and second Apertium. Every placeholder comes back verbatim, ICU structure included, and the
// English words around them are gone (the generated model writes its own vocabulary, never the source's).
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { ApertiumEngine } from '../../src/engines/apertium/index.js';
import { BergamotEngine } from '../../src/engines/bergamot/index.js';
import { modelsDirWith } from '../helpers/bergamot-models.js';
import { authHeaders, createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';
import { describeRoutes, once, SHAPES, untranslatedWords, type PlaceholderShape } from '../markup/placeholder-shapes.js';

let modelsDir: string;
let ctx: TestContext;
let pro: TestAccount;

before(async () => {
  modelsDir = await modelsDirWith(['en-es']);
  const bergamot = new BergamotEngine({ modelsDir, workers: 1, rescanIntervalMs: 0 });
  ctx = await createTestApp({ engines: [bergamot, new ApertiumEngine({ pairs: ['es-pt'], warmPairs: ['es-pt'], maxPipelinesPerPair: 1 })] });
  pro = await createAccount(ctx);
});
after(async () => {
  await ctx.close();
  await rm(modelsDir, { recursive: true, force: true });
});

const api = (url: string, payload: object) => ctx.app.inject({ method: 'POST', url, headers: authHeaders(pro), payload });

async function translate(body: Record<string, unknown>): Promise<string[]> {
  const res = await api('/v2/translate', { text: SHAPES.map((s) => s.text), source_lang: 'EN', ...body });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().translations.map((t: { text: string }) => t.text);
}

/** The English words gone around the placeholders; with a glossary, its term as often as its source word. */
function neuralCheck(term?: [string, string]) {
  return (shape: PlaceholderShape, output: string) => {
    assert.deepEqual(untranslatedWords(shape, output), [], output);
    if (term && shape.text.includes(term[0])) assert.equal(output.split(term[1]).length - 1, shape.text.split(term[0]).length - 1, output);
  };
}

describeRoutes([
  { name: 'the neural engine en→es', outputs: once(() => translate({ target_lang: 'ES' })), check: neuralCheck() },
  {
    name: 'the neural engine en→es with a glossary',
    check: neuralCheck(['messages', 'Avisos-Tolk']),
    outputs: once(async () => {
      const entries = 'messages\tAvisos-Tolk';
      const created = await api('/v3/glossaries', { name: 'terms', dictionaries: [{ source_lang: 'en', target_lang: 'es', entries, entries_format: 'tsv' }] });
      assert.equal(created.statusCode, 201, created.body);
      return translate({ target_lang: 'ES', glossary_id: created.json().glossary_id });
    }),
  },
  { name: 'a pivot en→pt (neural, then Apertium)', outputs: once(() => translate({ target_lang: 'PT-PT' })), check: neuralCheck() },
]);
