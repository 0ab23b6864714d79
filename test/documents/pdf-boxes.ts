// Test helper: where a PDF's words are, read by poppler (pdftotext -bbox-layout): words with boxes, grouped in lines
// and blocks as poppler sees them; layout checks compare these before and after translation.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
export interface Word extends Box {
  text: string;
}
export interface Line extends Box {
  words: Word[];
}
export interface Block extends Box {
  lines: Line[];
}

const attrs = (s: string): Box => {
  const n = (k: string) => Number(new RegExp(`${k}="([^"]+)"`).exec(s)![1]);
  return { x0: n('xMin'), y0: n('yMin'), x1: n('xMax'), y1: n('yMax') };
};
const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

/** Blocks of each page (top-down coordinates, points), as pdftotext -bbox-layout reports them. */
export function pdfBoxes(pdf: Buffer): Block[][] {
  const dir = mkdtempSync(join(tmpdir(), 'tolk-bbox-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    const r = spawnSync('pdftotext', ['-bbox-layout', join(dir, 'in.pdf'), '-'], { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`pdftotext failed: ${r.stderr}`);
    return [...r.stdout.matchAll(/<page[^>]*>([\s\S]*?)<\/page>/g)].map((page) =>
      [...page[1]!.matchAll(/<block ([^>]*)>([\s\S]*?)<\/block>/g)].map((block) => ({
        ...attrs(block[1]!),
        lines: [...block[2]!.matchAll(/<line ([^>]*)>([\s\S]*?)<\/line>/g)].map((line) => ({
          ...attrs(line[1]!),
          words: [...line[2]!.matchAll(/<word ([^>]*)>([^<]*)<\/word>/g)].map((w) => ({ ...attrs(w[1]!), text: unescape(w[2]!) })),
        })),
      })),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether two boxes overlap by more than `slack` points each way. */
export function overlap(a: Box, b: Box, slack = 0.5): boolean {
  return a.x0 < b.x1 - slack && b.x0 < a.x1 - slack && a.y0 < b.y1 - slack && b.y0 < a.y1 - slack;
}

/** All lines of a page. */
export const linesOf = (page: Block[]): Line[] => page.flatMap((b) => b.lines);
