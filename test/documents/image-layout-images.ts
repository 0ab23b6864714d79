// Self-made images with the features that went wrong in real screenshots and scans (issue 34), each with the
// translation an engine would give: shared by test/documents/image-layout.test.ts and bench/image-layout.ts.
import { GlobalFonts, createCanvas, type Canvas } from '@napi-rs/canvas';
import type { Box } from '../../src/documents/formats/image/paragraphs.js';

GlobalFonts.registerFromPath('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', 'DejaVu Sans');

export interface LayoutImage {
  png: Buffer;
  /** The engine: a segment's translation (a segment it does not know comes back as it was). */
  translate(segment: string): string;
}

/** A UI row: a label whose translation is far longer than it, a short word beside it, a build line below. */
export const LONG_LABEL = 'Save the file';
export function screenshotBesideShortWord(): LayoutImage {
  const c = createCanvas(560, 130);
  const x = c.getContext('2d');
  x.fillStyle = '#ffffff';
  x.fillRect(0, 0, 560, 130);
  x.fillStyle = '#202020';
  x.font = '24px "DejaVu Sans"';
  x.fillText(LONG_LABEL, 20, 44);
  x.fillText('la', 230, 44);
  x.fillText('Build 4471 on main', 20, 92);
  const long = 'Guarde los cambios del documento actual en el servidor, y nota la hora exacta de la última modificación';
  return { png: c.toBuffer('image/png'), translate: (s) => (s === LONG_LABEL ? long : s) };
}

/** Where and how a test table's cells are drawn: `inset`/`baseline` place each cell's text from its top left corner. */
export interface CellTableLayout {
  left: number;
  top: number;
  widths: number[];
  height: number;
  font: string;
  inset: number;
  baseline: number;
}

/** A canvas of cells with black borders on white, each cell's text inside it; `cells` are their boxes, row by row. */
export function cellTableCanvas(width: number, height: number, rows: string[][], layout: CellTableLayout): { canvas: Canvas; cells: Box[] } {
  const canvas = createCanvas(width, height);
  const x = canvas.getContext('2d');
  x.fillStyle = '#fff';
  x.fillRect(0, 0, width, height);
  x.strokeStyle = '#000';
  x.lineWidth = 2;
  x.fillStyle = '#000';
  x.font = layout.font;
  const cells: Box[] = [];
  rows.forEach((r, i) => {
    let left = layout.left;
    const top = layout.top + i * layout.height;
    r.forEach((cell, j) => {
      const cellWidth = layout.widths[j]!;
      cells.push({ left, top, width: cellWidth, height: layout.height });
      x.strokeRect(left, top, cellWidth, layout.height);
      x.fillText(cell, left + layout.inset, top + layout.baseline);
      left += cellWidth;
    });
  });
  return { canvas, cells };
}

/** A table of short cells, two of which the engine keeps ("No", "Yes"); `cells` are the cells' boxes, row by row. */
export function shortCellTable(): LayoutImage & { rows: string[][]; cells: Box[] } {
  const rows = [['Ballot:', 'Incomplete', 'No'], ['Vote', 'Counted', 'Yes']];
  const layout = { left: 10, top: 10, widths: [112, 150, 60], height: 44, font: '20px "DejaVu Sans"', inset: 5, baseline: 29 };
  const { canvas, cells } = cellTableCanvas(360, 110, rows, layout);
  const spanish: Record<string, string> = { 'Ballot:': 'Papeleta:', Incomplete: 'Incompleta', Vote: 'Voto', Counted: 'Contado' };
  return { png: canvas.toBuffer('image/png'), translate: (s) => spanish[s] ?? s, rows, cells };
}

/** A screenshot with a commit hash, a build number and an archive stamp up the right margin (left unread). */
export function screenshotWithIdentifiers(): LayoutImage {
  const c = createCanvas(900, 300);
  const x = c.getContext('2d');
  x.fillStyle = '#ffffff';
  x.fillRect(0, 0, 900, 300);
  x.fillStyle = '#222222';
  x.font = '22px "DejaVu Sans"';
  x.fillText('Commit 5bda1dd6 fixed the crash in the parser.', 30, 60);
  x.fillText('Build 4471 passed on main, and the release notes are ready.', 30, 110);
  x.save();
  x.translate(860, 280);
  x.rotate(-Math.PI / 2);
  x.font = '16px "DejaVu Sans"';
  x.fillText('arXiv:2101.01234v2 [cs.CL] 4 Jan 2021', 0, 0);
  x.restore();
  // an engine that lengthens words (as Spanish does) and leaves codes and numbers alone
  return { png: c.toBuffer('image/png'), translate: (s) => s.replace(/\b\p{Ll}{4,}\b/gu, (w) => `${w}os`) };
}
