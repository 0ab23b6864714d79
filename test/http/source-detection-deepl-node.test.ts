// Source detection of short texts through the official deepl-node client, with a (generated) German model installed
// beside Apertium: an unsure word is translated from the language it most likely is, never reported as the unsure
// guess, and a target no engine serves is named as the problem (issue 36).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as deepl from 'deepl-node';
import { rm } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApertiumEngine } from '../../src/engines/apertium/index.js';
import { BergamotEngine } from '../../src/engines/bergamot/index.js';
import { modelsDirWith } from '../helpers/bergamot-models.js';
import { createAccount, createTestApp, freePort, type TestContext } from '../helpers/harness.js';
import { HUNG_TEST_MS } from '../helpers/wait.js';

let modelsDir: string;
let dataDir: string;
let ctx: TestContext;
let bergamot: BergamotEngine;
let translator: deepl.Translator;

before(async () => {
  modelsDir = await modelsDirWith(['de-en', 'en-de']);
  dataDir = mkdtempSync(join(tmpdir(), 'tolk-detect-clients-'));
  bergamot = new BergamotEngine({ modelsDir, workers: 1, rescanIntervalMs: 0 });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  ctx = await createTestApp({
    engines: [bergamot, new ApertiumEngine({ pairs: ['en-es', 'es-en', 'es-pt'], maxPipelinesPerPair: 1 })],
    env: { TOLK_PORT: String(port), TOLK_FREE_PORT: String(port), TOLK_BASE_URL: url, TOLK_FREE_BASE_URL: url, TOLK_DATA_DIR: dataDir },
    // "done at the first poll" must not race the machine's speed
    documents: { statusWaitMs: HUNG_TEST_MS },
  });
  const pro = await createAccount(ctx, { plan: 'pro' });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  translator = new deepl.Translator(pro.key, { serverUrl: url, maxRetries: 0, minTimeout: 2 * HUNG_TEST_MS });
});
after(async () => {
  await ctx?.close();
  await rm(modelsDir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

describe('deepl-node: short texts without source_lang', () => {
  it('translates a German word detection is unsure of from German (not the unsure guess, Dutch)', async () => {
    const result = await translator.translateText('Protonenstrahl', null, 'en-US');
    const [expected] = await bergamot.translate({ source: 'de', target: 'en' }, ['Protonenstrahl'], {});
    assert.equal(result.detectedSourceLang, 'de');
    assert.equal(result.text, expected);
  });

  it('a document of that word into German fails as source and target being equal', { timeout: 3 * HUNG_TEST_MS }, async () => {
    const output = join(dataDir, 'beam.de.txt');
    await assert.rejects(translator.translateDocument(Buffer.from('Protonenstrahl\n'), output, null, 'de', { filename: 'beam.txt' }), (err: Error) =>
      err instanceof deepl.DocumentTranslationError && /Source and target language are equal/.test(err.message),
    );
  });

  it('translates an undecidable word from the default source through a pivot (en→es→pt), labelled so', async () => {
    // "Test" is a word of every installed dictionary ("Hola", once undecidable, is Spanish by its lexicons now)
    const result = await translator.translateText('Test', null, 'pt-PT');
    const [expected] = await ctx.services.translate.pairs.translate('en', 'pt', ['Test'], {});
    assert.equal(result.detectedSourceLang, 'en');
    assert.equal(result.text, expected);
  });

  it('names the target when no engine translates into it', async () => {
    for (const text of ['proton beam', 'Protonenstrahl']) {
      await assert.rejects(translator.translateText(text, null, 'ko'), (err: Error) =>
        err instanceof deepl.DeepLError && /Target language 'KO' is not supported by the installed engines/.test(err.message),
      );
    }
  });
});
