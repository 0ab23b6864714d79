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
import { layoutPage, type TextBlock } from './pdf/layout.js';
import { readPageImages } from './pdf/page-images.js';
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

/** True when a page's text is in a font that cannot be read back (drawing it again would show garbage). */
function unreadable(text: string): boolean {
  const visible = text.replace(/\s/gu, '').length;
  const control = text.match(CONTROL)?.length ?? 0;
  return visible > 0 && control / visible >= UNREADABLE_SHARE;
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
    // A page whose text cannot be read back is kept as it is: its text is neither translated nor erased.
    const keep = pages.map((p) => unreadable(p.pieces.map((piece) => piece.text).join('')));
    const translatable = blocks.flatMap((page, n) => (keep[n] ? [] : page.filter((b) => b.translatable)));
    if (translatable.length === 0 && keep.some(Boolean)) {
      throw new DocumentFormatError('The PDF file has no text that can be read back (its fonts have no usable character mapping).');
    }
    if (translatable.length === 0) {
      throw new DocumentFormatError('The PDF file has no text to translate (a scanned document needs text recognition first).');
    }
    /** Each page's blocks with what they say in the result. */
    const translatedPages = (translations: string[]) => {
      const byBlock = new Map(translatable.map((b, i) => [b, translations[i] ?? b.text]));
      return blocks.map((page, n) => ({ blocks: page, texts: page.map((b) => byBlock.get(b) ?? b.text), keep: keep[n] }));
    };
    return {
      segments: translatable.map((b) => ({ text: b.text, kind: 'text' as const })),
      characters: translatable.reduce((n, b) => n + countCodePoints(b.text), 0),
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
        return writeTranslatedDocx(
          translatedPages(translations).map((p, n) => ({ ...p, view: pages[n]!.view, images: images[n] ?? [] })),
          { lang: options.targetLang, ...(options.watermark === true ? { appendParagraph: watermarkParagraph } : {}) },
        );
      },
    };
  },
};
