// Sentence splitting (sentencex per paragraph, capped) and preserve_formatting on plain text; inline tag placement
// with a scripted translator (lost placeholders, reordering) always yields properly nested marks.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SENTENCE_CHUNK, restoreFormatting, segmentText, splitIntoSentences } from '../../src/translate/segmentation.js';
import { translateTagged } from '../../src/markup/index.js';
import { markTree } from '../../src/markup/tagged-text.js';
import { segment as sentencexSegment } from 'sentencex';
import { floresLines } from '../helpers/flores.js';

describe('sentence splitting', () => {
  it('keeps abbreviations inside their sentence and rebuilds the text exactly', () => {
    const text = 'Dr. Smith met Mr. Jones at 3 p.m. yesterday. They talked!  Then they left.';
    const s = splitIntoSentences(text, 'en');
    assert.deepEqual(s.map((x) => x.trim()), ['Dr. Smith met Mr. Jones at 3 p.m. yesterday.', 'They talked!', 'Then they left.']);
    assert.equal(s.join(''), text);
    assert.equal(splitIntoSentences('Das ist z. B. ein Test. Und noch einer.', 'de').length, 2);
  });

  it('answers a one-sentence text without sentencex exactly as sentencex would, in every script', () => {
    // every word prefix of real sentences, bare and with each stop, with blanks and quotes around: the shortcut for one
    // sentence (words, single spaces, one final stop) must never keep together what sentencex splits
    let compared = 0;
    for (const lang of ['en', 'de', 'fr', 'ru', 'ar', 'hi', 'th', 'zh', 'ja', 'el', 'hy', 'am', 'my', 'tl']) {
      for (const line of floresLines(lang).slice(0, 12)) {
        const words = line.split(' ');
        for (let n = 1; n <= words.length; n++) {
          const prefix = words.slice(0, n).join(' ');
          for (const text of [prefix, `${prefix}.`, `${prefix}?`, `${prefix}!`, `${prefix}."`, `${prefix}. `, `${prefix}${' '.repeat(40)}`, `"${prefix}"`]) {
            const pieces = sentencexSegment(lang, text);
            assert.deepEqual(splitIntoSentences(text, lang), pieces.join('') === text ? pieces : [text], `${lang}: ${JSON.stringify(text)}`);
            compared++;
          }
        }
      }
    }
    assert.ok(compared > 10_000, `${compared} texts compared`);
  });

  it('splits very long input in capped chunks without losing a character', () => {
    const text = 'The cat sat on the mat. '.repeat(2000);
    const s = splitIntoSentences(text, 'en');
    assert.equal(s.join(''), text);
    assert.equal(s.length, 2000);
    assert.ok(SENTENCE_CHUNK <= 4000);
  });

  it('split_sentences 1 splits on newlines and sentences, nonewlines only on sentences, 0 not at all', () => {
    const text = 'One cat. Two dogs\nand three birds';
    assert.deepEqual(segmentText(text, '1', 'en').segments.map((s) => s.core), ['One cat.', 'Two dogs', 'and three birds']);
    assert.deepEqual(segmentText(text, 'nonewlines', 'en').segments.map((s) => s.core), ['One cat.', 'Two dogs\nand three birds']);
    assert.deepEqual(segmentText(text, '0', 'en').segments.map((s) => s.core), [text]);
  });

  it('puts whitespace and newlines back exactly', () => {
    const text = '  First line.  \n\n\tSecond one.   Third.\r\n';
    const seg = segmentText(text, '1', 'en');
    assert.equal(restoreFormatting(seg, seg.segments.map((s) => s.core), false), text);
  });

  it('preserve_formatting keeps initial case, final punctuation and bullets of the source', () => {
    const seg = segmentText('- hello world', '0', 'en');
    assert.equal(restoreFormatting(seg, ['Hola mundo.'], true), '- hola mundo');
    const seg2 = segmentText('Is it big?', '0', 'en');
    assert.equal(restoreFormatting(seg2, ['Es grande'], true), 'Es grande?');
    assert.equal(restoreFormatting(seg2, ['Es grande'], false), 'Es grande');
  });
});

function nested(marks: { id: number; kind: string; pos: number }[]): boolean {
  const stack: number[] = [];
  let last = 0;
  for (const m of marks) {
    if (m.pos < last) return false;
    last = m.pos;
    if (m.kind === 'open') stack.push(m.id);
    else if (m.kind === 'close' && stack.pop() !== m.id) return false;
  }
  return stack.length === 0;
}

describe('inline tag placement', () => {
  // "The <0>red <1>car</1></0> is <2/>fast."
  const unit = {
    text: 'The red car is fast.',
    marks: [
      { id: 0, kind: 'open' as const, pos: 4 },
      { id: 1, kind: 'open' as const, pos: 8 },
      { id: 1, kind: 'close' as const, pos: 11 },
      { id: 0, kind: 'close' as const, pos: 11 },
      { id: 2, kind: 'empty' as const, pos: 15 },
    ],
  };

  it('realign finds reordered spans in the translation', async () => {
    const fake = async (segs: string[]) =>
      segs.map((s) => ({ 'The red car is ⟦2/⟧fast.': 'El coche rojo es ⟦2/⟧rápido.', 'red car': 'coche rojo', car: 'coche' })[s] ?? s);
    const [out] = await translateTagged([unit], fake, 'realign');
    assert.equal(out!.text, 'El coche rojo es rápido.');
    const tree = markTree(out!.marks);
    assert.equal(out!.text.slice(tree[0]!.start, tree[0]!.end), 'coche rojo');
    assert.equal(out!.text.slice(tree[0]!.children[0]!.start, tree[0]!.children[0]!.end), 'coche');
    assert.ok(nested(out!.marks));
  });

  it('placeholders an engine loses or scrambles still give properly nested marks', async () => {
    const scrambles = [
      () => 'El ⟦/0⟧coche ⟦1⟧rojo⟦0⟧ es rápido.',
      () => 'El coche rojo es rápido.',
      () => '⟦/1⟧⟦/1⟧El ⟦9⟧coche⟦2/⟧⟦2/⟧ rojo ⟦0⟧es rápido.',
    ];
    for (const scramble of scrambles) {
      for (const strategy of ['placeholders', 'realign'] as const) {
        const [out] = await translateTagged([unit], async (segs) => segs.map(() => scramble()), strategy);
        assert.ok(nested(out!.marks), JSON.stringify(out));
        assert.equal(out!.marks.length, unit.marks.length);
        assert.ok(!out!.text.includes('⟦'));
      }
    }
  });
});
