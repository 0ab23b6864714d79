// Test helper: the layout checker. Each page's text items as pdf.js reads them (boxes from their transforms, turned
// text included), the pairs of items drawn over one another, and the number tokens poppler still finds: a
// translation is judged by what it adds (overlaps the source did not have) and what it loses (numbers).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { layoutPage } from '../../src/documents/formats/pdf/layout.js';
import { readPageTexts } from '../../src/documents/formats/pdf/page-text.js';
import { pdftotext } from './pdf-inspect.js';

export interface ItemBox {
  text: string;
  /** Direction of the text, degrees counter-clockwise (0: horizontal). */
  angle?: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Of the font size, how far a glyph box reaches below the baseline and above it. */
const DESCENT = 0.2;
const ASCENT = 0.8;

/** A page's visible area (its CropBox: x0, y0, x1, y1 in user space) and its non-blank text items. */
export interface PageBoxes {
  view: number[];
  items: ItemBox[];
}

/** Every page's non-blank text items with their page-aligned boxes (user space, y up). */
export async function textBoxes(pdf: Buffer): Promise<ItemBox[][]> {
  return (await pageBoxes(pdf)).map((p) => p.items);
}

/** Every page's visible area and text items. */
export async function pageBoxes(pdf: Buffer): Promise<PageBoxes[]> {
  const doc = await getDocument({ data: new Uint8Array(pdf), verbosity: 0, isEvalSupported: false, disableFontFace: true }).promise;
  try {
    const pages: PageBoxes[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const boxes: ItemBox[] = [];
      for (const item of content.items) {
        if (!('str' in item) || item.str.trim() === '') continue;
        const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = item.transform as number[];
        const size = Math.hypot(c, d);
        const along = Math.hypot(a, b) || 1;
        // corners of the glyph run in its own frame, then on the page
        const dir = [a / along, b / along];
        const up = [-dir[1]!, dir[0]!];
        const xs: number[] = [];
        const ys: number[] = [];
        for (const t of [0, item.width]) {
          for (const s of [-DESCENT * size, ASCENT * size]) {
            xs.push(e + t * dir[0]! + s * up[0]!);
            ys.push(f + t * dir[1]! + s * up[1]!);
          }
        }
        boxes.push({ text: item.str, angle: Math.round((Math.atan2(b, a) * 180) / Math.PI), x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) });
      }
      pages.push({ view: [...page.view], items: boxes });
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}

/**
 * Pairs of items drawn over one another: they share more than a point across and more than a third of the smaller
 * one's height (neighbours on a line touch, a superscript touches its word, lines of a paragraph do not meet).
 */
export function overlappingPairs(items: readonly ItemBox[]): [ItemBox, ItemBox][] {
  const pairs: [ItemBox, ItemBox][] = [];
  for (let i = 0; i < items.length; i++) {
    const a = items[i]!;
    for (let j = i + 1; j < items.length; j++) {
      const b = items[j]!;
      const across = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
      const down = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
      if (across > 1 && down > Math.min(a.y1 - a.y0, b.y1 - b.y0) / 3) pairs.push([a, b]);
    }
  }
  return pairs;
}

/** Number tokens (runs of digits) of a text, counted. */
export function numberTokens(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of text.match(/\p{Nd}+/gu) ?? []) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

/** Items reaching more than a point outside the page's visible area (its CropBox). */
export function offPage(items: readonly ItemBox[], view: readonly number[]): ItemBox[] {
  const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = view;
  return items.filter((i) => i.x0 < x0 - 1 || i.y0 < y0 - 1 || i.x1 > x1 + 1 || i.y1 > y1 + 1);
}

/** Letters and digits of a page's text items. */
export const letterCount = (items: readonly ItemBox[]) => items.reduce((n, i) => n + (i.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0), 0);

export interface LayoutReport {
  /** Per page: overlapping pairs in the output beyond those of the source. */
  newOverlaps: number[];
  /** Per page: text items outside the visible area in the output beyond those of the source. */
  newOffPage: number[];
  /** Per page: letters and digits in the source's text items and in the output's (text lost shows as far fewer). */
  letters: { source: number; output: number }[];
  /** Examples of the output's overlapping pairs, for messages. */
  examples: string[];
  /** Number tokens of the source (poppler's text) and how many of them the output still has. */
  sourceNumbers: number;
  keptNumbers: number;
  /** Per page: the source's indented lines and where the output starts them. */
  indents: IndentFigures[];
}

/** Compares a translated PDF with its source. */
export async function checkLayout(source: Buffer, output: Buffer): Promise<LayoutReport> {
  const [before, after] = [await pageBoxes(source), await pageBoxes(output)];
  const examples: string[] = [];
  const newOverlaps = after.map(({ items }, n) => {
    const pairs = overlappingPairs(items);
    examples.push(...pairs.slice(0, 5).map(([a, b]) => `p${n + 1}: "${a.text}" × "${b.text}"`));
    return Math.max(0, pairs.length - overlappingPairs(before[n]?.items ?? []).length);
  });
  const newOffPage = after.map(({ items, view }, n) => {
    const off = offPage(items, view);
    examples.push(...off.slice(0, 3).map((i) => `p${n + 1}: "${i.text}" off the page`));
    const was = before[n] ? offPage(before[n].items, before[n].view).length : 0;
    return Math.max(0, off.length - was);
  });
  const letters = after.map(({ items }, n) => ({ source: letterCount(before[n]?.items ?? []), output: letterCount(items) }));
  const [src, out] = [numberTokens(pdftotext(source) ?? ''), numberTokens(pdftotext(output) ?? '')];
  let sourceNumbers = 0;
  let keptNumbers = 0;
  for (const [token, count] of src) {
    sourceNumbers += count;
    keptNumbers += Math.min(count, out.get(token) ?? 0);
  }
  return { newOverlaps, newOffPage, letters, examples, sourceNumbers, keptNumbers, indents: await indentedStarts(source, after) };
}

/** A line of a page's text as drawn: where it starts, its baseline and size (horizontal text only). */
interface LineStart {
  x: number;
  base: number;
  size: number;
}

/** Where a page's horizontal lines start: items on one baseline, each close after the one before, make a line. */
export function lineStarts(items: readonly ItemBox[]): LineStart[] {
  const flat = items
    .filter((i) => (i.angle ?? 0) === 0)
    .map((i) => ({ ...i, size: i.y1 - i.y0, base: i.y0 + DESCENT * (i.y1 - i.y0) }))
    .sort((a, b) => b.base - a.base);
  const starts: LineStart[] = [];
  for (let i = 0; i < flat.length; ) {
    let j = i + 1;
    while (j < flat.length && flat[i]!.base - flat[j]!.base < 0.3 * flat[i]!.size) j++;
    const row = flat.slice(i, j).sort((a, b) => a.x0 - b.x0);
    let end = Number.NEGATIVE_INFINITY;
    for (const item of row) {
      if (item.x0 - end > 1.5 * item.size) starts.push({ x: item.x0, base: item.base, size: item.size });
      end = Math.max(end, item.x1);
    }
    i = j;
  }
  return starts;
}

/** Per page: the source's lines that start right of their paragraph's left edge, and where the output starts them. */
export interface IndentFigures {
  /** Lines of translated paragraphs (two lines or more, horizontal, aligned left or justified) starting more than a point right of its left. */
  indented: number;
  /** Of them, those the output starts at the same place (± 1 pt, on a baseline within half a line of theirs). */
  kept: number;
  /** And those it starts at the paragraph's left edge instead. */
  atLeft: number;
}

/**
 * An indented first line, a hanging indent, a line after a mark that stays, a line beside a float: a reflowed
 * paragraph should start each line where the source's started. Paragraphs are the PDF layout's own blocks.
 */
export async function indentedStarts(source: Buffer, output: readonly PageBoxes[]): Promise<IndentFigures[]> {
  const pages = await readPageTexts(source, { maxPages: 10_000, maxCharacters: 100_000_000 });
  return pages.map((page, n) => {
    const drawn = lineStarts(output[n]?.items ?? []);
    const at = (x: number, base: number, size: number) => drawn.some((d) => Math.abs(d.x - x) <= 1 && Math.abs(d.base - base) <= 0.5 * size);
    const figures = { indented: 0, kept: 0, atLeft: 0 };
    for (const block of layoutPage(page.pieces, page.view)) {
      // (centred and right-aligned lines start where their width puts them)
      if (!block.translatable || block.lines.length < 2 || Math.abs(block.angle) > 1e-3 || block.align === 'center' || block.align === 'right') continue;
      for (const line of block.lines) {
        if (line.u0 <= block.left + 1) continue;
        figures.indented++;
        if (at(line.u0, line.v, line.size)) figures.kept++;
        else if (at(block.left, line.v, line.size)) figures.atLeft++;
      }
    }
    return figures;
  });
}

/** An engine that makes text about a fifth longer, as Spanish is, and leaves names (capitalised words) alone. */
export const longer = (s: string) => s.replace(/\b\p{Ll}{4,}\b/gu, (w) => `${w}os`).replace(/\band\b/gu, 'y');

/**
 * Real en→es translation by Apertium's command line (installed with its en-es data), the texts apart by blank lines:
 * across a single line break Apertium reorders words as within one sentence ("The big\ndog" → "El perro\ngrande").
 */
export function apertiumEnEs(texts: readonly string[]): string[] {
  // the apertium script reads a file more reliably than a pipe from a child process
  const dir = mkdtempSync(join(tmpdir(), 'tolk-apertium-'));
  try {
    writeFileSync(join(dir, 'in.txt'), texts.map((t) => t.replace(/\s+/gu, ' ').trim() || '.').join('\n\n'));
    const r = spawnSync('apertium', ['-u', 'eng-spa', join(dir, 'in.txt')], { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0 || r.stdout.trim() === '') throw new Error(`apertium failed: ${r.stderr}`);
    const out = r.stdout.trim().split(/\n[^\S\n]*\n/u);
    if (out.length !== texts.length) throw new Error(`apertium gave ${out.length} texts for ${texts.length}`);
    return texts.map((t, n) => (t.trim() === '' ? t : out[n]!.trim() || t));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Common function words of English and of Spanish, to tell which language a page's OCR reads as. */
const ENGLISH = new Set(['the', 'and', 'of', 'to', 'in', 'is', 'for', 'their', 'will', 'it', 'was', 'with']);
const SPANISH = new Set(['el', 'la', 'los', 'las', 'de', 'del', 'y', 'en', 'es', 'para', 'su', 'sus', 'con', 'una', 'un']);

export function functionWords(text: string): { english: number; spanish: number } {
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  return { english: words.filter((w) => ENGLISH.has(w)).length, spanish: words.filter((w) => SPANISH.has(w)).length };
}
