// Test helper: pages with the features real PDFs have where translated text used to land on other text or vanish,
// from self-written content: a wiki-style page (two columns, an infobox, links), a table of contents with leaders, a
// paper's first page (superscripted affiliations, a subject-descriptor line), and printer's furniture (a slug line, a
// strip of colour-bar percentages, a vertical archive stamp).
import { readFileSync } from 'node:fs';
import fontkit from '@pdf-lib/fontkit';
import type { Paragraph, PageSpec } from './pdf-builder.js';

const serif = fontkit.create(readFileSync('/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf'));
const widthOf = (text: string, size: number) => (serif.layout(text).advanceWidth / serif.unitsPerEm) * size;

const at = (x: number, y: number, width: number, p: Omit<Paragraph, 'at'>): Paragraph => ({ ...p, at: { x, y, width } });

const HARBOUR =
  'Stillwater is a small harbour town on the northern coast. It was founded in 1642 by fishing families from the islands, and its old quay is still used by the boats that bring the morning catch.';
const HISTORY =
  'The town grew quickly after the railway reached it in 1887. Warehouses were built along the river, and the population rose from 2,300 to more than 11,000 people within thirty years.';
const TODAY =
  'Today most people work in tourism and in the two schools. The summer festival brings visitors from the whole region, and the lighthouse museum is open every day from April to October.';

export const wikiPage: PageSpec = {
  items: [
    at(60, 790, 475, { text: 'Stillwater', font: 'serif', size: 20 }),
    at(60, 755, 300, { text: HARBOUR, size: 10, links: ['harbour town', 'northern coast', 'old quay'] }),
    at(60, 680, 300, { text: HISTORY, size: 10, links: ['railway', 'river'] }),
    // the infobox: labels and values side by side, numbers among them
    at(380, 755, 60, { text: 'Country', font: 'bold', size: 9 }),
    at(445, 755, 90, { text: 'Northland', font: 'sans', size: 9, links: ['Northland'] }),
    at(380, 740, 60, { text: 'Founded', font: 'bold', size: 9 }),
    at(445, 740, 90, { text: '1642', font: 'sans', size: 9 }),
    at(380, 725, 60, { text: 'Area', font: 'bold', size: 9 }),
    at(445, 725, 90, { text: '14.2 km2', font: 'sans', size: 9 }),
    at(380, 710, 60, { text: 'Population', font: 'bold', size: 9 }),
    at(445, 710, 90, { text: '11,482 (2020)', font: 'sans', size: 9 }),
    at(380, 695, 60, { text: 'Time zone', font: 'bold', size: 9 }),
    at(445, 695, 90, { text: 'UTC+1', font: 'sans', size: 9 }),
    // two columns below
    at(60, 600, 230, { text: TODAY, size: 10, justify: true, links: ['lighthouse museum'] }),
    at(305, 600, 230, { text: HISTORY, size: 10, justify: true }),
  ],
};

const CHAPTERS: [string, number][] = [
  ['Preface', 9],
  ['Introduction', 13],
  ['Chapter One: The keepers of the light', 21],
  ['Chapter Two: Boats and the people who build them', 47],
  ['Chapter Three: The railway comes to town', 83],
  ['Chapter Four: Warehouses by the river', 112],
  ['Conclusion', 187],
  ['Notes', 201],
];

/** A table of contents: each entry's title, a run of leader dots and its page number, as three runs on one line. */
export const contentsPage: PageSpec = {
  items: [
    at(60, 780, 475, { text: 'Contents', font: 'bold', size: 16 }),
    ...CHAPTERS.flatMap(([title, page], n): Paragraph[] => {
      const y = 740 - n * 22;
      const end = 60 + widthOf(title, 11) + 6;
      const dots = '. '.repeat(Math.max(3, Math.floor((505 - end) / widthOf('. ', 11)))).trim();
      return [
        at(60, y, 440, { text: title, size: 11 }),
        at(end, y, 520 - end, { text: dots, size: 11 }),
        at(515, y, 30, { text: String(page), size: 11 }),
      ];
    }),
  ],
};

