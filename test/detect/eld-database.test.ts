// Why: the detector reads eld's database file as text into typed arrays (eld-database.ts) instead of importing its
// object literal; this pins the table to eld's own data key by key, and eld on it to eld on its own import.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { eldDatabaseUrl, loadEld, packEldKey, readEldDatabase } from '../../src/detect/eld-database.js';
import { floresLines, truncateAtWord } from '../helpers/flores.js';

interface EldModule {
  ngramsData: { type: string; languages: Record<string, string>; ngrams: Record<string, Record<string, number>> };
}

describe('eld database', () => {
  it('holds every key of eld small with its scores, and nothing else', async () => {
    const own = ((await import(eldDatabaseUrl('small').href)) as EldModule).ngramsData;
    const read = readEldDatabase(readFileSync(eldDatabaseUrl('small'), 'utf8'));
    assert.equal(read.type, own.type);
    assert.deepEqual(read.languages, own.languages);
    const keys = Object.keys(own.ngrams);
    assert.ok(keys.length > 80_000, `${keys.length} keys`);
    for (const key of keys) assert.deepEqual(read.table.get(key), own.ngrams[key], JSON.stringify(key));
    // near misses of real keys: a character more or less, another case
    for (const key of keys.slice(0, 2000)) {
      for (const miss of [`${key}x`.slice(-7), key.slice(1), key.toUpperCase()]) {
        if (!(miss in own.ngrams)) assert.equal(read.table.get(miss), undefined, JSON.stringify(miss));
      }
    }
  });

  it('detects as eld on its own import, scores and all', async () => {
    const mod = (await import('eld')) as unknown as { eld: { newInstance(): { load(name: string): Promise<unknown>; detect(text: string): { language: string; getScores(): object } } } };
    const own = mod.eld.newInstance();
    await own.load('small');
    const table = await loadEld('small');
    const texts = ['', ' ', 'a', 'Hola', 'constructor __proto__ toString', '\u0000ab\u0000', '𝔘𝔫𝔦 code'];
    for (const lang of ['en', 'de', 'da', 'nb', 'ru', 'uk', 'zh', 'ja', 'ar', 'th', 'cy', 'mt', 'hi']) {
      for (const line of floresLines(lang).slice(0, 40)) texts.push(truncateAtWord(line, 10), truncateAtWord(line, 30), line);
    }
    for (const text of texts) {
      const want = own.detect(text);
      const got = table.detect(text);
      assert.equal(got.language, want.language, JSON.stringify(text));
      assert.deepEqual(got.getScores(), want.getScores(), JSON.stringify(text));
    }
  });

  it('reads the literal shapes eld writes and refuses what it does not', () => {
    const { table, languages, type } = readEldDatabase(
      `export const ngramsData = {type:'T2', languages:{0:'aa',1:'bb'}, isSubset:false, ngrams:{'a\\'b':{0:7,1:9}, "q\\"":{1:200}, Lx_:{0:6},}};`,
    );
    assert.equal(type, 'T2');
    assert.deepEqual(languages, { 0: 'aa', 1: 'bb' });
    assert.deepEqual(table.get("a'b"), { 0: 7, 1: 9 });
    assert.deepEqual(table.get('q"'), { 1: 200 });
    assert.deepEqual(table.get('Lx_'), { 0: 6 });
    assert.equal(table.get('Lx'), undefined);
    assert.throws(() => readEldDatabase(`export const ngramsData = {type:'T', ngrams:{'ab':{0:1}`), /expected/);
    assert.throws(() => readEldDatabase(`export const ngramsData = {type:'T', ngrams:{'abcdefg':{0:1}}}`), /not a packable/);
    assert.throws(() => readEldDatabase(`export const ngramsData = {type:'T', ngrams:{'ab':{0:1},'ab':{1:1}}}`), /twice/);
    assert.throws(() => readEldDatabase(`export const ngramsData = {type:'T', ngrams:{'ab':{0:-1}}}`), /out of range/);
    assert.throws(() => readEldDatabase('export const other = 1;'), /no object literal/);
  });

  it('packs a key injectively, and refuses what cannot be one of eld\'s', () => {
    const keys = ['a', 'ab', 'ab\u0000', '\u0000ab', ' abcd ', 'ÿÿÿÿÿÿ', 'ba'];
    assert.equal(new Set(keys.map(packEldKey)).size, keys.length);
    for (const key of keys) assert.ok(packEldKey(key) > 0 && packEldKey(key) < 2 ** 53, JSON.stringify(key));
    for (const bad of ['', 'abcdefg', 'aĀ', '𝔘']) assert.equal(packEldKey(bad), 0, JSON.stringify(bad));
  });
});
