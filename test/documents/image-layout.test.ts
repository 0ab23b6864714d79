// Images laid out as screenshots are, drawn with @napi-rs/canvas and read by real Tesseract: table cells stay cells
// (not run-on lines painted over the grid), separate UI cards stay apart, and a word the recognizer is unsure of is
// left as it was (not sent, not painted over).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCanvas, GlobalFonts, loadImage, type Canvas } from '@napi-rs/canvas';
import { createImageFormat } from '../../src/documents/formats/image/image-format.js';
import { fontSizeOf, paragraphsOf, type Box } from '../../src/documents/formats/image/paragraphs.js';
import type { RecognizedWord, RgbImage, TextRecognizer } from '../../src/documents/formats/image/text-recognizer.js';
import { TesseractRecognizer } from '../../src/documents/ocr/tesseract-recognizer.js';
import { findCrop } from './image-layout-check.js';
import { cellTableCanvas, LONG_LABEL, screenshotBesideShortWord, screenshotWithIdentifiers, shortCellTable } from './image-layout-images.js';

GlobalFonts.registerFromPath('/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf', 'DejaVu Sans Mono Bold');

const tesseract = new TesseractRecognizer();
const png = createImageFormat('png', tesseract);

const SPANISH: Record<string, string> = {
  Fruit: 'Fruta', Colour: 'Color', Season: 'Estación', Apples: 'Manzanas', Red: 'Rojo', Autumn: 'Otoño', Lemons: 'Limones',
  Yellow: 'Amarillo', Winter: 'Invierno', 'Green pears': 'Peras verdes', Green: 'Verde', Summer: 'Verano',
  'Fast sync': 'Sincronía rápida', 'Safe storage': 'Almacén seguro', 'Easy sharing': 'Compartir fácil',
  'Your files are on every device.': 'Tus ficheros están en cada aparato.', 'We keep a copy of every file.': 'Guardamos una copia de cada fichero.',
  'Send a link to your friends.': 'Envía un enlace a tus amigos.',
};

async function pixelsOf(bytes: Buffer): Promise<{ width: number; height: number; data: Uint8ClampedArray }> {
  const img = await loadImage(bytes);
  const c = createCanvas(img.width, img.height);
  c.getContext('2d').drawImage(img, 0, 0);
  return c.getContext('2d').getImageData(0, 0, img.width, img.height);
}

function rgbOf({ width, height, data }: { width: number; height: number; data: Uint8ClampedArray }): RgbImage {
  const rgb = Buffer.alloc(width * height * 3);
  for (let i = 0, j = 0; i < data.length; i += 4, j += 3) rgb.set(data.subarray(i, i + 3), j);
  return { width, height, rgb };
}

/** The output's paragraphs as Tesseract reads them (Spanish), with their boxes. */
async function readBack(bytes: Buffer) {
  return paragraphsOf(await tesseract.recognize(rgbOf(await pixelsOf(bytes)), 'es'));
}

const within = (b: Box, r: Box) => b.left >= r.left && b.top >= r.top && b.left + b.width <= r.left + r.width && b.top + b.height <= r.top + r.height;

/** Pixels that differ (any channel by more than 48) inside `area` between two decoded images. */
function changed(a: { width: number; data: Uint8ClampedArray }, b: { data: Uint8ClampedArray }, area: Box): number {
  let n = 0;
  for (let y = area.top; y < area.top + area.height; y++) {
    for (let x = area.left; x < area.left + area.width; x++) {
      const i = (y * a.width + x) * 4;
      if ([0, 1, 2].some((c) => Math.abs(a.data[i + c]! - b.data[i + c]!) > 48)) n++;
    }
  }
  return n;
}

async function translate(canvas: Canvas, format = png) {
  const input = canvas.toBuffer('image/png');
  const doc = await format.extract(input, { targetLang: 'es', sourceLang: 'en' });
  const out = await doc.rebuild(doc.segments.map((s) => SPANISH[s.text] ?? s.text));
  return { input, out, segments: doc.segments.map((s) => s.text) };
}

