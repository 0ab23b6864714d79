// PDF output: glyphs the text layer reads as private-use characters have no Unicode meaning a substitute face could
// show, so they are drawn again from their own font by code. The page mirrors SIstyle-2.3a.pdf p6
// (texlive-science-doc): "There were 123 of them" with the digits in CMMI10's old-style figures (codes 0x31-0x33,
// glyph names oneoldstyle…, which pdf.js reads as U+F731…), once inside a translated line and once alone; and a
// list item whose bullet is a word processor's Symbol bullet mapped to U+F0B7.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pdfFormat } from '../../src/documents/formats/pdf.js';
import { fontFor } from '../../src/documents/formats/pdf/fonts.js';
import { readPageTexts } from '../../src/documents/formats/pdf/page-text.js';
import { buildPdf } from './pdf-builder.js';

const SIZE = 9.9626;
const OLD_STYLE_123 = '\uF731\uF732\uF733';

async function sistylePage(): Promise<Buffer> {
  // places as on SIstyle p6 ("There were" in DejaVu Serif, wider than CMTI10, starts further left to end 3.6 pt before the digits, as there)
  return buildPdf([{
    items: [
      { text: 'There were', at: { x: 414.5, y: 660.3 + SIZE, width: 60 }, size: SIZE },
      { font: 'cmmi10', x: 476, y: 660.3, size: SIZE, codes: [0x31, 0x32, 0x33] },
      { text: 'of them', at: { x: 494.5, y: 660.3 + SIZE, width: 60 }, size: SIZE },
      { font: 'cmmi10', x: 476, y: 610, size: SIZE, codes: [0x31, 0x30] },
      { font: 'symbol', x: 62, y: 560, size: SIZE, codes: [0xb7] },
      { text: 'The road to the city is very long.', at: { x: 78, y: 560 + SIZE }, size: SIZE },
    ],
  }]);
}

describe('PDF glyphs without a Unicode meaning', () => {
  it('draws old-style digits from their own font inside the translated line and alone; a symbol bullet stays one', async () => {
    const input = await sistylePage();
    const doc = await pdfFormat.extract(input, { targetLang: 'es' });
    const segments = doc.segments.map((s) => s.text);
    assert.ok(segments.includes(`There were ${OLD_STYLE_123} of them`), segments.join(' | '));
    // as Apertium does, the engine carries the private-use characters through
    const translations = segments.map((s) => s.replace('There were', 'Había').replace('of them', 'de ellos').replace('The road to the city is very long.', 'El camino a la ciudad es muy largo.'));
    const [page] = await readPageTexts(await doc.rebuild(translations), { maxPages: 1, maxCharacters: 10_000 });
    const pieces = page!.pieces;
    assert.ok(!pieces.some((p) => p.text.includes('•') && p.y > 600), `no bullet for a digit: ${pieces.map((p) => p.text).join(' | ')}`);
    const cmmi = pieces.filter((p) => p.fontName === 'XXERTP+CMMI10');
    const inLine = cmmi.filter((p) => Math.abs(p.y - 660.3) < 0.5);
    assert.equal(inLine.map((p) => p.text).join(''), OLD_STYLE_123);
    // within the reflowed line: after "Había", before "de ellos", on their baseline
    const word = (text: string) => pieces.find((p) => p.text.includes(text) && Math.abs(p.y - 660.3) < 0.5);
    const before = word('Había');
    const after = word('de ellos');
    assert.ok(before && after, pieces.map((p) => `${p.text}@${p.x.toFixed(0)},${p.y.toFixed(0)}`).join(' | '));
    const start = Math.min(...inLine.map((p) => p.x));
    const end = Math.max(...inLine.map((p) => p.x + p.width));
    assert.ok(start >= before.x + before.width - 0.5 && end <= after.x + 0.5, `digits at ${start}-${end}, words end ${before.x + before.width}, start ${after.x}`);
    // the digits alone (a block drawn back as it was) are drawn from the font too, at their place
    const alone = cmmi.filter((p) => Math.abs(p.y - 610) < 0.5);
    assert.equal(alone.map((p) => p.text).join(''), '\uF731\uF730');
    assert.ok(Math.abs(alone[0]!.x - 476) < 0.5);
    // the list item's bullet: the same glyph at the same place (or a bullet), the item translated beside it
    const bullet = pieces.find((p) => Math.abs(p.y - 560) < 0.5 && p.x < 70);
    assert.ok(bullet && /^(?:\uF0B7|•)$/u.test(bullet.text), `bullet: ${bullet?.text}`);
    assert.ok(pieces.some((p) => p.text.includes('El camino')));
  });

  it('with no font to draw it from, a lone private-use glyph is taken for a bullet, one within a word is not', () => {
    const { metrics } = fontFor({ family: 'sans', bold: false, italic: false });
    assert.equal(metrics.drawable(`\uF0B7 There were ${OLD_STYLE_123} of them, x\uF731`), '• There were ??? of them, x?');
    assert.equal(metrics.drawable(`Había ${OLD_STYLE_123}`, new Set(['\uF731', '\uF732', '\uF733'])), `Había ${OLD_STYLE_123}`);
  });

  it("a character the face lacks is drawn as its look-alike or compatibility form where the face has that (SIstyle's CMSY ⟨degs⟩)", () => {
    const { metrics } = fontFor({ family: 'serif', bold: false, italic: false });
    // pdf.js reads CMSY's angle brackets as U+3008/U+3009, which DejaVu lacks; a character with no stand-in stays '?'
    assert.equal(metrics.drawable('\u3008degs\u3009 \u2329x\u232A \uFF21 \u4E00'), '\u27E8degs\u27E9 \u27E8x\u27E9 A ?');
  });
});
