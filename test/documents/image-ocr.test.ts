// OCR plumbing without images: Tesseract's TSV, grouping words into paragraphs, font sizes, language choice.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fontSizeOf, paragraphsOf } from '../../src/documents/formats/image/paragraphs.js';
import type { RecognizedWord } from '../../src/documents/formats/image/text-recognizer.js';
import { parseTesseractTsv, TesseractRecognizer } from '../../src/documents/ocr/tesseract-recognizer.js';

const TSV = [
  'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
  '1\t1\t0\t0\t0\t0\t0\t0\t640\t360\t-1\t',
  '2\t1\t1\t0\t0\t0\t40\t44\t474\t73\t-1\t',
  '5\t1\t1\t1\t1\t1\t40\t44\t58\t24\t96.8\tThe',
  '5\t1\t1\t1\t1\t2\t113\t44\t91\t24\t96.2\thouse',
  '5\t1\t1\t1\t1\t3\t219\t44\t21\t24\t31.0\t~',
  '5\t1\t1\t1\t2\t1\t42\t86\t108\t31\t96.6\tgarden',
  '5\t1\t2\t1\t1\t1\t40\t192\t14\t24\t95.0\t|',
].join('\n');

const word = (text: string, height: number, extra: Partial<RecognizedWord> = {}): RecognizedWord => ({
  text, confidence: 95, left: 0, top: 0, width: 10 * text.length, height, block: 1, paragraph: 1, line: 1, ...extra,
});

/** A canvas of one colour to draw a test image on (a page, a screenshot). */
async function page(width: number, height: number, background = '#fff') {
  const { createCanvas } = await import('@napi-rs/canvas');
  const ctx = createCanvas(width, height).getContext('2d');
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, width, height);
  return ctx;
}