describe('image layout (Tesseract)', () => {
  it('table cells are translated one by one and painted inside their cells; the grid stays', async () => {
    const rows = [['Fruit', 'Colour', 'Season'], ['Apples', 'Red', 'Autumn'], ['Lemons', 'Yellow', 'Winter'], ['Green pears', 'Green', 'Summer']];
    const layout = { left: 20, top: 20, widths: [220, 220, 220], height: 55, font: '22px "DejaVu Sans"', inset: 14, baseline: 36 };
    const { canvas: c, cells } = cellTableCanvas(700, 260, rows, layout);
    const { input, out, segments } = await translate(c);
    assert.deepEqual([...segments].sort(), rows.flat().sort());
    const [before, after] = [await pixelsOf(input), await pixelsOf(out)];
    // the grid lines: each cell's left and top border
    for (const cell of cells) {
      assert.equal(changed(before, after, { left: cell.left - 1, top: cell.top + 2, width: 2, height: cell.height - 4 }), 0, 'a vertical grid line was painted over');
      assert.equal(changed(before, after, { left: cell.left + 2, top: cell.top - 1, width: cell.width - 4, height: 2 }), 0, 'a horizontal grid line was painted over');
    }
    const read = await readBack(out);
    for (const p of read) assert.ok(cells.some((cell) => within(p.box, cell)), `"${p.text}" runs across cells`);
    const words = read.map((p) => p.text).join(' ');
    for (const t of ['Manzanas', 'Limones', 'Invierno', 'Verano', 'Amarillo']) assert.match(words, new RegExp(t));
  });

  it('separate UI cards stay apart: each card its own paragraphs, painted inside it', async () => {
    const c = createCanvas(760, 300);
    const x = c.getContext('2d');
    x.fillStyle = '#eeeeff';
    x.fillRect(0, 0, 760, 300);
    const texts = [['Fast sync', 'Your files are on', 'every device.'], ['Safe storage', 'We keep a copy', 'of every file.'], ['Easy sharing', 'Send a link to', 'your friends.']];
    const cards = texts.map((_, j) => ({ left: 20 + j * 245, top: 30, width: 225, height: 230 }));
    texts.forEach((t, j) => {
      x.fillStyle = '#fff';
      x.fillRect(cards[j]!.left, cards[j]!.top, cards[j]!.width, cards[j]!.height);
      x.fillStyle = '#000';
      t.forEach((line, i) => {
        x.font = i === 0 ? 'bold 24px "DejaVu Sans"' : '20px "DejaVu Sans"';
        x.fillText(line, 36 + j * 245, 80 + i * 40 + (i > 0 ? 20 : 0));
      });
    });
    const { input, out, segments } = await translate(c);
    assert.deepEqual([...segments].sort(), texts.flatMap((t) => [t[0]!, `${t[1]} ${t[2]}`]).sort());
    const [before, after] = [await pixelsOf(input), await pixelsOf(out)];
    // the gutters between the cards are untouched
    for (const gutter of [{ left: 246, top: 0, width: 18, height: 300 }, { left: 491, top: 0, width: 18, height: 300 }]) assert.equal(changed(before, after, gutter), 0);
    const read = await readBack(out);
    for (const p of read) assert.ok(cards.some((card) => within(p.box, card)), `"${p.text}" runs across cards`);
    assert.match(read.map((p) => p.text).join(' '), /copia de cada/);
  });

  it('an identifier the recognizer is unsure of (and misread) stays in its sentence as its own pixels, which keeps its size; a word apart below the cut-off is left alone', async () => {
    const c = createCanvas(760, 170);
    const x = c.getContext('2d');
    x.fillStyle = '#fff';
    x.fillRect(0, 0, 760, 170);
    x.fillStyle = '#000';
    // the code in a bold monospaced face: painted again in the translation's face, it would not look the same
    const before = 'The house is big ';
    x.font = '26px "DejaVu Sans"';
    x.fillText(before, 20, 60);
    const codeLeft = 20 + x.measureText(before).width;
    x.font = '26px "DejaVu Sans Mono Bold"';
    x.fillText('XR-7', codeLeft, 60);
    const codeRight = codeLeft + x.measureText('XR-7').width;
    x.font = '26px "DejaVu Sans"';
    x.fillText(' and the garden is green.', codeRight, 60);
    x.fillText('Draft', 20, 140);
    /** Real OCR, except that the recognizer is unsure of the code in the middle (and reads it wrong) and of the word apart. */
    let apart: RecognizedWord | undefined;
    let code: RecognizedWord | undefined;
    const recognizer: TextRecognizer = {
      async recognize(image: RgbImage, language: string | undefined) {
        const words = await tesseract.recognize(image, language);
        code = words.find((w) => w.left < codeRight && w.left + w.width > codeLeft && w.top < 70);
        apart = words.find((w) => w.text === 'Draft');
        assert.ok(code && apart, words.map((w) => w.text).join(' '));
        code.text = 'XR-1';
        code.confidence = 30;
        apart.confidence = 30;
        return words;
      },
    };
    const input = c.toBuffer('image/png');
    const doc = await createImageFormat('png', recognizer).extract(input, { targetLang: 'es', sourceLang: 'en' });
    assert.deepEqual(doc.segments.map((s) => s.text), ['The house is big XR-1 and the garden is green.']);
    // the engine gets the code as a tag it keeps and translates the words around it
    const sent: string[] = [];
    const engine = async (texts: string[]) => {
      sent.push(...texts);
      return texts.map((t) => t.replace('The house is big', 'La casa es grande').replace('and the garden is green.', 'y el jardín es verde.'));
    };
    const out = await doc.translateWith!(engine);
    assert.ok(!sent.some((t) => t.includes('XR')), sent.join(' | '));
    // painted as one line at about the size it had, not squeezed into the pieces either side of the code
    const read = (await tesseract.recognize(rgbOf(await pixelsOf(out)), 'es')).filter((w) => w.top < 100);
    assert.match(read.map((w) => w.text).join(' '), /casa es grande .* y el jard/u);
    assert.ok(fontSizeOf(read) >= 0.8 * 26, `${fontSizeOf(read)} px`);
    // the code's own pixels, unchanged, between "grande" and "y"
    const [source, output] = [await pixelsOf(input), await pixelsOf(out)];
    const found = findCrop(source, code!, output, 8);
    const [grande, y] = [read.find((w) => w.text === 'grande'), read.find((w) => w.text === 'y')];
    assert.ok(found && grande && y, `code pixels ${JSON.stringify(found)}; read ${read.map((w) => w.text).join(' ')}`);
    assert.ok(found.left >= grande.left + grande.width && found.left + code!.width <= y.left, JSON.stringify({ found, grande, y }));
    assert.equal(changed(source, output, { left: apart!.left, top: apart!.top, width: apart!.width, height: apart!.height }), 0, 'the unsure word apart was painted over');
  });

  it('a screenshot keeps its identifiers and numbers; a vertical stamp stays as it is, unread and unpainted', async () => {
    const image = screenshotWithIdentifiers();
    const input = image.png;
    const doc = await png.extract(input, { targetLang: 'es', sourceLang: 'en' });
    const segments = doc.segments.map((s) => s.text);
    assert.ok(!segments.some((s) => /arXiv|cs\.CL/u.test(s)), `the stamp was read as a line: ${segments.join(' | ')}`);
    const out = await doc.rebuild(segments.map(image.translate));
    const [before, after] = [await pixelsOf(input), await pixelsOf(out)];
    assert.equal(changed(before, after, { left: 835, top: 0, width: 65, height: 300 }), 0, 'the stamp was painted over');
    // each word with digits is still there: read again, or (an unsure word left alone) its pixels untouched
    const tokens = (words: RecognizedWord[]) => words.filter((w) => /\d/u.test(w.text) && w.height < w.width);
    const [sourceTokens, outputTokens] = [tokens(await tesseract.recognize(rgbOf(before), 'en')), tokens(await tesseract.recognize(rgbOf(after), 'es'))];
    assert.ok(sourceTokens.length >= 2, sourceTokens.map((w) => w.text).join(' '));
    for (const t of sourceTokens) {
      const kept = outputTokens.some((w) => w.text === t.text) || changed(before, after, t) === 0;
      assert.ok(kept, `"${t.text}" is gone: ${outputTokens.map((w) => w.text).join(' ')}`);
    }
  });
});

