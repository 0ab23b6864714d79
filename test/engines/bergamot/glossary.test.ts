// Glossary terms through the Bergamot engine: carried by the runtime's HTML mode, checked, and recovered when lost.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { BergamotEngine } from '../../../src/engines/bergamot/index.js';
import { markTerms, placeTerms, translateAround } from '../../../src/engines/bergamot/glossary-terms.js';
import { modelsDirWith } from '../../helpers/bergamot-models.js';

const EN_ES = { source: 'en', target: 'es' };
const count = (text: string, term: string) => text.split(term).length - 1;

describe('bergamot glossary terms', () => {
  let root: string;
  let engine: BergamotEngine;

  before(async () => {
    root = await modelsDirWith(['en-es'], { architecture: 'base-memory', splitVocab: true });
    engine = new BergamotEngine({ modelsDir: root, workers: 1, rescanIntervalMs: 0 });
    await engine.start();
  });
  after(async () => {
    await engine.close();
    await rm(root, { recursive: true, force: true });
  });

  it('marks whole-word occurrences, longest term first, and escapes the rest of the text', () => {
    const marked = markTerms('The House server & the house <b> housekeeping.', [
      { source: 'house', target: 'casa' },
      { source: 'house server', target: 'servidor' },
    ])!;
    assert.equal(marked.html, 'The <span id="tolk-term-0">House server</span> &amp; the <span id="tolk-term-1">house</span> &lt;b&gt; housekeeping.');
    assert.deepEqual(marked.targets, ['servidor', 'casa']);
    assert.deepEqual(marked.pieces, ['The ', 0, ' & the ', 1, ' <b> housekeeping.']);
    assert.equal(markTerms('No term here.', [{ source: 'house', target: 'casa' }]), undefined);
  });

  it('puts each target term in place of its element once and reports the elements that did not come back', () => {
    const html = '<span id="tolk-term-0">la</span>x &amp; <span id="tolk-term-0">casa</span>y<b>z</b>';
    assert.deepEqual(placeTerms(html, ['Casa-Tolk']), { text: 'Casa-Tolk x & yz', lost: [] });
    assert.deepEqual(placeTerms('la casa es grande', ['Casa-Tolk']), { text: 'la casa es grande', lost: [0] });
  });

  it('loses a plain-text placeholder through the generated model (why terms need a carrier)', async () => {
    const [out] = await engine.translate(EN_ES, ['The ZJQ0 is big.'], {});
    assert.ok(out!.length > 0);
    assert.equal(count(out!, 'ZJQ0'), 0);
  });

  it('keeps every glossary term, once, in single and batched segments', async () => {
    const glossary = [
      { source: 'house', target: 'Casa-Tolk' },
      { source: 'Firefox', target: 'Zorro-Tolk' },
    ];
    const segments = ['The house is big.', 'I like Firefox and the house very much.', 'Nothing to replace here.'];
    const outs = await engine.translate(EN_ES, segments, { glossary });
    assert.equal(count(outs[0]!, 'Casa-Tolk'), 1);
    assert.equal(count(outs[1]!, 'Casa-Tolk'), 1);
    assert.equal(count(outs[1]!, 'Zorro-Tolk'), 1);
    assert.doesNotMatch(outs.join('\n'), /tolk-term|<span|ZJQ/);
    // The model sees the same sentences (tags are not words to it): a segment without a term translates as it does
    // without a glossary.
    assert.equal(outs[2], (await engine.translate(EN_ES, segments, {}))[2]);
  });

  it('recovers lost terms by translating the text around them', async () => {
    const marked = markTerms('The house is big.', [{ source: 'house', target: 'Casa-Tolk' }])!;
    const [out] = await translateAround([marked], (texts) => engine.translate(EN_ES, texts, {}));
    const [before, after] = await engine.translate(EN_ES, ['The ', ' is big.'], {});
    assert.equal(out, `${before!.trim()} Casa-Tolk ${after!.trim()}`);
  });
});
