// PDF layout through translation, judged by where poppler finds the words before and after (pdftotext -bbox-layout):
// justified paragraphs stay justified at their size, author lines with superscripts and paragraphs with links do not
// overlap anything, link underlines do not stay under other words, a table keeps its columns and rows.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pdfFormat } from '../../src/documents/formats/pdf.js';
import { stripText } from '../../src/documents/formats/pdf/content-stream.js';
import { buildPdf, type PageSpec } from './pdf-builder.js';
import { linesOf, overlap, pdfBoxes, type Line } from './pdf-boxes.js';
import { longer } from './pdf-layout-check.js';


async function translated(spec: PageSpec) {
  const src = await buildPdf([spec]);
  const doc = await pdfFormat.extract(src, { targetLang: 'es' });
  const out = await doc.rebuild(doc.segments.map((s) => longer(s.text)));
  return { segments: doc.segments.map((s) => s.text), before: pdfBoxes(src)[0]!, after: pdfBoxes(out)[0]!, out };
}

const height = (l: Line) => l.y1 - l.y0;
const text = (lines: Line[]) => lines.map((l) => l.words.map((w) => w.text).join(' ')).join(' ');

function assertNoOverlap(lines: Line[]): void {
  const words = lines.flatMap((l) => l.words);
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j < words.length; j++) assert.ok(!overlap(words[i]!, words[j]!), `"${words[i]!.text}" overlaps "${words[j]!.text}"`);
  }
}

const RIVER =
  'The old house stands next to the river. My grandmother lived there for many years, and every summer the whole family came to visit her in the small village by the water.';

