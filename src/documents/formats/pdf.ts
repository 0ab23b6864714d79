// PDF: each text block (paragraph, list item, table cell) is one segment; the output keeps pages, graphics and images
// and draws each translation where its block was.
import type { PDFDocument } from 'pdf-lib';
import {
  countCodePoints,
  DocumentFormatError,
  REFERENCE_MINIMUM_BILLED_CHARACTERS,
  type DocumentFormat,
  type ExtractedDocument,
  type ExtractOptions,
} from './format.js';
import { watermarkParagraph } from './ooxml.js';
import { writeTranslatedDocx } from './pdf/docx-output.js';
import { layoutPage, type TextBlock, type TextPiece } from './pdf/layout.js';
import { readPageImages } from './pdf/page-images.js';
import { renderKeptBlocks } from './pdf/kept-images.js';
import { readPageTexts } from './pdf/page-text.js';
import { loadPdf, writeTranslatedPdf } from './pdf/pdf-output.js';

export const PDF_MAX_PAGES = 500;
const PDF_MAX_CHARACTERS = 5_000_000;
/** Images a conversion embeds: each up to 16 megapixels, 100 megapixels in all (the rest are left out). */
const DOCX_IMAGE_LIMITS = { maxPixels: 16_000_000, maxTotalPixels: 100_000_000 };

/** Characters pdf.js gives for glyphs of a font without a usable character mapping. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFD]/gu;
/** Share of a page's characters that, read as control characters, mark its text as unreadable (a stray symbol is not). */
const UNREADABLE_SHARE = 0.05;

/** True when a text is in a font that cannot be read back (drawing it again would show garbage). */
function unreadable(text: string): boolean {
  const visible = text.replace(/\s/gu, '').length;
  const control = text.match(CONTROL)?.length ?? 0;
  return visible > 0 && control / visible >= UNREADABLE_SHARE;
}

/** The fonts of a page whose text cannot be read back (by name; pieces without a name count as one font). */
function unreadableFonts(pieces: readonly TextPiece[]): Set<string> {
  const texts = new Map<string, string[]>();
  for (const p of pieces) {
    const list = texts.get(p.fontName ?? '');
    if (list) list.push(p.text);
    else texts.set(p.fontName ?? '', [p.text]);
  }
  return new Set([...texts].filter(([, t]) => unreadable(t.join(''))).map(([name]) => name));
}

/** A block with text in such a font is kept as it is (a sentence with unreadable symbols would lose them). */
const keptBlock = (b: TextBlock, fonts: Set<string>) => fonts.size > 0 && b.lines.some((l) => l.pieces.some((p) => fonts.has(p.fontName ?? '')));

/** Says on which pages text was kept as it is (it is in the PDF output, untranslated and not billed). */
export function keptNotice(pages: number[]): string {
  const shown = pages.length > 20 ? `${pages.slice(0, 20).join(', ')} and ${pages.length - 20} more` : pages.join(', ');
  return `Text in fonts that cannot be read back was kept untranslated on ${pages.length === 1 ? 'page' : 'pages'} ${shown} (as a picture in a docx conversion).`;
}

function looksLikePdf(input: Buffer): boolean {
  // readers accept the header anywhere in the first kilobyte
  return input.subarray(0, 1024).includes('%PDF-');
}

export const pdfFormat: DocumentFormat = {
  id: 'pdf',
  extensions: ['pdf'],
  contentType: 'application/pdf',
  maxBytes: 100 * 1024 * 1024,
  minimumBilledCharacters: REFERENCE_MINIMUM_BILLED_CHARACTERS,
  outputFormats: ['docx'],
  async extract(input: Buffer, options: ExtractOptions): Promise<ExtractedDocument> {
    if (!looksLikePdf(input)) throw new DocumentFormatError('The file is not a PDF document.');
    // pdf-lib first: it refuses encrypted files, which pdf.js would open when only an owner password is set
    let output: PDFDocument | undefined = await loadPdf(input);
    const pages = await readPageTexts(input, { maxPages: PDF_MAX_PAGES, maxCharacters: PDF_MAX_CHARACTERS });
    if (output.getPageCount() !== pages.length) throw new DocumentFormatError('The PDF file is damaged: its page tree is inconsistent.');
    const blocks: TextBlock[][] = pages.map((p) => layoutPage(p.pieces, p.view));
    // Text in fonts that cannot be read back is kept as it is: neither translated nor erased, nor are the blocks
    // holding some of it; a page with nothing else to translate is left untouched.
    const badFonts = pages.map((p) => unreadableFonts(p.pieces));
    const kept = blocks.map((page, n) => page.map((b) => keptBlock(b, badFonts[n]!)));
    const keep = blocks.map((page, n) => badFonts[n]!.size > 0 && page.every((b, k) => kept[n]![k] || !b.translatable));
    const translatable = blocks.flatMap((page, n) => page.filter((b, k) => b.translatable && !kept[n]![k]));
    if (translatable.length === 0 && badFonts.some((f) => f.size > 0)) {
      throw new DocumentFormatError('The PDF file has no text that can be read back (its fonts have no usable character mapping).');
    }
    if (translatable.length === 0) {
      throw new DocumentFormatError('The PDF file has no text to translate (a scanned document needs text recognition first).');
    }
    const keptPages = badFonts.flatMap((f, n) => (f.size > 0 ? [n + 1] : []));
    /** Each page's blocks with what they say in the result. */
    const translatedPages = (translations: string[]) => {
      const byBlock = new Map(translatable.map((b, i) => [b, translations[i] ?? b.text]));
      // kept text read back as control characters says nothing: left out of texts drawn or converted
      const textOf = (b: TextBlock) => byBlock.get(b) ?? b.text.replace(CONTROL, '');
      return blocks.map((page, n) => ({ blocks: page, texts: page.map(textOf), keep: keep[n], keepFonts: badFonts[n]!, kept: kept[n]! }));
    };
    return {
      segments: translatable.map((b) => ({ text: b.text, kind: 'text' as const })),
      characters: translatable.reduce((n, b) => n + countCodePoints(b.text), 0),
      ...(keptPages.length > 0 ? { notice: keptNotice(keptPages) } : {}),
      async rebuild(translations) {
        // the loaded document is rewritten in place, so a second rebuild starts from the input again
        const doc = output ?? (await loadPdf(input));
        output = undefined;
        return writeTranslatedPdf(doc, translatedPages(translations), { watermark: options.watermark === true });
      },
      async rebuildAs(outputFormat, translations) {
        if (outputFormat !== 'docx') throw new DocumentFormatError(`Conversion from 'pdf' to '${outputFormat}' is not supported.`);
        output = undefined; // the PDF writer's document is not needed
        const images = await readPageImages(input, DOCX_IMAGE_LIMITS);
        // kept text has no words to write: a picture of each kept block takes its place
        const pictures = await renderKeptBlocks(input, blocks.map((page, n) => page.filter((_, k) => kept[n]![k])));
        const withPictures = (n: number) => [...(images[n] ?? []), ...pictures[n]!].sort((a, b) => b.top - a.top);
        return writeTranslatedDocx(
          translatedPages(translations).map((p, n) => ({ ...p, texts: p.texts.map((t, k) => (kept[n]![k] ? '' : t)), view: pages[n]!.view, images: withPictures(n) })),
          { lang: options.targetLang, ...(options.watermark === true ? { appendParagraph: watermarkParagraph } : {}) },
        );
      },
    };
  },
};
