// The one interface every document format implements: extract segments → (pipeline translates) → rebuild.
// Formats are pure: bytes in, bytes out; they never see HTTP, the store or the engines.
import type { ArchiveLimits } from './zip-reader.js';

/** How a segment's text must be treated by the translator. */
export type SegmentKind =
  /** Plain text; newlines inside are kept as line breaks. */
  | 'text'
  /** Markup (XML/HTML inline tags) for the markup layer; formats that use it plug in here. */
  | 'xml'
  | 'html';

export interface DocumentSegment {
  text: string;
  kind: SegmentKind;
}

export interface ExtractedDocument {
  segments: DocumentSegment[];
  /** Billable characters: code points of the document's text (not of markup, numbering or keys). */
  characters: number;
  /** Billed instead of `characters` and the format's minimum (images: 0, the reference does not bill them in beta). */
  billedCharacters?: number;
  /** Told to the client with the done status: what of the document was kept untranslated and why. */
  notice?: string;
  /** Builds the translated file; translations[i] belongs to segments[i]. */
  rebuild(translations: string[]): Buffer | Promise<Buffer>;
  /**
   * Formats on the markup layer translate their own units (inline tags may need more than one engine pass) through
   * the pipeline's plain-text translator; the pipeline then uses this instead of translating `segments` + rebuild.
   * `outputFormat` (one of the format's `outputFormats`, where it has `rebuildAs`) builds that format instead.
   */
  translateWith?(translate: (texts: string[]) => Promise<string[]>, outputFormat?: string): Promise<Buffer>;
  /** Builds the translated file in another format (one of the format's `outputFormats`, for output_format). */
  rebuildAs?(outputFormat: string, translations: string[]): Buffer | Promise<Buffer>;
}

export interface ExtractOptions {
  /** Target language as written in lang attributes ("es", "pt-BR"). */
  targetLang: string;
  /** enable_watermark: formats that can (docx, pdf) add a visible "translated by" note to the result. */
  watermark?: boolean;
  /** Source language code when the request gave one ("en", "pt-br"); images choose their OCR language by it. */
  sourceLang?: string;
  /** The job ended (cancelled, server closing): child processes working on it are killed. */
  signal?: AbortSignal;
  /** Limits of zip-based formats (docx, pptx, xlsx, IDML); the defaults of zip-reader.ts when absent. */
  archiveLimits?: ArchiveLimits;
}

export interface DocumentFormat {
  /** Format id, also the default output extension ("txt"). */
  readonly id: string;
  /** Upload extensions (lower case, no dot). */
  readonly extensions: readonly string[];
  /** Content type of the translated file. */
  readonly contentType: string;
  /** Largest accepted upload in bytes (413 beyond). */
  readonly maxBytes: number;
  /** Characters billed at least per document (0 = none). */
  readonly minimumBilledCharacters: number;
  /** Ids of the other formats its documents can be converted to (output_format); `rebuildAs` builds them. */
  readonly outputFormats?: readonly string[];
  /** Parses the file; throws DocumentFormatError for a file it cannot read. */
  extract(input: Buffer, options: ExtractOptions): ExtractedDocument | Promise<ExtractedDocument>;
}

/**
 * Pixel budgets of one document: they bound the native memory (canvases, decoded images) that a format thread's heap
 * limit does not, at about 12 bytes per pixel while a page or image is worked on.
 */
export interface PixelLimits {
  /** A page drawn (for text recognition, pictures of kept text): larger pages are drawn at a lower resolution. */
  pagePixels: number;
  /** A decoded image (the image formats, images inside a PDF): checked from its header, never decoded when larger. */
  imagePixels: number;
  /** Pages drawn for text recognition in one document, in all: the pages after are kept as they are. */
  ocrPixels: number;
}

/** Defaults of the limits (TOLK_DOCUMENT_*_MEGAPIXELS): pages up to A2 at 216 dpi, a 25-megapixel photo, ~90 A4 scans. */
export const DEFAULT_PIXEL_LIMITS: PixelLimits = { pagePixels: 25_000_000, imagePixels: 25_000_000, ocrPixels: 400_000_000 };

/**
 * Per-document billing minimum of the reference service for docx, pptx, xlsx and pdf (also doc): formats built for
 * these extensions set it as their `minimumBilledCharacters`; every other format bills its text only.
 */
export const REFERENCE_MINIMUM_BILLED_CHARACTERS = 50_000;

/** A file the format cannot read: the job ends in `error` with this message. */
export class DocumentFormatError extends Error {}

/** Billed characters are code points; a charCodeAt loop avoids allocating an array per string. */
export function countCodePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // a high surrogate followed by a low one is one code point
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Decodes UTF-8 (with or without BOM) or UTF-16 with BOM; rejects bytes that are not text. */
export function decodeText(input: Buffer, what: string): { text: string; encode: (s: string) => Buffer } {
  if (input.length >= 2 && input[0] === 0xff && input[1] === 0xfe) {
    return { text: input.subarray(2).toString('utf16le'), encode: (s) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]) };
  }
  if (input.length >= 2 && input[0] === 0xfe && input[1] === 0xff) {
    const swapped = Buffer.from(input.subarray(2));
    swapped.swap16();
    return {
      text: swapped.toString('utf16le'),
      encode: (s) => {
        const b = Buffer.from(s, 'utf16le');
        b.swap16();
        return Buffer.concat([Buffer.from([0xfe, 0xff]), b]);
      },
    };
  }
  const bom = input.length >= 3 && input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf;
  const body = bom ? input.subarray(3) : input;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new DocumentFormatError(`The ${what} file is not valid UTF-8 text.`);
  }
  if (text.includes('\u0000')) throw new DocumentFormatError(`The ${what} file contains binary data.`);
  return { text, encode: (s) => (bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(s, 'utf8')]) : Buffer.from(s, 'utf8')) };
}
