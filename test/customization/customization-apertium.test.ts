// Each customization resource changes real Apertium output: glossary terms, TM hits and a style rule.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApertiumEngine } from '../../src/engines/apertium/index.js';
import { GlossaryMatcher, naiveFind } from '../../src/customization/glossaries/matcher.js';
import { applyGlossary } from '../../src/customization/glossaries/protect.js';
import { parseEntries } from '../../src/customization/glossaries/entries.js';
import { FuzzyIndex, naiveLookup } from '../../src/customization/memories/fuzzy-index.js';
import { applyStyleRules } from '../../src/customization/style-rules/deterministic-rules.js';

let engine: ApertiumEngine;
before(async () => {
  engine = new ApertiumEngine({ pairs: ['en-es'], maxPipelinesPerPair: 1, memoryBudgetMb: 1024 });
  await engine.start();
});
after(async () => engine.close());

const enEs = (segments: string[]) => engine.translate({ source: 'en', target: 'es' }, segments, {});

describe('glossary through Apertium', () => {
  it('puts the target term inside the real translation of the sentence', async () => {
    const matcher = new GlossaryMatcher(parseEntries('car\tautomóvil\nred car\tcoche rojo\nhouse\tresidencia', 'tsv'));
    const text = ['I bought a new car yesterday.', 'The house is big and the red car is fast.'];
    const plain = await enEs(text);
    const p = applyGlossary(text, [matcher]);
    assert.equal(p.termCount, 3);
    const out = p.restore(await enEs(p.segments));
    assert.ok(!/automóvil/.test(plain[0]!), `plain: ${plain[0]}`);
    assert.match(out[0]!, /automóvil/);
    assert.match(out[0]!, /ayer/); // the rest is still translated by the engine
    assert.match(out[1]!, /residencia/);
    assert.match(out[1]!, /coche rojo/); // longest match wins over "car"
    assert.doesNotMatch(out.join(' '), /ZJQ/i);
  });

  it('matches whole words, case-insensitively for lower-case sources, exact case for names', () => {
    const m = new GlossaryMatcher(parseEntries('cat\tgato\nApple\tApple Inc.', 'tsv'));
    assert.deepEqual(m.find('Cats and a cat. Cat!').map((x) => x.start), [11, 16]);
    assert.equal(m.find('an apple a day').length, 0);
    assert.equal(m.find('Apple sells phones').length, 1);
    const text = 'the cat sat on the catalogue near Apple';
    assert.deepEqual(m.find(text), naiveFind(m.entries, text));
  });
});

describe('translation memory through Apertium', () => {
  const index = new FuzzyIndex([
    { source: 'The printer is out of paper.', target: 'La impresora no tiene papel.' },
    { source: 'Restart the computer before installing the update.', target: 'Reinicie el ordenador antes de instalar la actualización.' },
  ]);
  it('exact hit replaces the engine output, a fuzzy hit scores like a CAT tool, a miss goes to the engine', async () => {
    const segments = ['The printer is out of paper.', 'Restart the computer before installing the new update.', 'The dog sleeps.'];
    const engineOut = await enEs(segments);
    const hits = segments.map((s) => index.lookup(s, 75));
    assert.equal(hits[0]?.score, 100);
    assert.ok(hits[1] && hits[1].score >= 75 && hits[1].score < 100, String(hits[1]?.score));
    assert.equal(hits[2], undefined);
    const final = segments.map((_, i) => hits[i]?.segment.target ?? engineOut[i]!);
    assert.notEqual(engineOut[0], 'La impresora no tiene papel.');
    assert.equal(final[0], 'La impresora no tiene papel.');
    assert.equal(final[1], 'Reinicie el ordenador antes de instalar la actualización.');
    assert.equal(final[2], engineOut[2]);
    assert.deepEqual(index.lookup(segments[1]!, 75)?.score, naiveLookup(index.segments, segments[1]!, 75)?.score);
    assert.equal(index.lookup(segments[1]!, 95), undefined);
  });
});

describe('style rules on Apertium output', () => {
  it('decimal comma and curly quotes applied to the real translation', async () => {
    const [out] = await enEs(['The box weighs 3.5 kg and says "fragile".']);
    assert.match(out!, /3\.5/);
    const [styled] = applyStyleRules({ numbers: { decimal_separator: 'use_comma_as_decimal_separator' }, punctuation: { quotation_mark: 'use_guillemets' } }, [out!]);
    assert.match(styled!, /3,5/);
    assert.match(styled!, /«[^»]+»/);
  });
});
