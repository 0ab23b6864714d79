// PDF format: paragraph grouping on a real (LibreOffice) PDF and on synthetic layouts, the text-operator filter,
// the rebuilt file read back by pdf.js and poppler, and bad files ending in DocumentFormatError.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { pdfFormat } from '../../src/documents/formats/pdf.js';
import { DocumentFormatError } from '../../src/documents/formats/format.js';
import { DocumentFormats } from '../../src/documents/formats/index.js';
import { layoutPage, type TextPiece } from '../../src/documents/formats/pdf/layout.js';
import { stripTextOperators } from '../../src/documents/formats/pdf/content-stream.js';
import { fitText, fontFor, wrap } from '../../src/documents/formats/pdf/fonts.js';
import { PDFDocument, StandardFonts, TextRenderingMode, grayscale, rgb, setTextRenderingMode } from 'pdf-lib';
import { flat, inspectPdf, pdftotext } from './pdf-inspect.js';

const FIXTURES = new URL('../../../test/fixtures/documents/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));
const ES = { targetLang: 'es' };
const SANS = { family: 'sans' as const, bold: false, italic: false };
const BOLD = { family: 'sans' as const, bold: true, italic: false };

/** The paragraphs, list items, table cells and headings of sample.pdf (see pdf-source/sample.html). */
const SAMPLE_SEGMENTS = [
  'The House by the River',
  'The old house stands next to the river. My grandmother lived there for many years with her two dogs and a black cat. Every morning she walked along the water and looked at the birds. In the afternoon she worked in the garden, where she grew tomatoes, beans and many flowers.',
  'The village is small and quiet. There is a church, a school and a market in the main square. The people are friendly and they help each other when the winter is long and cold.',
  'The kitchen is big and bright.',
  'The garden has three old trees.',
  'The road to the city is very long.',
  'Room',
  'Colour',
  'Kitchen',
  'Yellow',
  'Bedroom',
  'Blue',
  'The Garden',
  'The garden is behind the house. In summer the children play there all day and the dog sleeps under the trees. My brother reads books in the shade and my sister paints pictures of the flowers.',
  'We eat dinner outside when the weather is good. Our neighbours often come with bread, cheese and wine, and we talk until the night is dark.',
];

async function rejects(input: Buffer, message: RegExp) {
  await assert.rejects(
    async () => pdfFormat.extract(input, ES),
    (err: unknown) => err instanceof DocumentFormatError && message.test(err.message),
  );
}

describe('pdf extraction', () => {
  it('makes one segment per paragraph, list item, table cell and heading, in reading order', async () => {
    const doc = await pdfFormat.extract(fixture('sample.pdf'), ES);
    assert.deepEqual(doc.segments.map((s) => s.text), SAMPLE_SEGMENTS);
    assert.ok(doc.segments.every((s) => s.kind === 'text'));
    assert.equal(doc.characters, SAMPLE_SEGMENTS.join('').length);
    assert.equal(pdfFormat.minimumBilledCharacters, 50_000);
    const found = new DocumentFormats().forFileName('Report.PDF');
    assert.ok(found !== 'planned' && found?.id === 'pdf');
  });

  it('bounds a block by the lines beside and below it, not by its neighbour paragraph\'s left edge', () => {
    // fontconfig-user's property table: a cell's text ends where the next paragraph starts on its baseline, and that
    // paragraph goes on further left below it
    const piece = (text: string, x: number, y: number, width: number): TextPiece => ({ text, x, y, angle: 0, size: 8.5, width, font: SANS });
    const blocks = layoutPage(
      [piece('List of the feature tags in', 283.3, 361.5, 145.3), piece('OpenType to be enabled', 434, 361.5, 118.3),
        piece('Language name to be used for the default value of', 283.3, 351.7, 263.7), piece('familylang, stylelang, and fullnamelang', 283.3, 341.8, 209.9)],
      [0, 0, 612, 792],
    );
    const [cell, next] = [blocks.find((b) => b.text.startsWith('List'))!, blocks.find((b) => b.text.startsWith('OpenType'))!];
    assert.equal(next.lines.length, 3);
    assert.ok(cell.maxRight < 434, `grows right to ${cell.maxRight}, over the next paragraph's first line`);
    assert.ok(cell.maxBottom >= 351.7 + 0.8 * 8.5, `grows down to ${cell.maxBottom}, over the next paragraph's second line`);
  });

  it('keeps a formula\'s big delimiters in their line, and their height out of the room of the paragraph above', () => {
    // crc-doc (zlib1g-dev's CRC paper) p. 5 §3.3 and p. 4 §3.1: TeX draws \bigl( and \bigr) in a math font with their
    // origin 0.8 em above the baseline of the text they enclose
    const piece = (text: string, x: number, y: number, width: number): TextPiece => ({ text, x, y, angle: 0, size: 10, width, font: SANS });
    const prose = layoutPage(
      [piece('M1 and M2, and CRCs of M1, M2 (computed with some initial values v1(x),', 133.8, 494.4, 343.6),
        piece('v2(x) respectively) are known, CRCu', 133.8, 482.5, 165.4), piece('(', 299.4, 490.5, 4.6), piece('M(x), v(x)', 304, 482.5, 47.2),
        piece(')', 351.2, 490.5, 4.6), piece('may be computed without', 360, 482.5, 117.5),
        piece('touching contents of the message M:', 133.8, 470.5, 160.4)],
      [0, 0, 612, 792],
    );
    assert.deepEqual(prose.map((b) => b.text), ['M1 and M2, and CRCs of M1, M2 (computed with some initial values v1(x), v2(x) respectively) are known, CRCu(M(x), v(x)) may be computed without touching contents of the message M:']);
    const [paragraph] = layoutPage(
      [piece('of messages M1 and M2, its CRC may be computed piece by piece because', 133.8, 390.8, 327.5),
        piece('CRCu', 177.6, 366.5, 26.1), piece('(', 204.2, 374.5, 4.6), piece('M(x), v(x)', 208.8, 366.5, 47.2), piece(')', 256.1, 374.5, 4.6),
        piece('= CRCu(M2(x), v(x)).', 263.4, 366.5, 170)],
      [0, 0, 612, 792],
    );
    assert.ok(paragraph!.maxBottom >= 374.5 + 0.8 * 10, `grows down to ${paragraph!.maxBottom}, over the delimiters below`);
  });

  it('reads an ellipsis before a full stop in a sentence as text, not as a contents leader', () => {
    // delimset's p. 6: "#1, #2, . . . . Note that" was cut at the dots, and the two paragraphs drawn on one baseline
    const piece = (text: string, x: number, y: number, width: number): TextPiece => ({ text, x, y, angle: 0, size: 10, width, font: SANS });
    const blocks = layoutPage(
      [piece('As usual, the macro expr contains the command arguments specified by #1, #2', 99.2, 117.8, 348.3), piece(', . . . . Note', 447.5, 117.8, 48.6),
        piece('that these should be encapsulated in groups {#1}, {#2}, . . . , in order to prevent them from', 99.2, 105.9, 396.8)],
      [0, 0, 595, 842],
    );
    assert.deepEqual(blocks.map((b) => b.text), ['As usual, the macro expr contains the command arguments specified by #1, #2, . . . . Note that these should be encapsulated in groups {#1}, {#2}, . . . , in order to prevent them from']);
  });

  it('groups synthetic layouts: paragraph spacing, two columns, centred lines, markers, numbers', () => {
    const piece = (text: string, x: number, y: number, size = 10, font = SANS, width = text.length * size * 0.5): TextPiece =>
      ({ text, x, y, angle: 0, size, width, font });
    const blocks = layoutPage(
      [
        piece('Title of the page', 200, 780, 18, BOLD),
        // two columns, drawn line by line across both; their lines fill the column (the next word did not fit)
        piece('Left column starts', 50, 740, 10, SANS, 258), piece('Right column starts', 320, 740, 10, SANS, 240),
        piece('and continues here.', 50, 728), piece('and goes on here', 320, 728, 10, SANS, 240),
        piece('until its end.', 320, 716),
        // a new paragraph after a blank line
        piece('Second left paragraph.', 50, 690),
        // list: marker, gap, text
        piece('1.', 50, 660), piece('First item text', 65, 660),
        piece('2.', 50, 648), piece('Second item text', 65, 648),
        // a page number
        piece('12', 300, 40),
        // rotated text (90°) in the margin
        { text: 'Sideways note', x: 20, y: 300, angle: Math.PI / 2, size: 8, width: 52, font: SANS },
      ],
      [0, 0, 612, 792],
    );
    const texts = blocks.map((b) => [b.text, b.translatable] as const);
    assert.deepEqual(texts, [
      ['Title of the page', true],
      ['Left column starts and continues here.', true],
      ['Right column starts and goes on here until its end.', true],
      ['Second left paragraph.', true],
      ['1.', false],
      ['First item text', true],
      ['2.', false],
      ['Second item text', true],
      ['12', false],
      ['Sideways note', true],
    ]);
    const right = blocks[2]!;
    assert.equal(right.lines.length, 3);
    assert.ok(Math.abs(right.lineGap - 12) < 1e-9);
    // the left column may not grow into the right one
    assert.ok(blocks[1]!.maxRight <= 320);
    assert.ok(Math.abs(blocks[9]!.angle - Math.PI / 2) < 1e-9);
  });

  it('refuses files it cannot translate with a clear error', async () => {
    const sample = fixture('sample.pdf');
    await rejects(Buffer.from('Just some text, not a PDF.'), /not a PDF/);
    await rejects(sample.subarray(0, Math.floor(sample.length / 2)), /PDF file/);
    await rejects(sample.subarray(0, 900), /PDF file/);
    await rejects(Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(4000)]), /PDF file/);
    await rejects(fixture('encrypted-password.pdf'), /encrypted/);
    await rejects(fixture('encrypted-permissions.pdf'), /encrypted/);
    await rejects(fixture('image-only.pdf'), /no text to translate/);
    // random damage inside the file: either still readable or a DocumentFormatError, never another error
    for (let k = 0; k < 12; k++) {
      const damaged = Buffer.from(sample);
      for (let j = 0; j < 50; j++) damaged[1000 + Math.floor(Math.random() * (damaged.length - 1000))] = Math.floor(Math.random() * 256);
      try {
        const doc = await pdfFormat.extract(damaged, ES);
        await doc.rebuild(doc.segments.map((s) => s.text));
      } catch (err) {
        assert.ok(err instanceof DocumentFormatError, `damaged file #${k}: ${(err as Error).stack}`);
      }
    }
  });
});