describe('tesseract TSV and paragraphs', () => {
  it('reads word rows with their boxes and layout numbers', () => {
    const words = parseTesseractTsv(TSV);
    assert.equal(words.length, 5);
    assert.deepEqual(words[1], { text: 'house', confidence: 96.2, left: 113, top: 44, width: 91, height: 24, block: 1, paragraph: 1, line: 1 });
  });

  it('groups words by block and paragraph, drops unsure words and paragraphs without letters', () => {
    const ps = paragraphsOf(parseTesseractTsv(TSV));
    assert.deepEqual(ps.map((p) => p.text), ['The house garden']);
    assert.deepEqual(ps[0]!.box, { left: 40, top: 44, width: 164, height: 73 });
    assert.equal(ps[0]!.lines.length, 2);
  });

  it('joins a word hyphenated across lines, not a dash before a capital', () => {
    const ps = paragraphsOf([word('inter-', 20), word('national', 20, { line: 2 }), word('Anglo-', 20, { line: 3 }), word('Saxon', 20, { line: 4 })]);
    assert.equal(ps[0]!.text, 'international Anglo- Saxon');
  });

  it('cuts a line read across a table grid line, and two lines across a ruled line or a wide blank', async () => {
    const ctx = await page(300, 200);
    ctx.fillStyle = '#000';
    ctx.fillRect(100, 0, 2, 60); // a grid line between two cells
    ctx.fillRect(0, 60, 300, 1); // a rule under the row
    const pixels = ctx.getImageData(0, 0, 300, 200);
    // as the recognizer read it: one line across the grid line, with the line itself as a stray "s"
    const across = [word('Ballot:', 20, { left: 20, top: 20, width: 70 }), word('s', 20, { left: 97, top: 18, width: 8 }), word('Incomplete', 20, { left: 108, top: 20, width: 100 })];
    const below = [word('Counted', 20, { left: 20, top: 66, width: 80, line: 2 }), word('yes', 20, { left: 20, top: 150, width: 30, line: 3 })];
    assert.deepEqual(paragraphsOf([...across, ...below], pixels).map((p) => p.text), ['Ballot:', 'Incomplete', 'Counted', 'yes']);
    // without the pixels nothing tells the cells apart (the blank above "yes" still does)
    assert.deepEqual(paragraphsOf([...across, ...below]).map((p) => p.text), ['Ballot: s Incomplete Counted', 'yes']);
  });

  it('cuts at a light grey table border (node-os-signals-table.png: 1 px #d0d7de under a #f6f8fa header, and between white rows), not at a shading edge', async () => {
    const ctx = await page(400, 260);
    // as in the screenshot: the header cell shaded from y 101 to 130, its border at 131, the rows' borders 31 px apart
    ctx.fillStyle = '#f6f8fa';
    ctx.fillRect(0, 101, 400, 30);
    ctx.fillStyle = '#d0d7de';
    for (const y of [100, 131, 162]) ctx.fillRect(0, y, 400, 1);
    // the first row's code span (#eff1f3) under "SIGHUP": with it, the band under "Constant" is mostly header shading,
    // which the border differs from by 99 only
    ctx.fillStyle = '#eff1f3';
    ctx.fillRect(38, 138, 58, 20);
    // below the table, a shaded block (a code span's #eff1f3) starts between two lines of one paragraph, with no border
    ctx.fillStyle = '#eff1f3';
    ctx.fillRect(0, 214, 400, 46);
    const pixels = ctx.getImageData(0, 0, 400, 260);
    // one recognizer paragraph read down the column, header and first two rows joined (their lines 31 px apart)
    const column = [
      word('Description', 15, { left: 181, top: 109, width: 95 }),
      word('Sent', 12, { left: 181, top: 140, width: 33, line: 2 }),
      word('Synonym', 12, { left: 181, top: 171, width: 60, line: 3 }),
    ];
    assert.deepEqual(paragraphsOf(column, pixels).map((p) => p.text), ['Description', 'Sent', 'Synonym']);
    const constants = [word('Constant', 12, { left: 38, top: 109, width: 75 }), word('SIGHUP', 9, { left: 42, top: 143, width: 46, line: 2 })];
    assert.deepEqual(paragraphsOf(constants, pixels).map((p) => p.text), ['Constant', 'SIGHUP']);
    const shaded = [word('Sent', 12, { left: 181, top: 200, width: 33 }), word('to', 12, { left: 181, top: 220, width: 14, line: 2 })];
    assert.deepEqual(paragraphsOf(shaded, pixels).map((p) => p.text), ['Sent to']);
  });

  it('keeps in its line of prose an unsure word set inline and a short upright word of narrow letters; leaves out an unsure word apart', () => {
    const line = [
      word('Call', 20, { left: 0, width: 40 }), word('eventEmitter.on()', 20, { left: 50, width: 150, confidence: 40 }),
      word('it;', 14, { left: 210, width: 13 }), word('now', 20, { left: 230, width: 30 }), word('XR', 20, { left: 600, width: 20, confidence: 40 }),
    ];
    const [kept] = paragraphsOf(line);
    assert.equal(kept!.text, 'Call eventEmitter.on() it; now');
    // the unsure word goes to the engine as an empty tag, its box kept to paint its own pixels there
    assert.deepEqual(kept!.unit, { text: 'Call  it; now', marks: [{ id: 0, kind: 'empty', pos: 5 }] });
    assert.deepEqual(kept!.inline.map((w) => [w.text, w.box.left, w.box.width]), [['eventEmitter.on()', 50, 150]]);
    // a line of code is not prose: cut at its unsure word as before, so that the code lines of a block stay apart
    const code = [word('>', 10, { left: 0, width: 8 }), word('dbReadTable(con,', 20, { left: 20, width: 150 }), word('"arrests")', 20, { left: 185, width: 90, confidence: 39 })];
    assert.deepEqual(paragraphsOf(code).map((p) => p.text), ['> dbReadTable(con,']);
  });

  it('estimates the font size from word heights and letters', () => {
    // DejaVu Sans at 32 px: "house" (ascender) 24 px, "garden" (ascender and descender) 31 px, "one" (x-height) 18 px
    for (const size of [fontSizeOf([word('house', 24)]), fontSizeOf([word('garden', 31)]), fontSizeOf([word('one', 18)])]) {
      assert.ok(Math.abs(size - 32) < 1.5, String(size));
    }
    assert.equal(fontSizeOf([word('I', 24)]), 0);
  });
});

