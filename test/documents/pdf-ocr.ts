// Test helper: what a reader sees on a rendered PDF page (pdftoppm at 200 dpi, then Tesseract), each child under a
// deadline; for text kept as it was in fonts that cannot be read back.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** OCR of an image file's bytes (Tesseract, English). */
export function ocrImage(png: Buffer): string {
  const ocr = spawnSync('tesseract', ['stdin', '-', '-l', 'eng'], { input: png, encoding: 'utf8', timeout: 120_000 });
  assert.equal(ocr.status, 0, ocr.stderr);
  return ocr.stdout;
}

/** OCR of one page of a PDF rendered in grey at `dpi`. */
export function ocrPage(pdf: Buffer, page: number, dpi = 200): string {
  const dir = mkdtempSync(join(tmpdir(), 'tolk-ocr-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    const render = spawnSync('pdftoppm', ['-r', String(dpi), '-gray', '-png', '-f', String(page), '-l', String(page), join(dir, 'in.pdf'), join(dir, 'p')], { timeout: 60_000 });
    assert.equal(render.status, 0, String(render.stderr));
    const png = readdirSync(dir).find((f) => f.endsWith('.png'))!;
    const ocr = spawnSync('tesseract', [join(dir, png), '-', '-l', 'eng'], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(ocr.status, 0, ocr.stderr);
    return ocr.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