describe('pdf content streams', () => {
  it('removes text-showing operators with their operands and keeps everything else', () => {
    const src = [
      'q 1 0 0 1 0 0 cm 0 0 100 50 re f',
      'BT /F1 12 Tf 72 700 Td (Hello \\(Tj\\) world) Tj',
      '[(Wo) -120 (rld) <48656c6c6f>] TJ',
      "(next line) ' 1 2 (spaced) \" T* <00410042> Tj ET",
      '% a comment with (Tj) in it',
      'BI /W 2 /H 1 /BPC 8 /CS /G ID \x00Tj EI Q',
      '/P <</MCID 0 /Alt (x\\) Tj)>> BDC EMC',
    ].join('\n');
    const out = Buffer.from(stripTextOperators(Buffer.from(src, 'latin1'))!).toString('latin1');
    for (const gone of ['Hello', 'Wo', 'rld', '<48656c6c6f>', 'next line', 'spaced', '<00410042>']) assert.ok(!out.includes(gone), gone);
    for (const kept of ['0 0 100 50 re f', '/F1 12 Tf 72 700 Td', 'BT', 'ET', '% a comment with (Tj) in it', 'ID \x00Tj EI Q', '<</MCID 0 /Alt (x\\) Tj)>> BDC EMC']) {
      assert.ok(out.includes(kept), kept);
    }
    // ' and " still move to the next line
    assert.equal(out.match(/T\*/g)?.length, 3);
    assert.equal(stripTextOperators(Buffer.from('0 0 m 10 10 l S')), null);
  });

  it('never hangs or throws anything but DocumentFormatError on random bytes', () => {
    const alphabet = Buffer.from('()<>[]{}/%\\ \n\rBIDEITjTJ\'"0123456789.-abc');
    for (let k = 0; k < 300; k++) {
      const bytes = k % 2 ? randomBytes(2000) : Buffer.from(Array.from({ length: 2000 }, () => alphabet[Math.floor(Math.random() * alphabet.length)]!));
      try {
        stripTextOperators(bytes);
      } catch (err) {
        assert.ok(err instanceof DocumentFormatError, String(err));
      }
    }
  });
});

