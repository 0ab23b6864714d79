// The format registry: every extension of the spec, the formats built so far, and the limits of those to come.
import type { DocumentFormat } from './format.js';
import { idmlFormat } from './idml/idml-format.js';
import { jsonFormat } from './json.js';
import { htmlFormat, xmlFormat } from './markup-formats.js';
import { mifFormat } from './mif/mif-format.js';
import { srtFormat } from './srt.js';
import { txtFormat } from './txt.js';

export type { DocumentFormat, DocumentSegment, ExtractedDocument, ExtractOptions, SegmentKind } from './format.js';
export { DocumentFormatError, countCodePoints } from './format.js';

/** Extensions of the spec whose formats are not built yet (they need the markup layer or converters). */
export const PLANNED_EXTENSIONS: ReadonlySet<string> = new Set([
  'docx', 'doc', 'pptx', 'xlsx', 'pdf', 'xlf', 'xliff', 'dita', 'jpeg', 'jpg', 'png',
]);

/**
 * Per-document billing minimum of the reference service for docx, pptx, xlsx and pdf (also doc): formats built for
 * these extensions set it as their `minimumBilledCharacters`; every other format bills its text only.
 */
export const REFERENCE_MINIMUM_BILLED_CHARACTERS = 50_000;
export const MINIMUM_BILLED_EXTENSIONS: ReadonlySet<string> = new Set(['docx', 'doc', 'pptx', 'xlsx', 'pdf']);

export class DocumentFormats {
  private readonly byExtension = new Map<string, DocumentFormat>();

  constructor(formats: readonly DocumentFormat[] = [txtFormat, srtFormat, jsonFormat, htmlFormat, xmlFormat, idmlFormat, mifFormat]) {
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
    return [...this.byExtension.values()].find((f) => f.id === id);
  }

  /** The largest upload any built format accepts: the streaming cap before the format is known. */
  maxUploadBytes(): number {
    return Math.max(...[...this.byExtension.values()].map((f) => f.maxBytes));
  }
}
