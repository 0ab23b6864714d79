// Each line of a reflowed paragraph starts where the source's line started (issue 43): real pages of the corpus
// (test/fixtures/real-documents, see its SOURCES.md) translated en→es by Apertium. R-intro's p. 14 indents every
// paragraph's first line; booktabs' p. 3 has a numbered item whose further lines hang under its text.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pdfFormat } from '../../src/documents/formats/pdf.js';
import { apertiumEnEs, checkLayout } from './pdf-layout-check.js';
import { CORPUS_DIR } from './real-documents.js';

async function translated(file: string) {
  const source = readFileSync(CORPUS_DIR + file);
  const doc = await pdfFormat.extract(source, { sourceLang: 'en', targetLang: 'es' });
  const output = await doc.rebuild(apertiumEnEs(doc.segments.map((s) => s.text)));
  return checkLayout(source, output);
}

describe('PDF paragraphs keep each line’s own start through translation', () => {
  for (const [file, page] of [['r-intro.pdf', 3], ['booktabs.pdf', 1]] as const) {
    it(`${file} p${page}: indented and hanging lines start where they did, over nothing`, async () => {
      const report = await translated(file);
      const indents = report.indents[page - 1]!;
      assert.ok(indents.indented >= 4, `the page has indented lines: ${JSON.stringify(indents)}`);
      assert.equal(indents.atLeft, 0, `lines moved to their paragraph's left edge: ${JSON.stringify(indents)}`);
      assert.equal(indents.kept, indents.indented, `indented lines started in place: ${JSON.stringify(indents)}`);
      assert.equal(report.newOverlaps[page - 1], 0, report.examples.join('; '));
    });
  }
});