describe('pdf text fitting', () => {
  it('wraps at the width and shrinks until the height is met', () => {
    const { metrics } = fontFor(SANS);
    const lines = wrap('uno dos tres cuatro cinco seis', metrics, 10, [60]);
    assert.ok(lines.length > 1);
    for (const l of lines) assert.ok(metrics.measure(l) * 10 <= 60, l);
    assert.equal(lines.join(' '), 'uno dos tres cuatro cinco seis');
    const fitted = fitText('una frase bastante más larga que el original', metrics, 12, 14, () => [100], 2 * 14);
    assert.ok(fitted.size < 12);
    assert.ok(0.8 * fitted.size + 0.25 * fitted.size + (fitted.lines.length - 1) * fitted.lineGap <= 28.01);
    assert.deepEqual(wrap('Supercalifragilistic', metrics, 10, [30]).join(''), 'Supercalifragilistic');
  });

  it('gives each line its own width, and leaves a line too narrow for the next word empty', () => {
    const { metrics } = fontFor(SANS);
    const text = 'uno dos tres cuatro cinco seis siete ocho';
    const widths = [40, 25, 80];
    const lines = wrap(text, metrics, 10, widths);
    lines.forEach((l, n) => assert.ok(metrics.measure(l) * 10 <= widths[Math.min(n, 2)]!, `${n}: ${l}`));
    assert.equal(lines.filter((l) => l !== '').join(' '), text);
    // "Supercalifragilistic" does not fit 20 pt but fits 200: line 0 stays empty rather than cutting it
    assert.deepEqual(wrap('Supercalifragilistic es', metrics, 10, [20, 200]), ['', 'Supercalifragilistic es']);
  });
});

