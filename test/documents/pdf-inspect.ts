// Test helper: what a PDF shows, read independently of the format (pdf.js with images, and poppler's pdftotext).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface InspectedPage {
  size: [number, number];
  text: string;
  /** Image XObjects and inline images painted. */
  images: number;
  /** Path-painting operations (rules, table borders, shapes). */
  paths: number;
  /** Fill colours ("#rrggbb") text is shown in. */
  textColors: Set<string>;
}

export async function inspectPdf(bytes: Buffer): Promise<InspectedPage[]> {
  const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0, isEvalSupported: false, disableFontFace: true }).promise;
  try {
    const pages: InspectedPage[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const text = content.items.map((i) => ('str' in i ? i.str + (i.hasEOL ? '\n' : '') : '')).join('');
      const ops = await page.getOperatorList();
      const count = (...codes: number[]) => ops.fnArray.filter((f) => codes.includes(f)).length;
      const textColors = new Set<string>();
      let color = '#000000';
      const saved: string[] = [];
      ops.fnArray.forEach((f, k) => {
        if (f === OPS.save) saved.push(color);
        else if (f === OPS.restore) color = saved.pop() ?? color;
        else if (f === OPS.setFillRGBColor) color = String((ops.argsArray[k] as unknown[])[0]);
        else if (f === OPS.showText || f === OPS.showSpacedText) textColors.add(color);
      });
      pages.push({
        textColors,
        size: [page.view[2]! - page.view[0]!, page.view[3]! - page.view[1]!],
        text,
        images: count(OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageMaskXObject),
        paths: count(OPS.constructPath),
      });
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}

/** The document's text as poppler extracts it, or undefined when pdftotext (poppler-utils) is not installed. */
export function pdftotext(bytes: Buffer): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'tolk-pdf-'));
  try {
    const file = join(dir, 'in.pdf');
    writeFileSync(file, bytes);
    const r = spawnSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
    if (r.error) return undefined;
    if (r.status !== 0) throw new Error(`pdftotext failed: ${r.stderr}`);
    return r.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Text with line breaks and runs of spaces collapsed, for substring checks across wrapped lines. */
export const flat = (s: string) => s.replace(/\s+/gu, ' ');
