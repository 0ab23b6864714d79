// scripts/make-test-model.mjs: Mozilla's architectures at their published sizes, split vocabularies, its usage.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { inspectModelDir } from '../../../src/engines/bergamot/index.js';
import { readMarianHeaders, readModelYaml } from '../../../src/engines/bergamot/formats.js';
import { modelsDirWith } from '../../helpers/bergamot-models.js';

const run = promisify(execFile);
const SCRIPT = 'scripts/make-test-model.mjs';
const metadata = async (architecture: string, pair: string) =>
  JSON.parse(await readFile(join(process.cwd(), '../shared/data/firefox-models/metadata', architecture, `${pair}.json`), 'utf8')) as { byteSize: number };

describe('make-test-model', () => {
  it('writes a base-memory en-de model within 2 KB of the size Mozilla publishes', async () => {
    const root = await modelsDirWith(['en-de'], { architecture: 'base-memory', fullSize: true });
    try {
      const { size } = await stat(join(root, 'en-de', 'model.ende.intgemm.alphas.bin'));
      const published = await metadata('base-memory', 'ende');
      assert.equal(published.byteSize, 31_561_787);
      assert.ok(Math.abs(size - published.byteSize) <= 2048, `${size} bytes, Mozilla's is ${published.byteSize}`);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('writes split vocabularies with per-side tied embeddings, as Mozilla names and builds them', async () => {
    const root = await modelsDirWith(['en-ja'], { architecture: 'base-memory', splitVocab: true });
    try {
      const dir = join(root, 'en-ja');
      assert.deepEqual((await readdir(dir)).sort(), ['lex.50.50.enja.s2t.bin', 'model.enja.intgemm.alphas.bin', 'srcvocab.enja.spm', 'trgvocab.enja.spm']);
      const info = await inspectModelDir(dir);
      assert.notEqual(info.files.srcVocab, info.files.trgVocab);
      const model = await readFile(info.files.model);
      const headers = readMarianHeaders(model);
      const names = headers.items.map((i) => i.name);
      assert.ok(names.includes('encoder_Wemb') && names.includes('decoder_Wemb') && !names.includes('Wemb'));
      const yaml = readModelYaml(model, headers);
      assert.match(yaml, /^tied-embeddings: true$/m);
      assert.match(yaml, /^tied-embeddings-all: false$/m);
      assert.match(yaml, /^dec-depth: 4$/m);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('prints its usage for --help and exits 0; a wrong option is a usage error, not a stack trace', async () => {
    const help = await run(process.execPath, [SCRIPT, '--help']);
    assert.match(help.stdout, /^usage: node scripts\/make-test-model\.mjs/);
    assert.match(help.stdout, /--shape tiny\|base-memory\|base/);
    const wrong = await run(process.execPath, [SCRIPT, '--colour', 'red']).then(
      () => assert.fail('accepted an unknown option'),
      (err: { code: number; stderr: string }) => err,
    );
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /Unknown option '--colour'/);
    assert.doesNotMatch(wrong.stderr, /\n\s+at /);
  });
});