describe('image layout: nothing painted over text that was not replaced', () => {
  it('a table of short cells: each cell its own paragraph, the translation fills its cell, grid and kept cells untouched', async () => {
    const { png: input, translate: engine, rows, cells } = shortCellTable();
    const doc = await png.extract(input, { targetLang: 'es', sourceLang: 'en' });
    assert.deepEqual(doc.segments.map((s) => s.text).sort(), rows.flat().sort());
    const out = await doc.rebuild(doc.segments.map((s) => engine(s.text)));
    const [before, after] = [await pixelsOf(input), await pixelsOf(out)];
    for (const cell of cells) {
      assert.equal(changed(before, after, { left: cell.left - 1, top: cell.top + 2, width: 2, height: cell.height - 4 }), 0, 'a vertical grid line was painted over');
      assert.equal(changed(before, after, { left: cell.left + 2, top: cell.top - 1, width: cell.width - 4, height: 2 }), 0, 'a horizontal grid line was painted over');
    }
    // the cells the engine kept ("No", "Yes") are not touched at all
    for (const k of [2, 5]) assert.equal(changed(before, after, { left: cells[k]!.left + 2, top: cells[k]!.top + 2, width: cells[k]!.width - 4, height: cells[k]!.height - 4 }), 0);
    // "Papeleta:" is wider than "Ballot:" but its cell has room: it is read back whole, not shrunk to a smudge
    const read = await readBack(out);
    const words = read.map((p) => p.text).join(' ');
    assert.match(words, /Papeleta/);
    assert.match(words, /Incompleta/);
  });

  it('a screenshot: a translation far longer than its label never reaches the short word beside it or the row below', async () => {
    const { png: input, translate: engine } = screenshotBesideShortWord();
    const doc = await png.extract(input, { targetLang: 'es', sourceLang: 'en' });
    const segments = doc.segments.map((s) => s.text);
    assert.ok(segments.includes(LONG_LABEL), segments.join(' | '));
    // the engine says far more than fits, and keeps the rest as it was
    const out = await doc.rebuild(segments.map(engine));
    const [before, after] = [await pixelsOf(input), await pixelsOf(out)];
    const kept = (await tesseract.recognize(rgbOf(before), 'en')).filter((w) => w.text === 'la' || /Build|4471|main/u.test(w.text));
    assert.ok(kept.length >= 3, kept.map((w) => w.text).join(' '));
    for (const w of kept) assert.equal(changed(before, after, { left: w.left - 1, top: w.top - 1, width: w.width + 2, height: w.height + 2 }), 0, `"${w.text}" was painted over`);
    // the translation was written where the label was
    assert.ok(changed(before, after, { left: 20, top: 24, width: 150, height: 22 }) > 100);
  });
});
