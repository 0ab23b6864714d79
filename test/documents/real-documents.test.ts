// Real third-party PDFs and images (test/fixtures/real-documents, sources and licences in its SOURCES.md) translated
// en→es by Apertium and measured by the layout checker. Asserts issue 43's done-means where they already hold (number
// tokens kept, pages with body text read as Spanish, no text lost) and, where they do not yet, today's figures as
// ceilings so that nothing gets worse; prints every file's figures (the table docs/benchmarks.md takes).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPdfFormat } from '../../src/documents/formats/pdf.js';
import { createImageFormat } from '../../src/documents/formats/image/image-format.js';
import { TesseractRecognizer } from '../../src/documents/ocr/tesseract-recognizer.js';
import { BODY_WORDS, corpusFiles, figuresTable, measureFile, readsSpanish, type FileFigures } from './real-documents.js';

const tesseract = new TesseractRecognizer();
const formats = { pdf: createPdfFormat(tesseract), png: createImageFormat('png', tesseract), jpeg: createImageFormat('jpeg', tesseract) };

/**
 * Today's new overlapping pairs and text off the page, per page: ceilings (issue 43's target is at most one per page);
 * and English function words in the OCR of the output page, a few above today's (elsarticle p2's math paragraphs were
 * 53 while the recognizer's misread subscripts kept them English).
 */
const CEILINGS: Record<string, { overlaps: number[]; offPage?: number[]; english: number[] }> = {
  'acmart-sample-sigconf.pdf': { overlaps: [0, 0], english: [3, 3] },
  'asymptote.pdf': { overlaps: [0], english: [3] },
  'booktabs.pdf': { overlaps: [0, 0], english: [3, 3] },
  'elsarticle-elstest-5p.pdf': { overlaps: [0, 0], english: [4, 8] },
  'ieeetran-testflow-doc.pdf': { overlaps: [0], english: [3] },
  'octave.pdf': { overlaps: [0], english: [4] },
  'r-data.pdf': { overlaps: [0], english: [11] },
  'r-intro-p14-scan.pdf': { overlaps: [0], english: [3] },
  'r-intro.pdf': { overlaps: [0, 0, 0], english: [3, 3, 3] },
};
/**
 * Words left in place that the image painter changed anyway: none (a word hyphenated at a line end counts as
 * replaced). Each image is also held to none of its replaced words erased in part (issue 43 item 4).
 */
const PAINTED_OVER: Record<string, number> = {
  'flores-news-screenshot.png': 0, 'node-events-screenshot.png': 0, 'node-os-signals-table.png': 0, 'octave-p200-scan.png': 0, 'r-data-p25-scan.jpg': 0,
};

/**
 * Painted lines below 0.7× the size of their source paragraph: none, but one on R-data's scan that the checker counts
 * wrongly: "de Nevada" is painted in the row of "Florida" at the size of the rows around it, but the paragraph Tesseract
 * makes of that data table (against which the checker measures it) also holds misread, taller code words.
 */
const SHRUNK_LINES: Record<string, number> = { 'r-data-p25-scan.jpg': 1 };

describe('real documents translated en→es (layout checker)', () => {
  const figures = new Map<string, FileFigures>();
  before(async () => {
    for (const file of corpusFiles()) figures.set(file, await measureFile(file, formats, tesseract));
  });
  after(() => console.log(`\n${figuresTable([...figures.values()])}\n`));

  it('the corpus is the one the ceilings describe', () => {
    assert.deepEqual(corpusFiles(), Object.keys({ ...CEILINGS, ...PAINTED_OVER }).sort());
  });

  for (const file of corpusFiles()) {
    it(file, () => {
      const f = figures.get(file)!;
      const context = `${file}: ${f.examples.slice(0, 6).join('; ')}`;
      if (!f.pages) {
        assert.ok(readsSpanish(f.outputWords!), `${file} reads as Spanish: ${JSON.stringify(f.outputWords)}`);
        assert.ok(f.keptNumbers! >= 0.95 * f.sourceNumbers!, `${file}: ${f.keptNumbers} of ${f.sourceNumbers} number tokens kept`);
        assert.ok(f.paintedOver!.length <= PAINTED_OVER[file]!, `${file}: words left in place painted over: ${f.paintedOver!.join(', ')}`);
        assert.deepEqual(f.unerased, [], `${file}: replaced words erased in part`);
        assert.ok(f.shrunkLines!.length <= (SHRUNK_LINES[file] ?? 0), `${file}: painted lines below 0.7× their paragraph: ${f.shrunkLines!.join(', ')}`);
        return;
      }
      const ceiling = CEILINGS[file]!;
      assert.ok(f.keptNumbers! >= 0.95 * f.sourceNumbers!, `${file}: ${f.keptNumbers} of ${f.sourceNumbers} number tokens kept`);
      f.pages.forEach((p, n) => {
        const page = `${file} p${n + 1}`;
        assert.ok(p.newOverlaps <= ceiling.overlaps[n]!, `${page}: ${p.newOverlaps} new overlapping pairs (was ${ceiling.overlaps[n]}); ${context}`);
        assert.ok(p.newOffPage <= (ceiling.offPage?.[n] ?? 0), `${page}: ${p.newOffPage} new text items off the page; ${context}`);
        assert.ok(p.letters.output >= 0.9 * p.letters.source, `${page}: letters drawn ${p.letters.source} → ${p.letters.output}`);
        assert.ok(p.outputWords.english <= ceiling.english[n]!, `${page}: ${p.outputWords.english} English function words left (at most ${ceiling.english[n]})`);
        if (p.sourceWords.english >= BODY_WORDS) assert.ok(readsSpanish(p.outputWords), `${page} reads as Spanish: ${JSON.stringify(p.outputWords)}`);
      });
    });
  }
});
