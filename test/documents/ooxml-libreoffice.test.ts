// The translated packages are valid for a real office suite: LibreOffice opens each one and exports its text, which
// holds the translated words (and the Word watermark). Skipped, saying so, only where soffice is not installed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { docxFormat, pptxFormat, xlsxFormat, WATERMARK_TEXT } from '../../src/documents/formats/ooxml.js';
import type { DocumentFormat } from '../../src/documents/formats/format.js';

const FIXTURES = new URL('../../../test/fixtures/documents/', import.meta.url);
const hasSoffice = spawnSync('soffice', ['--version'], { stdio: 'ignore' }).status === 0;
const skip = hasSoffice ? false : 'LibreOffice (soffice) is not installed: translated packages not validated';
const upper = async (texts: string[]) => texts.map((t) => t.toUpperCase());

/** Translates a fixture, converts the result with soffice (its own profile) and returns the exported text. */
async function convert(format: DocumentFormat, file: string, to: string, ext: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tolk-lo-'));
  try {
    const doc = await format.extract(readFileSync(new URL(file, FIXTURES)), { targetLang: 'es', watermark: true });
    await writeFile(join(dir, `translated.${format.id}`), await doc.translateWith!(upper));
    await promisify(execFile)(
      'soffice',
      [`-env:UserInstallation=file://${join(dir, 'profile')}`, '--headless', '--convert-to', to, '--outdir', join(dir, 'out'), join(dir, `translated.${format.id}`)],
      { timeout: 120_000 },
    );
    return await readFile(join(dir, 'out', `translated.${ext}`), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('LibreOffice opens the translated packages', { skip }, () => {
  it('docx → txt', async () => {
    const text = await convert(docxFormat, 'sample.docx', 'txt:Text', 'txt');
    for (const line of ['THE CAT SLEEPS IN THE BIG RED HOUSE EVERY DAY.', 'READ THE NEW BOOK ABOUT THE SEA.', 'THE WHITE DOG', 'TOTAL:\t42 APPLES', WATERMARK_TEXT]) {
      assert.ok(text.includes(line), `${line} in ${text}`);
    }
    assert.ok(!/The cat sleeps/.test(text));
  });

  it('xlsx → csv', async () => {
    const csv = await convert(xlsxFormat, 'sample.xlsx', 'csv', 'csv');
    assert.deepEqual(csv.trim().split(/\r?\n/), ['THE RED APPLE,12', 'THE YELLOW HOUSE,30', 'THE RED APPLE,42']);
  });

  it('pptx → flat ODF presentation', async () => {
    const xml = await convert(pptxFormat, 'sample.pptx', 'fodp', 'fodp');
    const text = [...xml.matchAll(/<text:p[^>]*>(.*?)<\/text:p>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, '')).join('\n');
    for (const line of ['THE GREEN GARDEN', 'THE CHILDREN PLAY IN THE SMALL GREEN GARDEN.', 'MY SISTER READS A BOOK.', 'SPEAK SLOWLY ABOUT THE GARDEN.']) {
      assert.ok(text.includes(line), `${line} in ${text}`);
    }
    assert.ok(!text.includes(WATERMARK_TEXT));
  });
});
