// PDF: each text block (paragraph, list item, table cell) is one segment; the output keeps pages, graphics and images
// and draws each translation where its block was.
import type { PDFDocument } from 'pdf-lib';
import {
  countCodePoints,
  DEFAULT_PIXEL_LIMITS,
  DocumentFormatError,
  REFERENCE_MINIMUM_BILLED_CHARACTERS,
  type DocumentFormat,
  type ExtractedDocument,
  type ExtractOptions,
  type PixelLimits,
} from './format.js';
import { watermarkParagraph } from './ooxml.js';
import { writeTranslatedDocx } from './pdf/docx-output.js';
import { withImageSizesChecked } from './pdf/image-sizes.js';
import { layoutPage, type TextBlock, type TextPiece } from './pdf/layout.js';
import { readPageImages } from './pdf/page-images.js';
import { renderKeptBlocks } from './pdf/kept-images.js';
import { readPageTexts, UNMAPPED } from './pdf/page-text.js';
import { loadPdf, writeTranslatedPdf } from './pdf/pdf-output.js';
import { ocrNotice, paintPages, recognizePages } from './pdf/ocr-pages.js';
import { drawRegions, paintRegions, recognizeRegions, regionNotice, type RecognizedRegion } from './pdf/ocr-regions.js';
import type { TextRecognizer } from './image/text-recognizer.js';
import type { PaintedText } from './image/inline-words.js';
import { translateTagged } from '../../markup/index.js';

export const PDF_MAX_PAGES = 500;
const PDF_MAX_CHARACTERS = 5_000_000;
/** Images a conversion embeds: each up to 16 megapixels (or the image cap), 100 megapixels in all (the rest are left out). */
const docxImageLimits = (limits: PixelLimits) => ({ maxPixels: Math.min(16_000_000, limits.imagePixels), maxTotalPixels: 100_000_000 });

/** Share of a page's characters that, read as control characters, mark its text as unreadable (a stray symbol is not). */
const UNREADABLE_SHARE = 0.05;

