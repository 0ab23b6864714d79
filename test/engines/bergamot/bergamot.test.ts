// Bergamot engine on generated models of the real format: the shared contract, refused directories, live re-scans.
import assert from 'node:assert/strict';
import { mkdir, readFile, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EngineError } from '../../../src/engines/engine.js';
import { BergamotEngine, inspectModelDir } from '../../../src/engines/bergamot/index.js';
import { EngineRouter } from '../../../src/translate/engine-router.js';
import { makeModel, modelsDirWith, type ModelSpec } from '../../helpers/bergamot-models.js';
import { runEngineContract } from '../engine.case.js';
import { HUNG_TEST_MS } from '../../helpers/wait.js';

// Generated models keep an architecture's layers, heads and embedding tying at a reduced width: a full-size
// base-memory model takes seconds to write and to load on a shared machine (its size is checked in
// make-test-model.test.ts).
const contractModels: { label: string; spec: ModelSpec }[] = [
  { label: 'tiny', spec: {} },
  { label: 'base-memory', spec: { architecture: 'base-memory' } },
  { label: 'base-memory, split vocabularies', spec: { architecture: 'base-memory', splitVocab: true } },
];
for (const { label, spec } of contractModels) {
  runEngineContract(`bergamot (generated ${label} model)`, async () => {
    const modelsDir = await modelsDirWith(['en-es'], spec);
    return {
      engine: new BergamotEngine({ modelsDir, workers: 2, rescanIntervalMs: 0 }),
      pair: { source: 'en', target: 'es' },
      // Generated models end a sentence after a fixed number of pieces, or at Marian's limit of twice the longest
      // sentence of the runtime batch when that comes first: short samples of equal token count translate the same
      // alone and batched.
      samples: ['The house is big.', 'I have two dogs.', 'We are at home.'],
    };
  });
}