describe('tesseract languages', () => {
  it('uses the source language when its data is installed, else the installed default set', async () => {
    const ocr = new TesseractRecognizer();
    assert.equal(await ocr.languagesFor('en'), 'eng');
    assert.equal(await ocr.languagesFor('es'), 'spa');
    assert.equal(await ocr.languagesFor('en-gb'), 'eng');
    assert.equal(await ocr.languagesFor(undefined), 'eng+spa+deu+fra');
    // Ukrainian data is not installed here
    assert.equal(await ocr.languagesFor('uk'), 'eng+spa+deu+fra');
  });

  it('reports a missing tesseract clearly', async () => {
    const ocr = new TesseractRecognizer({ command: 'tesseract-not-installed' });
    await assert.rejects(ocr.recognize({ width: 1, height: 1, rgb: Buffer.alloc(3) }, 'en'), /not installed/);
  });
});

describe('painting plan', () => {
  it('samples background and ink around and inside the box; finds the plain room below, up to other content', async () => {
    const { planParagraph } = await import('../../src/documents/formats/image/text-painter.js');
    const ctx = await page(400, 200, '#336699');
    ctx.fillStyle = '#ffcc00';
    ctx.fillRect(20, 20, 200, 24); // stands for the text's ink
    ctx.fillStyle = '#000000';
    ctx.fillRect(0, 100, 400, 10); // other content further down
    const plan = planParagraph(ctx.getImageData(0, 0, 400, 200), {
      text: 'x',
      box: { left: 10, top: 10, width: 220, height: 44 },
      lines: [{ left: 10, top: 10, width: 220, height: 44 }],
      words: [{ left: 10, top: 10, width: 220, height: 44 }],
      fontPx: 32,
      unit: { text: 'x', marks: [] },
      inline: [],
    });
    assert.deepEqual(plan.background, { r: 0x33, g: 0x66, b: 0x99, a: 255 });
    assert.deepEqual(plan.ink, { r: 0xff, g: 0xcc, b: 0x00, a: 255 });
    assert.ok(plan.area.left < 10 && plan.area.top < 10 && plan.area.left + plan.area.width > 230);
    // plain rows from the area's bottom to the black bar, less a margin on both sides
    const bottom = plan.area.top + plan.area.height;
    assert.ok(plan.roomBelow > 0 && bottom + plan.roomBelow < 100 && bottom + plan.roomBelow > 88, String(plan.roomBelow));
  });

  it("erases each word of a paragraph whole, even where another paragraph's line box reaches over it", async () => {
    const { planParagraphs } = await import('../../src/documents/formats/image/text-painter.js');
    const ctx = await page(400, 100);
    const cell = { left: 10, top: 10, width: 90, height: 20 };
    // the next cell's line, regrouped across the grid, starts over the first cell's word
    const next = { left: 120, top: 12, width: 140, height: 20 };
    const nextLine = { ...next, left: 60, width: 200 };
    const paragraphs = [
      { text: 'Category', box: cell, lines: [cell], words: [cell], fontPx: 20, unit: { text: 'Category', marks: [] }, inline: [] },
      { text: 'Participants', box: nextLine, lines: [nextLine], words: [next], fontPx: 20, unit: { text: 'Participants', marks: [] }, inline: [] },
    ];
    const [plan] = planParagraphs(ctx.getImageData(0, 0, 400, 100), paragraphs, []);
    const covered = (x: number, y: number) => plan!.erase.some((b) => x >= b.left && x < b.left + b.width && y >= b.top && y < b.top + b.height);
    for (let y = cell.top; y < cell.top + cell.height; y++) for (let x = cell.left; x < cell.left + cell.width; x++) assert.ok(covered(x, y), `(${x}, ${y}) not erased`);
    // the other paragraph's word stays clear of this erase
    assert.ok(plan!.erase.every((b) => b.left + b.width <= next.left || b.top >= next.top + next.height), JSON.stringify(plan!.erase));
  });

  it('text that takes the room on the right goes down only as far as the rows there are plain', async () => {
    const { paint, planParagraph } = await import('../../src/documents/formats/image/text-painter.js');
    const ctx = await page(600, 200);
    ctx.fillStyle = '#333';
    const label = { left: 10, top: 10, width: 100, height: 18 };
    ctx.fillRect(label.left, label.top, label.width, label.height); // stands for the label's ink
    ctx.fillRect(0, 70, 130, 4); // a rule under the label
    const word = { left: 200, top: 36, width: 60, height: 16 };
    ctx.fillStyle = '#c00000';
    ctx.fillRect(word.left, word.top, word.width, word.height); // a word below and right of the label, left as it is
    const plan = planParagraph(ctx.getImageData(0, 0, 600, 200), { text: 'Save', box: label, lines: [label], words: [label], fontPx: 18, unit: { text: 'Save', marks: [] }, inline: [] });
    paint(ctx, [plan], ['Guarde los cambios del documento actual en el servidor y anote la hora exacta de la última modificación']);
    const { data } = ctx.getImageData(word.left, word.top, word.width, word.height);
    for (let i = 0; i < data.length; i += 4) assert.deepEqual([...data.subarray(i, i + 3)], [0xc0, 0, 0], 'the word below on the right was painted over');
  });

  it("a JPEG's faint halo next to the text still leaves the plain room on its right; ink there does not", async () => {
    const { createCanvas } = await import('@napi-rs/canvas');
    const { planParagraph } = await import('../../src/documents/formats/image/text-painter.js');
    const roomRight = (edge: string) => {
      const ctx = createCanvas(600, 80).getContext('2d');
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, 600, 80);
      ctx.fillStyle = '#000';
      ctx.fillRect(20, 20, 200, 24); // stands for the text's ink
      ctx.fillStyle = edge;
      ctx.fillRect(225, 16, 2, 32); // just past the area, within a margin of it
      const box = { left: 20, top: 20, width: 200, height: 24 };
      return planParagraph(ctx.getImageData(0, 0, 600, 80), { text: 'x', box, lines: [box], words: [box], fontPx: 20, unit: { text: 'x', marks: [] }, inline: [] }).roomRight;
    };
    assert.ok(roomRight('#eeeeee') > 300, 'ringing of 51 took the room');
    assert.equal(roomRight('#000'), 0);
  });

  it('fits a translation in its room: the original size when it fits, else smaller; at the floor the lines that fit, ending in an ellipsis', async () => {
    const { createCanvas } = await import('@napi-rs/canvas');
    const { fit } = await import('../../src/documents/formats/image/text-painter.js');
    const ctx = createCanvas(10, 10).getContext('2d');
    const white = { r: 255, g: 255, b: 255, a: 255 };
    const area = { left: 0, top: 0, width: 160, height: 30 };
    const plan = { source: 'x', area, erase: [area], background: white, ink: white, fontPx: 20, roomBelow: 0, roomRight: 0, roomBelowWide: 0, inline: [] };
    assert.deepEqual(fit(ctx, 'Guardar', plan), { fontPx: 20, lines: ['Guardar'], width: 152, height: 26 });
    // too long for one line at 20 px: smaller, two lines
    const smaller = fit(ctx, 'Guarde el fichero ahora', plan);
    assert.ok(smaller.fontPx < 20 && smaller.fontPx >= 8 && smaller.lines.join(' ') === 'Guarde el fichero ahora', JSON.stringify(smaller));
    // far too long: 8 px (the floor), as many lines as the height holds, the last ending in "…", none wider than the room
    const floor = fit(ctx, 'Guarde los cambios del documento actual en el servidor y anote la hora exacta de la última modificación del fichero', plan);
    assert.equal(floor.fontPx, 8);
    assert.equal(floor.lines.length, 2);
    assert.match(floor.lines[1]!, /…$/u);
    ctx.font = '8px "DejaVu Sans"';
    for (const line of floor.lines) assert.ok(ctx.measureText(line).width <= floor.width, line);
    // room on the right is taken before the text is shrunk
    assert.equal(fit(ctx, 'Guarde el fichero ahora', { ...plan, roomRight: 200 }).fontPx, 20);
  });
});
