// Test helper: the real-document corpus (test/fixtures/real-documents, sources and licences in its SOURCES.md)
// translated en→es by Apertium, and the layout checker's figures for each file: per page the overlaps and text off
// the page the translation added, the letters drawn before and after (text lost), and the English and Spanish
// function words a reader sees (OCR of the rendered output); per image the words left in place that were painted
// over. Shared by test/documents/real-documents.test.ts and bench/real-documents.ts.
import { readFileSync, readdirSync } from 'node:fs';
import { extname } from 'node:path';
import type { DocumentFormat } from '../../src/documents/formats/format.js';
import type { TextRecognizer } from '../../src/documents/formats/image/text-recognizer.js';
import { blanks, checkImageLayout } from './image-layout-check.js';
import { apertiumEnEs, checkLayout, functionWords, pageBoxes, type IndentFigures } from './pdf-layout-check.js';
import { ocrImage, ocrPage } from './pdf-ocr.js';

export const CORPUS_DIR = new URL('../../../test/fixtures/real-documents/', import.meta.url).pathname;

export const corpusFiles = () => readdirSync(CORPUS_DIR).filter((f) => /\.(pdf|png|jpe?g)$/u.test(f)).sort();

export interface PageFigures {
  newOverlaps: number;
  newOffPage: number;
  /** The source's indented lines of translated paragraphs, and where the output starts them. */
  indents: IndentFigures;
  /** Letters and digits drawn as text on the page, source and output. */
  letters: { source: number; output: number };
  /** Function words of the source page (its text layer, or its OCR when it has none) and of the output's OCR. */
  sourceWords: { english: number; spanish: number };
  outputWords: { english: number; spanish: number };
}

export interface FileFigures {
  file: string;
  pages?: PageFigures[];
  sourceNumbers?: number;
  keptNumbers?: number;
  /** Images: the confident source words left untranslated, and those of them painted over. */
  untranslated?: number;
  paintedOver?: string[];
  /** Images: replaced words left (in part) unerased, and painted lines shrunk below 0.7× their source paragraph. */
  unerased?: string[];
  shrunkLines?: string[];
  digitTokens?: number;
  keptDigitTokens?: number;
  outputWords?: { english: number; spanish: number };
  examples: string[];
}

export interface Formats {
  pdf: DocumentFormat;
  png: DocumentFormat;
  jpeg: DocumentFormat;
}

/** Pages are read back at this resolution: enough for body text, and cheaper than 200 dpi on a loaded machine. */
const OCR_DPI = 150;

/** Translates one corpus file with Apertium and measures the result. */
export async function measureFile(file: string, formats: Formats, recognizer: TextRecognizer): Promise<FileFigures> {
  const source = readFileSync(CORPUS_DIR + file);
  const type = extname(file) === '.pdf' ? 'pdf' : extname(file) === '.png' ? 'png' : 'jpeg';
  const doc = await formats[type].extract(source, { sourceLang: 'en', targetLang: 'es' });
  const sources = doc.segments.map((s) => s.text);
  const translations = apertiumEnEs(sources);
  // as the document worker does: a format that carries inline tags past the engine (images: their unsure words) does so
  const output = doc.translateWith
    ? await doc.translateWith(async (texts) => {
        const out = apertiumEnEs(texts);
        // the checker only tells the segments the engine left as they were from the ones it replaced
        out.slice(0, sources.length).forEach((t, i) => (translations[i] = t === texts[i] ? sources[i]! : t));
        return out;
      })
    : await doc.rebuild(translations);
  if (type !== 'pdf') {
    const erasedOnly = await (await formats[type].extract(source, { sourceLang: 'en', targetLang: 'es' })).rebuild(blanks(sources, translations));
    const r = await checkImageLayout(recognizer, source, output, erasedOnly, sources, translations);
    return {
      file, untranslated: r.untranslated.length, paintedOver: r.paintedOver.map((w) => w.text), digitTokens: r.digitTokens,
      keptDigitTokens: r.keptDigitTokens, sourceNumbers: r.sourceNumbers, keptNumbers: r.keptNumbers, outputWords: functionWords(ocrImage(output)), examples: [],
      unerased: r.unerased.map((w) => w.text), shrunkLines: r.shrunkLines.map((l) => `${l.text.slice(0, 30)} ×${l.ratio}`),
    };
  }
  const report = await checkLayout(source, output);
  const sourcePages = await pageBoxes(source);
  const pages = report.newOverlaps.map((newOverlaps, n): PageFigures => {
    const text = sourcePages[n]?.items.map((i) => i.text).join(' ') ?? '';
    return {
      newOverlaps, newOffPage: report.newOffPage[n] ?? 0, indents: report.indents[n]!, letters: report.letters[n]!,
      sourceWords: functionWords(text.trim() ? text : ocrPage(source, n + 1, OCR_DPI)), outputWords: functionWords(ocrPage(output, n + 1, OCR_DPI)),
    };
  });
  return { file, pages, sourceNumbers: report.sourceNumbers, keptNumbers: report.keptNumbers, examples: report.examples };
}

/** A page has body text in English when its source shows at least this many English function words. */
export const BODY_WORDS = 8;

/** A page reads as Spanish when its OCR finds more Spanish function words than English ones. */
export const readsSpanish = (w: { english: number; spanish: number }) => w.spanish > w.english;

/** The figures as a Markdown table, a row per page or image. */
export function figuresTable(all: readonly FileFigures[]): string {
  const rows = ['| file | page | new overlapping pairs | text off the page (new) | letters drawn: source → output | OCR of the output: English / Spanish function words (source English) | number tokens kept | words left in place painted over | replaced words not fully erased | painted lines < 0.7× their paragraph | indented lines started in place / at the block left, of |', '|---|---|---|---|---|---|---|---|---|---|---|'];
  for (const f of all) {
    const numbers = `${f.keptNumbers} of ${f.sourceNumbers}${f.digitTokens !== undefined ? `; with digits ${f.keptDigitTokens} of ${f.digitTokens}` : ''}`;
    if (!f.pages) {
      rows.push(`| ${f.file} | image | | | | ${f.outputWords!.english} / ${f.outputWords!.spanish} | ${numbers} | ${f.paintedOver!.length} of ${f.untranslated}${listed(f.paintedOver!)} | ${f.unerased!.length}${listed(f.unerased!)} | ${f.shrunkLines!.length}${listed(f.shrunkLines!)} | |`);
      continue;
    }
    f.pages.forEach((p, n) => {
      rows.push(`| ${f.file} | ${n + 1} | ${p.newOverlaps} | ${p.newOffPage} | ${p.letters.source} → ${p.letters.output} | ${p.outputWords.english} / ${p.outputWords.spanish} (${p.sourceWords.english}) | ${n === 0 ? numbers : ''} | | | | ${p.indents.kept} / ${p.indents.atLeft} of ${p.indents.indented} |`);
    });
  }
  return rows.join('\n');
}

const listed = (items: readonly string[]) => (items.length ? ` (${items.slice(0, 4).join(', ')})` : '');
