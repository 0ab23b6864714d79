// The model index read as a desktop release server reads it: today's 288 real records of translations-models-v2
// (../shared/data/firefox-models), their filter expressions evaluated, directions named with or without subtags.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { evaluateFilterExpression, FilterExpressionError } from '../../src/models/filter-expression.js';
import { availableModels, directionOf, modelsOfRecords, namesDirection, pickModel, type IndexModel, type RawRecord } from '../../src/models/model-index.js';

let index: IndexModel[];

before(async () => {
  const { data } = JSON.parse(await readFile(join(process.cwd(), '../shared/data/firefox-models/records-v2.json'), 'utf8')) as { data: RawRecord[] };
  index = modelsOfRecords(data, 'https://attachments.example/');
});

describe('filter expressions', () => {
  const linux = { 'env.appinfo.OS': 'Linux', 'env.channel': 'release' };
  it('evaluates the forms the index uses, and more of the same grammar', () => {
    assert.equal(evaluateFilterExpression('', linux), true);
    assert.equal(evaluateFilterExpression("env.appinfo.OS == 'Android'", linux), false);
    assert.equal(evaluateFilterExpression("env.appinfo.OS != 'Android'", linux), true);
    assert.equal(evaluateFilterExpression("env.channel == 'default' || env.channel == 'nightly'", linux), false);
    assert.equal(evaluateFilterExpression("env.channel == 'default' || env.channel == 'nightly'", { ...linux, 'env.channel': 'nightly' }), true);
    assert.equal(evaluateFilterExpression(`!(env.appinfo.OS == "Linux" && env.channel == 'release') || env.unknown`, linux), false);
  });
  it('refuses what it does not understand instead of running it', () => {
    for (const bad of ["env.appinfo.OS == 'Linux' &&", 'process.exit()', "env.version|versionCompare('120') >= 0", "(env.channel == 'x'"]) {
      assert.throws(() => evaluateFilterExpression(bad, linux), FilterExpressionError, bad);
    }
  });
});

describe('the model a desktop release server installs', () => {
  it('offers 90 directions over 49 languages besides English', () => {
    const directions = new Set(index.map(directionOf));
    assert.equal(directions.size, 90);
    assert.equal(new Set(index.flatMap((m) => [m.source, m.target]).filter((l) => l !== 'en')).size, 49);
  });

  it('takes the desktop variant over the Android one, and every file is zstd with its decompressed hash', () => {
    for (const direction of ['en-ko', 'en-ru', 'ja-en', 'ko-en', 'zh-Hans-en']) {
      const { model, note } = pickModel(index, direction);
      assert.deepEqual([model.version, model.filterExpression, note], ['3.0', "env.appinfo.OS != 'Android'", undefined], direction);
    }
    const enZh = pickModel(index, 'en-zh').model;
    assert.deepEqual(enZh.files.map((f) => f.filename).sort(), ['lex.50.50.enzh.s2t.bin', 'model.enzh.intgemm.alphas.bin', 'srcvocab.enzh.spm', 'trgvocab.enzh.spm']);
    for (const f of enZh.files) assert.ok(f.url.endsWith('.zst') && f.zstd && f.zstd.size > f.size, f.filename);
    const rows = availableModels(index, []);
    const count = (arch: string) => rows.filter((r) => r.architecture === arch).length;
    assert.deepEqual([rows.length, count('tiny'), count('base-memory'), count('base')], [90, 48, 37, 5]);
  });

  it('takes a pre-release only when asked or when nothing else exists, saying so', () => {
    assert.deepEqual(pickModel(index, 'nb-en').note, 'nb-en exists only as a pre-release (3.0a1); installing that');
    assert.equal(pickModel(index, 'nb-en', { pre: true }).note, undefined);
    assert.equal(pickModel(index, 'en-de', { pre: true }).model.version, '3.0');
  });

  it('names Chinese as zh, zh-Hans or zh-hans on either side', () => {
    for (const name of ['zh-en', 'zh-hans-en', 'zh-Hans-en']) assert.equal(directionOf(pickModel(index, name).model), 'zh-Hans-en');
    for (const name of ['en-zh', 'en-zh-Hans', 'EN-ZH-HANS']) assert.equal(directionOf(pickModel(index, name).model), 'en-zh-Hans');
    assert.equal(namesDirection('en-zh-hant', 'en', 'zh-Hans'), false);
    assert.throws(() => pickModel(index, 'en-xx'), /no en-xx model \(it has: ar-en, az-en/);
  });
});