describe('PDF layout through translation', () => {
  it('a justified paragraph stays justified, at its size', async () => {
    const { after, before } = await translated({ items: [{ text: RIVER, justify: true }, { text: RIVER, justify: true }] });
    const [inLines, outLines] = [linesOf(before), linesOf(after)];
    const left = Math.min(...inLines.map((l) => l.x0));
    const right = Math.max(...inLines.map((l) => l.x1));
    // each paragraph: every line but its last reaches both margins
    const paragraphs = (lines: Line[]) => {
      const out: Line[][] = [[]];
      lines.forEach((l, n) => {
        out[out.length - 1]!.push(l);
        if (l.x1 < right - 5 && n < lines.length - 1) out.push([]);
      });
      return out.filter((p) => p.length > 0);
    };
    const outParagraphs = paragraphs(outLines);
    assert.equal(outParagraphs.length, 2, text(outLines));
    for (const p of outParagraphs) {
      assert.ok(p.length >= 3, text(p));
      for (const l of p.slice(0, -1)) assert.ok(Math.abs(l.x0 - left) < 1 && Math.abs(l.x1 - right) < 1, `not justified: ${l.x0}–${l.x1} vs ${left}–${right}`);
    }
    const size = (lines: Line[]) => lines.reduce((a, l) => a + height(l), 0) / lines.length;
    assert.ok(Math.abs(size(outLines) - size(inLines)) <= 0.05 * size(inLines), `line height ${size(outLines)} vs ${size(inLines)}`);
    assert.ok(text(outLines).includes('grandmotheros'));
  });

  it('an author line with superscripts and the affiliations under it do not overlap', async () => {
    const { after, segments } = await translated({
      items: [
        { text: 'Anna Smith, John Brown and Maria Garcia', font: 'sans', size: 12, superscripts: { Smith: '1', Brown: '2', Garcia: '1,2' } },
        { text: '1 School of the River, 2 House of the Village', font: 'sans', size: 9 },
      ],
    });
    assert.deepEqual(segments, ['Anna Smith,1 John Brown2 and Maria Garcia1,2', '1 School of the River, 2 House of the Village']);
    assertNoOverlap(linesOf(after));
    assert.match(text(linesOf(after)), /Garcia ?1,2/);
  });

  it('a paragraph with links is one segment; its lines and the next paragraph do not overlap; no underline left under other words', async () => {
    const withLinks = 'More information about the house is on the web page of the village and in the old town book of the valley, which the school keeps.';
    const { after, segments, out } = await translated({ items: [{ text: withLinks, links: ['web page', 'town book'] }, { text: RIVER }] });
    assert.deepEqual(segments, [withLinks, RIVER]);
    assertNoOverlap(linesOf(after));
    const underlines = await underlinesOf(out);
    const words = linesOf(after).flatMap((l) => l.words);
    for (const u of underlines) {
      const above = words.filter((w) => w.x1 > u.x0 + 0.5 && w.x0 < u.x1 - 0.5 && u.y >= w.y0 && u.y - w.y1 < 4);
      assert.ok(above.every((w) => /^(web|page|town|book)/u.test(w.text)), `underline at ${u.x0}–${u.x1} under ${above.map((w) => w.text).join(' ')}`);
    }
  });

  it('underlines in the zones go with the text (through the transformation matrix); rules, borders and curves stay', () => {
    const content = [
      'q 1 0 0 1 100 200 cm 0 -2 50 0.8 re f Q', // an underline bar under a word at (100, 200)
      '10 10 m 500 10 l S', // a rule across the page
      '95 190 m 160 190 l S', // a line below the zone: a border
      '100 199 m 120 199.5 130 199 150 199 c S', // a curve in the zone
      '100 198 40 1 re W n', // a thin clipping path in the zone
      'BT /F1 12 Tf 100 200 Td (word) Tj ET',
    ].join('\n');
    const zones = [{ x0: 95, x1: 160, y0: 196, y1: 201 }];
    const out = Buffer.from(stripText(Buffer.from(content), zones).data!).toString('latin1');
    assert.doesNotMatch(out, /re f/);
    assert.match(out, /10 10 m 500 10 l S/);
    assert.match(out, /95 190 m 160 190 l S/);
    assert.match(out, / c S/);
    assert.match(out, /100 198 40 1 re W n/);
    assert.doesNotMatch(out, /\(word\)/);
    assert.match(out, /q 1 0 0 1 100 200 cm\s+Q/);
  });

  it('text in a kept font goes where a picture of its text covers it (a region read by recognition), and stays elsewhere', () => {
    const content = ['BT /F9 10 Tf 100 500 Td (inline) Tj 0 -2 Td (sub) Tj ET', 'BT /F9 10 Tf 100 300 Td (formula) Tj ET', 'BT /F1 10 Tf 100 300 Td (word) Tj ET'].join('\n');
    const cleared = [{ x0: 90, x1: 400, y0: 480, y1: 515 }];
    const out = Buffer.from(stripText(Buffer.from(content), [], new Set(['F9']), [0, 0, 612, 792], cleared).data!).toString('latin1');
    assert.doesNotMatch(out, /\((inline|sub|word)\)/);
    assert.match(out, /\(formula\) Tj/);
  });

  it('a simple table keeps its columns and rows', async () => {
    const rows = [['Fruit', 'Colour', 'Season'], ['Apples', 'Red', 'Autumn'], ['Lemons', 'Yellow', 'Winter'], ['Green pears', 'Green', 'Summer']];
    const { after, before, segments } = await translated({ items: [{ rows, columnWidth: 140, rowHeight: 13, borders: false }] });
    assert.deepEqual(segments, rows.flat());
    const cells = (lines: Line[]) => lines.map((l) => `${Math.round(l.x0)},${Math.round(l.y0)}`).sort();
    assert.deepEqual(cells(linesOf(after)), cells(linesOf(before)));
  });
});

/** Horizontal strokes and thin filled bars (underlines) painted on the page, top-down coordinates. */
async function underlinesOf(pdf: Buffer): Promise<{ x0: number; x1: number; y: number }[]> {
  const { getDocument, OPS } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await getDocument({ data: new Uint8Array(pdf), verbosity: 0, isEvalSupported: false, disableFontFace: true }).promise;
  try {
    const page = await doc.getPage(1);
    const height = page.view[3]!;
    const ops = await page.getOperatorList();
    const found: { x0: number; x1: number; y: number }[] = [];
    ops.fnArray.forEach((f, k) => {
      if (f !== OPS.constructPath) return;
      // pdf.js gives each path's bounding box [minX, minY, maxX, maxY] as the last argument
      const args = ops.argsArray[k] as unknown[];
      const box = args[args.length - 1] as ArrayLike<number> | null;
      if (!box || box.length < 4) return;
      const [x0, y0, x1, y1] = [box[0]!, box[1]!, box[2]!, box[3]!];
      if (x1 - x0 > 3 && y1 - y0 < 2) found.push({ x0, x1, y: height - (y0 + y1) / 2 });
    });
    return found;
  } finally {
    await doc.destroy();
  }
}