/** True when a text is in a font that cannot be read back (drawing it again would show garbage). */
function unreadable(text: string): boolean {
  const visible = text.replace(/\s/gu, '').length;
  const control = text.match(UNMAPPED)?.length ?? 0;
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

/**
 * The PDF format; with a recognizer, pages without a usable text layer (scans, text in fonts that cannot be read
 * back) are read by text recognition and translated too, each drawn within the pixel limits.
 */
export function createPdfFormat(recognizer?: TextRecognizer, limits: PixelLimits = DEFAULT_PIXEL_LIMITS): DocumentFormat {
  return {
    id: 'pdf',
    extensions: ['pdf'],
    contentType: 'application/pdf',
    maxBytes: 100 * 1024 * 1024,
    minimumBilledCharacters: REFERENCE_MINIMUM_BILLED_CHARACTERS,
    outputFormats: ['docx'],
    extract: (input, options) => extractPdf(input, options, recognizer, limits),
  };
}

/** Without text recognition (scanned pages are kept as they are). */
export const pdfFormat = createPdfFormat();

async function extractPdf(input: Buffer, options: ExtractOptions, recognizer: TextRecognizer | undefined, limits: PixelLimits): Promise<ExtractedDocument> {
  if (!looksLikePdf(input)) throw new DocumentFormatError('The file is not a PDF document.');
  // pdf-lib first: it refuses encrypted files, which pdf.js would open when only an owner password is set
  let output: PDFDocument | undefined = await loadPdf(input);
  const pages = await readPageTexts(input, { maxPages: PDF_MAX_PAGES, maxCharacters: PDF_MAX_CHARACTERS });
  if (output.getPageCount() !== pages.length) throw new DocumentFormatError('The PDF file is damaged: its page tree is inconsistent.');
  const blocks: TextBlock[][] = pages.map((p) => layoutPage(p.pieces, p.view));
  // Text in fonts that cannot be read back is kept as it is: neither translated nor erased, nor are the blocks
  // holding some of it; a page with nothing else to translate is left untouched unless text recognition reads it.
  const badFonts = pages.map((p) => unreadableFonts(p.pieces));
  const kept = blocks.map((page, n) => page.map((b) => keptBlock(b, badFonts[n]!)));
  const keep = blocks.map((page, n) => badFonts[n]!.size > 0 && page.every((b, k) => kept[n]![k] || !b.translatable));
  const translatable = blocks.flatMap((page, n) => page.filter((b, k) => b.translatable && !kept[n]![k]));
  // a page with nothing to translate in its text layer is read by the recognizer (a blank page finds nothing)
  const withoutText = blocks.flatMap((page, n) => (page.every((b, k) => !b.translatable || kept[n]![k]) ? [n] : []));
  // what pages are drawn and images decoded from: images whose data claims more pixels than allowed left out
  let checked: Promise<Buffer> | undefined;
  const drawable = () => (checked ??= withImageSizesChecked(input, limits.imagePixels));
  const ocrStarted = Date.now();
  const recognition = recognizer && withoutText.length > 0 ? await recognizePages(await drawable(), withoutText, recognizer, { language: options.sourceLang, signal: options.signal, limits }) : undefined;
  const recognized = recognition?.pages ?? [];
  for (const r of recognized) keep[r.page] = false;
  // on pages with readable text, the blocks in fonts that cannot be read back are read region by region
  const regionPages = new Map(
    blocks.flatMap((page, n) => {
      const wanted = page.filter((b, k) => kept[n]![k] && Math.abs(b.angle) < 1e-3);
      return keep[n] || withoutText.includes(n) || wanted.length === 0 ? [] : [[n, { blocks: wanted, others: page.filter((_, k) => !kept[n]![k]) }] as const];
    }),
  );
  const regions = recognizer && regionPages.size > 0 ? await recognizeRegions(await drawable(), regionPages, recognizer, { language: options.sourceLang, signal: options.signal, limits, startedAt: ocrStarted }) : [];
  const ocrBlocks = new Set(regions.flatMap((r) => r.blocks));
  const ocrTexts = [...recognized.flatMap((r) => r.texts), ...regions.flatMap((r) => r.texts)];
  const pageTexts = recognized.reduce((n, r) => n + r.texts.length, 0);
  const [ocrRead, ocrUnread, ocrTooLarge] = [recognized.map((r) => r.page + 1), (recognition?.unread ?? []).map((n) => n + 1), (recognition?.tooLarge ?? []).map((n) => n + 1)];
  const ocrSaid = ocrRead.length + ocrUnread.length + ocrTooLarge.length > 0 ? ocrNotice(ocrRead, ocrUnread, ocrTooLarge, limits.pagePixels) : undefined;
  if (translatable.length === 0 && ocrTexts.length === 0 && badFonts.some((f) => f.size > 0)) {
    throw new DocumentFormatError('The PDF file has no text that can be read back (its fonts have no usable character mapping).');
  }
  if (translatable.length === 0 && ocrTexts.length === 0) {
    throw new DocumentFormatError(
      !recognizer
        ? 'The PDF file has no text to translate (a scanned document needs text recognition first).'
        : ocrUnread.length + ocrTooLarge.length > 0
          ? `The PDF file has no text to translate in its text layer. ${ocrSaid}`
          : 'The PDF file has no text to translate (text recognition found none either).',
    );
  }
  const ocrPages = new Set(recognized.map((r) => r.page));
  // a region's blocks are its picture: their fonts stay in the content only for blocks still kept
  const keptLeft = blocks.map((page, n) => page.map((b, k) => kept[n]![k]! && !ocrBlocks.has(b)));
  const keepFonts = blocks.map((page, n) => new Set([...badFonts[n]!].filter((f) => page.some((b, k) => keptLeft[n]![k] && keptBlock(b, new Set([f]))))));
  const keptPages = badFonts.flatMap((f, n) => (f.size > 0 && !ocrPages.has(n) && (keep[n] || keepFonts[n]!.size > 0) ? [n + 1] : []));
  const notices = [...(keptPages.length > 0 ? [keptNotice(keptPages)] : []), ...(regions.length > 0 ? [regionNotice(regions)] : []), ...(ocrSaid !== undefined ? [ocrSaid] : [])];
  // `ocr`: the translations of what recognition read, the recognized pages' paragraphs in page order, then the regions'
  /** Each recognized page painted with its translations. */
  const paintedPages = async (ocr: readonly PaintedText[], as: 'jpeg' | 'png') =>
    recognized.length === 0 ? new Map<number, Buffer>() : paintPages(await drawable(), recognized, ocr, as, limits);
  /** Each region read by recognition painted with its translations (those after the recognized pages'). */
  const paintedRegions = async (ocr: readonly PaintedText[]) => (regions.length === 0 ? new Map<RecognizedRegion, Buffer>() : paintRegions(await drawable(), regions, ocr.slice(pageTexts), limits));
  /** Each page's blocks with what they say in the result (`layer`: the translations of the text layer's blocks). */
  const translatedPages = (layer: readonly string[], painted: Map<number, Buffer>) => {
    const byBlock = new Map(translatable.map((b, i) => [b, layer[i] ?? b.text]));
    // kept text read back as control characters says nothing: left out of texts drawn or converted
    const drawn = (b: TextBlock) => byBlock.get(b) ?? b.text.replace(UNMAPPED, '');
    return blocks.map((page, n) => ({
      // a recognized page is its painted picture, a recognized region too: their own text is not drawn again
      blocks: painted.has(n) ? [] : page.filter((b) => !ocrBlocks.has(b)),
      texts: painted.has(n) ? [] : page.filter((b) => !ocrBlocks.has(b)).map(drawn),
      keep: keep[n],
      keepFonts: keepFonts[n]!,
      kept: keptLeft[n]!.filter((_, k) => !ocrBlocks.has(page[k]!)),
      // a region's picture covers its blocks: their text goes, that in fonts kept for other blocks too
      cleared: page.filter((b) => ocrBlocks.has(b)).map((b) => ({ x0: b.left - 1, x1: b.right + 1, y0: b.bottom - 1, y1: b.top + 1 })),
      glyphs: pages[n]!.glyphs,
      ...(painted.has(n) ? { picture: painted.get(n)! } : {}),
    }));
  };
  /**
   * The translated file: the PDF (`as` undefined) or a conversion (`as` one of outputFormats). Recognized text is
   * painted from `ocr`: tagged translations paint unsure words as their pixels, plain ones as they were read.
   */
  const write = async (as: string | undefined, layer: readonly string[], ocr: readonly PaintedText[]): Promise<Buffer> => {
    if (as === undefined) {
      // the loaded document is rewritten in place, so a second rebuild starts from the input again
      const doc = output ?? (await loadPdf(input));
      output = undefined;
      const written = await writeTranslatedPdf(doc, translatedPages(layer, await paintedPages(ocr, 'jpeg')), { watermark: options.watermark === true });
      return drawRegions(written, regions, ocr.slice(pageTexts), await paintedRegions(ocr));
    }
    if (as !== 'docx') throw new DocumentFormatError(`Conversion from 'pdf' to '${as}' is not supported.`);
    output = undefined; // the PDF writer's document is not needed
    const images = await readPageImages(await drawable(), docxImageLimits(limits));
    // kept text has no words to write: a picture of each kept block takes its place, a region read by
    // recognition its painted picture
    const pictures = await renderKeptBlocks(
      await drawable(),
      blocks.map((page, n) => page.filter((_, k) => keptLeft[n]![k])),
      limits,
    );
    for (const [r, png] of await paintedRegions(ocr)) pictures[r.page]!.push({ png, width: r.width, height: r.height, top: r.y + r.height });
    const painted = await paintedPages(ocr, 'png');
    // a recognized page is shown as its painted picture, in place of the images it had
    const pagePicture = (n: number) => {
      const r = recognized.find((p) => p.page === n)!;
      return [{ png: painted.get(n)!, width: r.width, height: r.height, top: pages[n]!.view[3] }];
    };
    const withPictures = (n: number) => (painted.has(n) ? pagePicture(n) : [...(images[n] ?? []), ...pictures[n]!].sort((a, b) => b.top - a.top));
    return writeTranslatedDocx(
      translatedPages(layer, painted).map((p, n) => ({ ...p, texts: p.texts.map((t, k) => (p.kept[k] ? '' : t)), view: pages[n]!.view, images: withPictures(n) })),
      { lang: options.targetLang, ...(options.watermark === true ? { appendParagraph: watermarkParagraph } : {}) },
    );
  };
  const segments = [...translatable.map((b) => b.text), ...ocrTexts];
  return {
    segments: segments.map((text) => ({ text, kind: 'text' as const })),
    characters: segments.reduce((n, t) => n + countCodePoints(t), 0),
    ...(notices.length > 0 ? { notice: notices.join(' ') } : {}),
    // without the markup layer (a plain-text translator): unsure words are painted as the recognizer read them
    rebuild: (translations) => write(undefined, translations.slice(0, translatable.length), translations.slice(translatable.length)),
    rebuildAs: (outputFormat, translations) => write(outputFormat, translations.slice(0, translatable.length), translations.slice(translatable.length)),
    async translateWith(translate, outputFormat) {
      // a recognized paragraph's unsure words travel as empty tags, so that their original pixels are painted where
      // the engine puts them; the text layer's blocks have none
      const units = [...translatable.map((b) => ({ text: b.text, marks: [] })), ...recognized.flatMap((r) => r.units), ...regions.flatMap((r) => r.units)];
      const translated = await translateTagged(units, translate, 'placeholders');
      return write(outputFormat, translated.slice(0, translatable.length).map((t) => t.text), translated.slice(translatable.length));
    },
  };
}