describe('pdf output', () => {
  it('removes text drawn inside form XObjects (an embedded page) and draws its translation', async () => {
    const src = await PDFDocument.create();
    const font = await src.embedFont(StandardFonts.Helvetica);
    const inner = src.addPage([300, 200]);
    inner.drawText('The dog sleeps in the garden.', { x: 20, y: 150, size: 12, font });
    inner.drawRectangle({ x: 20, y: 20, width: 100, height: 50, color: rgb(0, 0, 1) });
    const outer = await PDFDocument.create();
    const [form] = await outer.embedPdf(await src.save());
    outer.addPage([400, 300]).drawPage(form!, { x: 50, y: 50 });
    const input = Buffer.from(await outer.save());
    assert.ok((await inspectPdf(input))[0]!.text.includes('The dog sleeps in the garden.'));
    const doc = await pdfFormat.extract(input, ES);
    assert.deepEqual(doc.segments.map((s) => s.text), ['The dog sleeps in the garden.']);
    const [page] = await inspectPdf(await doc.rebuild(['El perro duerme en el jardín.']));
    assert.equal(flat(page!.text).trim(), 'El perro duerme en el jardín.');
    assert.ok(page!.paths >= 1);
  });

  it('keeps pages, sizes, images and graphics; shows the translation and none of the original text', async () => {
    const input = fixture('sample.pdf');
    const doc = await pdfFormat.extract(input, { ...ES, watermark: true });
    // a visible stand-in translation, longer than the source like most translations
    const stand = (s: string) => `ES ${s.toUpperCase()} (TRADUCIDO)`;
    const out = await doc.rebuild(doc.segments.map((s) => stand(s.text)));
    assert.equal(out.subarray(0, 5).toString('latin1'), '%PDF-');
    const before = await inspectPdf(input);
    const after = await inspectPdf(out);
    assert.equal(after.length, before.length);
    for (let p = 0; p < before.length; p++) {
      assert.deepEqual(after[p]!.size, before[p]!.size);
      assert.equal(after[p]!.images, before[p]!.images);
      assert.ok(after[p]!.paths >= before[p]!.paths);
      assert.match(after[p]!.text, /Translated by Tolk/);
    }
    assert.equal(before[0]!.images, 1);
    assert.ok(before[0]!.paths > 0);
    const shown = flat(after.map((p) => p.text).join(' '));
    for (const s of SAMPLE_SEGMENTS) {
      // paragraphs read back whole; narrow table cells wrap, so their lines interleave with the next cell's
      if (s.length > 40) assert.ok(shown.includes(flat(stand(s))), `missing: ${stand(s)}`);
      else for (const word of stand(s).split(' ')) assert.ok(shown.includes(word), `missing: ${word} of ${stand(s)}`);
    }
    // the original (mixed-case) text is gone: only the upper-case stand-in remains
    assert.doesNotMatch(shown, /\b(?:The|house|river|garden)\b/);
    assert.match(after[0]!.text, /•/);
    const poppler = pdftotext(out);
    if (poppler !== undefined) {
      assert.ok(flat(poppler).includes(flat(stand(SAMPLE_SEGMENTS[1]!))));
      assert.doesNotMatch(poppler, /\bgrandmother\b/);
    }
  });

  it('covers the scanned text under an invisible OCR layer before drawing the translation over it', async () => {
    const build = async (mode: TextRenderingMode) => {
      const pdf = await PDFDocument.create();
      const page = pdf.addPage([400, 300]);
      const image = await pdf.embedPng(fixture('pdf-source/chart.png'));
      page.drawImage(image, { x: 0, y: 0, width: 400, height: 300 });
      page.pushOperators(setTextRenderingMode(mode));
      page.drawText('The dog sleeps in the garden.', { x: 20, y: 150, size: 12, font: await pdf.embedFont(StandardFonts.Helvetica) });
      return Buffer.from(await pdf.save());
    };
    for (const [mode, covered] of [[TextRenderingMode.Invisible, true], [TextRenderingMode.Fill, false]] as const) {
      const input = await build(mode);
      const doc = await pdfFormat.extract(input, ES);
      const out = await inspectPdf(await doc.rebuild(['El perro duerme en el jardín.']));
      const before = await inspectPdf(input);
      assert.equal(out[0]!.images, 1);
      assert.equal(flat(out[0]!.text).trim(), 'El perro duerme en el jardín.');
      // a white box under the translation only where the original text was part of the image
      assert.equal(out[0]!.paths - before[0]!.paths, covered ? 1 : 0, `mode ${mode}`);
    }
  });

  it('draws each block in the colour of its text', async () => {
    const pdf = await PDFDocument.create();
    const page = pdf.addPage([400, 300]);
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    page.drawText('A blue title', { x: 20, y: 250, size: 16, font, color: rgb(0.2, 0.4, 0.6) });
    page.drawText('Red words in a paragraph.', { x: 20, y: 200, size: 11, font, color: rgb(0.8, 0, 0) });
    page.drawText('Grey words in a paragraph.', { x: 20, y: 150, size: 11, font, color: grayscale(0.5) });
    const doc = await pdfFormat.extract(Buffer.from(await pdf.save()), ES);
    assert.equal(doc.segments.length, 3);
    const [out] = await inspectPdf(await doc.rebuild(['Un título azul', 'Palabras rojas en un párrafo.', 'Palabras grises en un párrafo.']));
    assert.deepEqual([...out!.textColors].sort(), ['#336699', '#808080', '#cc0000']);
  });

  it('rebuilds twice from the same extraction and draws text it has no translation for as it was', async () => {
    const doc = await pdfFormat.extract(fixture('sample.pdf'), ES);
    const a = await inspectPdf(await doc.rebuild(doc.segments.map((s) => s.text.replace(/house/g, 'casa'))));
    const b = await inspectPdf(await doc.rebuild([]));
    assert.match(flat(a[0]!.text), /The old casa stands next to the river/);
    assert.doesNotMatch(flat(a[0]!.text + a[1]!.text), /Translated by Tolk/);
    assert.match(flat(b[0]!.text), /The old house stands next to the river/);
  });
});