export const paperPage: PageSpec = {
  items: [
    at(60, 790, 475, { text: 'Fast tracing of small loops in harbour simulations', font: 'bold', size: 15 }),
    at(60, 760, 475, {
      text: 'Anna Smith, John Brown and Maria Garcia',
      font: 'sans',
      size: 11,
      superscripts: { Smith: '1', Brown: '2', Garcia: '1,2' },
    }),
    at(60, 742, 475, { text: '1 School of the River, Stillwater 4410, Northland', font: 'sans', size: 9 }),
    at(60, 730, 475, { text: '2 Institute of the Coast, Harbour Road 17, Eastport', font: 'sans', size: 9 }),
    at(60, 700, 475, { text: 'Abstract', font: 'bold', size: 11 }),
    at(60, 684, 475, {
      text: 'We describe a method that records the loops a program runs most often and compiles them in 3 to 5 milliseconds. On 26 benchmark programs it runs 2.4 times faster than the interpreter, and it needs less than 200 kilobytes of memory.',
      size: 10,
      justify: true,
    }),
    at(60, 630, 475, {
      text: 'Categories and Subject Descriptors D.3.4 [Programming Languages]: Processors - incremental compilers, code generation.',
      size: 9,
    }),
    at(60, 606, 475, { text: 'General Terms Design, Experimentation, Measurement, Performance.', size: 9 }),
  ],
};

/** Furniture outside the text: a slug line, a strip of percentages under a colour bar, a vertical stamp. */
export const furniturePage: PageSpec = {
  items: [
    at(80, 780, 435, { text: TODAY, size: 11 }),
    at(80, 700, 435, { text: HARBOUR, size: 11 }),
    at(80, 30, 435, { text: 'stillwater_final.indd 10     3/1/04 1:42:07 PM', font: 'sans', size: 6 }),
    ...[0, 5, 10, 25, 50, 75, 95, 100].map((n, k): Paragraph => at(80 + k * 30, 15, 25, { text: String(n), font: 'sans', size: 5 })),
    at(30, 300, 400, { text: 'arXiv:2101.01234v2 [cs.CL] 4 Jan 2021', font: 'serif', size: 14, rotate: 90 }),
  ],
};

/** English paragraphs of a scanned page. */
export const SCANNED_TEXT = [
  'The Harbour Report',
  'The old quay was repaired in the spring. The boats of the fishing families can use it again, and the town council thanks the workers for their care.',
  'The museum of the lighthouse will open a new room in the summer. It shows the life of the keepers and their families on the island.',
];

/** A scanned page: one picture of printed text covering the page, no text layer (rendered at 144 dpi). */
export async function scannedPage(): Promise<PageSpec> {
  const { createCanvas, GlobalFonts } = await import('@napi-rs/canvas');
  GlobalFonts.registerFromPath('/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf', 'DejaVu Serif');
  const scale = 2;
  const canvas = createCanvas(595 * scale, 842 * scale);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fbfaf5'; // paper
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#111111';
  let y = 80 * scale;
  SCANNED_TEXT.forEach((text, n) => {
    const px = (n === 0 ? 18 : 12) * scale;
    ctx.font = `${px}px "DejaVu Serif"`;
    let line = '';
    for (const word of text.split(' ')) {
      if (line !== '' && ctx.measureText(`${line} ${word}`).width > 470 * scale) {
        ctx.fillText(line, 60 * scale, y);
        y += px * 1.4;
        line = word;
      } else line = line === '' ? word : `${line} ${word}`;
    }
    ctx.fillText(line, 60 * scale, y);
    y += px * 2.4;
  });
  return { items: [], pictures: [{ png: await canvas.encode('png'), x: 0, y: 0, width: 595, height: 842 }] };
}
