// The format registry: every extension of the spec, the formats built so far, and the limits of those to come.
import { ditaFormat } from './dita.js';
import { DEFAULT_PIXEL_LIMITS, type DocumentFormat, type PixelLimits } from './format.js';
import { idmlFormat } from './idml/idml-format.js';
import { createImageFormat } from './image/image-format.js';
import { TesseractRecognizer } from '../ocr/tesseract-recognizer.js';
import { jsonFormat } from './json.js';
import { htmlFormat, xmlFormat } from './markup-formats.js';
import { mifFormat } from './mif/mif-format.js';
import { docxFormat, pptxFormat, xlsxFormat } from './ooxml.js';
import { createPdfFormat } from './pdf.js';
import { srtFormat } from './srt.js';
import { txtFormat } from './txt.js';
import { xliffFormat } from './xliff.js';

export type { DocumentFormat, DocumentSegment, ExtractedDocument, ExtractOptions, PixelLimits, SegmentKind } from './format.js';
export { DEFAULT_PIXEL_LIMITS, DocumentFormatError, countCodePoints, REFERENCE_MINIMUM_BILLED_CHARACTERS } from './format.js';
export { DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from './zip-reader.js';

/** Extensions of the spec whose formats are not built yet (they need the markup layer or converters). */
export const PLANNED_EXTENSIONS: ReadonlySet<string> = new Set([
  'doc',
]);

export const MINIMUM_BILLED_EXTENSIONS: ReadonlySet<string> = new Set(['docx', 'doc', 'pptx', 'xlsx', 'pdf']);

/**
 * Every built format; the image formats' and PDF's OCR is the recognizer given (one serves all, with its cached
 * languages), and their pages and images are drawn within `limits`.
 */
export function builtFormats(recognizer: TesseractRecognizer = new TesseractRecognizer(), limits: PixelLimits = DEFAULT_PIXEL_LIMITS): DocumentFormat[] {
  return [
    txtFormat, srtFormat, jsonFormat, htmlFormat, xmlFormat, xliffFormat, ditaFormat, createPdfFormat(recognizer, limits), docxFormat, pptxFormat, xlsxFormat,
    idmlFormat, mifFormat, createImageFormat('png', recognizer, limits), createImageFormat('jpeg', recognizer, limits),
  ];
}

export class DocumentFormats {
  private readonly byExtension = new Map<string, DocumentFormat>();

  constructor(formats: readonly DocumentFormat[] = builtFormats()) {
    for (const f of formats) for (const ext of f.extensions) this.byExtension.set(ext, f);
  }

  /** The format for a file name's extension, 'planned' for a spec format not built yet, undefined when unknown. */
  forFileName(fileName: string): DocumentFormat | 'planned' | undefined {
    const m = /\.([A-Za-z0-9]+)$/.exec(fileName.trim());
    if (!m) return undefined;
    const ext = m[1]!.toLowerCase();
    return this.byExtension.get(ext) ?? (PLANNED_EXTENSIONS.has(ext) ? 'planned' : undefined);
  }

  byId(id: string): DocumentFormat | undefined {
    return this.all().find((f) => f.id === id);
  }

  /** Every registered format, once each. */
  all(): DocumentFormat[] {
    return [...new Set(this.byExtension.values())];
  }

  /** The largest upload any built format accepts: the streaming cap before the format is known. */
  maxUploadBytes(): number {
    return Math.max(...[...this.byExtension.values()].map((f) => f.maxBytes));
  }
}