describe('bergamot engine', () => {
  let root: string;
  let engine: BergamotEngine;

  before(async () => {
    root = await modelsDirWith(['en-es', 'de-en']);
    // Bad directories: each must be refused with its path and reason, never stop the engine.
    await mkdir(join(root, 'fr-en'));
    await writeFile(join(root, 'fr-en', 'model.fren.intgemm.alphas.bin'), 'not a model');
    await makeModel(join(root, 'es-en'), 'es-en');
    await rm(join(root, 'es-en', 'vocab.esen.spm'));
    await makeModel(join(root, 'en-de'), 'en-de');
    await truncate(join(root, 'en-de', 'model.ende.intgemm.alphas.bin'), 100_000);
    engine = new BergamotEngine({ modelsDir: root, workers: 1, rescanIntervalMs: 0 });
    await engine.start();
  });
  after(async () => {
    await engine.close();
    await rm(root, { recursive: true, force: true });
  });

  it('serves the good directories and reports each bad one with its reason', () => {
    assert.deepEqual(engine.pairs().map((p) => `${p.source}-${p.target}`).sort(), ['de-en', 'en-es']);
    const bad = Object.fromEntries(engine.badModelDirs().map((b) => [b.dir.slice(root.length + 1), b.reason]));
    assert.match(bad['fr-en']!, /shortlist|Marian/);
    assert.match(bad['es-en']!, /vocabulary/);
    assert.match(bad['en-de']!, /truncated/);
  });

  it('refuses a vocabulary that is not a SentencePiece model', async () => {
    const dir = join(root, '..', `${root.split('/').pop()}-badvocab`, 'en-es');
    await makeModel(dir, 'en-es');
    await writeFile(join(dir, 'vocab.esen.spm'), Buffer.from([0x0a, 0xff, 0xff, 0xff]));
    await assert.rejects(inspectModelDir(dir), /vocab\.esen\.spm: not a SentencePiece model/);
    await rm(join(dir, '..'), { recursive: true, force: true });
  });

  it('pivots through English with the router (de→en→es)', async () => {
    const router = new EngineRouter([engine]);
    const route = router.resolve('de', 'es');
    assert.equal(route?.kind, 'pivot');
    assert.deepEqual(route?.legs.map((l) => l.target), ['en', 'es']);
    const [out] = await router.translate('de', 'es', ['Das Haus ist groß.'], {});
    assert.ok(out!.length > 0);
  });

  it('unloads the least recently used model beyond the memory budget and reloads it on demand', async () => {
    const small = new BergamotEngine({ modelsDir: root, workers: 1, memoryBudgetMb: 1, rescanIntervalMs: 0 });
    try {
      await small.start();
      const en = await small.translate({ source: 'en', target: 'es' }, ['The house is big.'], {});
      await small.translate({ source: 'de', target: 'en' }, ['Das Haus ist groß.'], {});
      assert.deepEqual(await small.translate({ source: 'en', target: 'es' }, ['The house is big.'], {}), en);
      assert.deepEqual(small.loadStats().map((l) => l.key), ['en-es', 'de-en', 'en-es']);
      assert.ok(small.loadStats().every((l) => l.bytes > 0));
    } finally {
      await small.close();
    }
  });

  it('answers failed for a model the runtime aborts on, and keeps serving the others', async () => {
    // Passes every file check, but its architecture does not match its tensors: Marian aborts inside WebAssembly.
    const dir = await modelsDirWith(['en-es', 'de-en']);
    const model = join(dir, 'en-es', 'model.enes.intgemm.alphas.bin');
    const bytes = await readFile(model);
    const at = bytes.indexOf('dim-emb: 64');
    bytes.write('dim-emb: 32', at);
    await writeFile(model, bytes);
    const fragile = new BergamotEngine({ modelsDir: dir, workers: 1, rescanIntervalMs: 0 });
    try {
      await fragile.start();
      await assert.rejects(fragile.translate({ source: 'en', target: 'es' }, ['The house is big.'], {}), (err: unknown) => err instanceof EngineError && err.kind === 'failed');
      const [out] = await fragile.translate({ source: 'de', target: 'en' }, ['Das Haus ist groß.'], {});
      assert.ok(out!.length > 0);
      // Refused from then on (not offered, reported with the runtime's reason), also after a re-scan.
      await fragile.rescan();
      assert.deepEqual(fragile.pairs().map((p) => `${p.source}-${p.target}`), ['de-en']);
      assert.match(fragile.badModelDirs().find((b) => b.dir.endsWith('en-es'))!.reason, /runtime cannot load it/);
    } finally {
      await fragile.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('translates with gzipped files as with plain ones', async () => {
    const plain = join(root, 'en-es');
    const zipped = await modelsDirWith([]);
    await mkdir(join(zipped, 'en-es'));
    for (const name of ['model.enes.intgemm.alphas.bin', 'lex.50.50.enes.s2t.bin', 'vocab.esen.spm']) {
      await writeFile(join(zipped, 'en-es', `${name}.gz`), gzipSync(await readFile(join(plain, name))));
    }
    const gz = new BergamotEngine({ modelsDir: zipped, workers: 1, rescanIntervalMs: 0 });
    try {
      await gz.start();
      const pair = { source: 'en', target: 'es' };
      assert.deepEqual(await gz.translate(pair, ['The house is big.'], {}), await engine.translate(pair, ['The house is big.'], {}));
    } finally {
      await gz.close();
      await rm(zipped, { recursive: true, force: true });
    }
  });

  it('notices a model renamed into the directory by itself (directory watch)', { timeout: HUNG_TEST_MS }, async () => {
    const watched = await modelsDirWith([]);
    const live = new BergamotEngine({ modelsDir: watched, workers: 1, rescanIntervalMs: 0 });
    try {
      await live.start();
      assert.deepEqual(live.pairs(), []);
      const changed = new Promise<void>((resolve) => live.onPairsChanged(resolve));
      await makeModel(join(watched, '.en-es.partial'), 'en-es');
      await rename(join(watched, '.en-es.partial'), join(watched, 'en-es'));
      await changed;
      assert.deepEqual(live.pairs().map((p) => `${p.source}-${p.target}`), ['en-es']);
    } finally {
      await live.close();
      await rm(watched, { recursive: true, force: true });
    }
  });

  it('picks up an installed and a removed model on re-scan', async () => {
    const seen: string[][] = [];
    engine.onPairsChanged(() => seen.push(engine.pairs().map((p) => `${p.source}-${p.target}`).sort()));
    await rm(join(root, 'es-en'), { recursive: true });
    await makeModel(join(root, '.es-en.partial'), 'es-en');
    await rename(join(root, '.es-en.partial'), join(root, 'es-en'));
    await engine.rescan();
    assert.ok(engine.pairs().some((p) => p.source === 'es' && p.target === 'en'));
    const [out] = await engine.translate({ source: 'es', target: 'en' }, ['La casa es grande.'], {});
    assert.ok(out!.length > 0);
    await rm(join(root, 'es-en'), { recursive: true });
    await engine.rescan();
    assert.ok(!engine.pairs().some((p) => p.source === 'es' && p.target === 'en'));
    assert.deepEqual(seen.at(-1), ['de-en', 'en-es']);
  });
});
