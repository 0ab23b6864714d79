// HTML and XML documents on the markup layer (src/markup): the file is parsed with source locations,
// block contents become tagged units, and everything not translated comes back byte for byte.
import { parseMarkup, translateTagged, type MarkupOptions, type MarkupPlan } from '../../markup/index.js';
import { decodeText, DocumentFormatError, type DocumentFormat, type ExtractedDocument, type ExtractOptions } from './format.js';

/** How an XML vocabulary (DITA…) is cut into units: its block, inline and untranslated elements, translate="no", root lang. */
export interface MarkupSettings {
  splittingTags?: string[];
  nonSplittingTags?: string[];
  ignoreTags?: string[];
  honourTranslateNo?: boolean;
  /** Set xml:lang on the document element to the target language. */
  setRootLang?: boolean;
}

export function markupFormat(id: string, extensions: string[], contentType: string, settings: MarkupSettings = {}): DocumentFormat {
  const format: MarkupOptions['format'] = id === 'html' ? 'html' : 'xml';
  return {
    id,
    extensions,
    contentType,
    maxBytes: 10 * 1024 * 1024,
    minimumBilledCharacters: 0,
    extract(input: Buffer, options: ExtractOptions): ExtractedDocument {
      const { text, encode } = decodeText(input, id);
      let plan: MarkupPlan;
      try {
        plan = parseMarkup(text, {
          format,
          outlineDetection: true,
          splittingTags: settings.splittingTags ?? [],
          nonSplittingTags: settings.nonSplittingTags ?? [],
          ignoreTags: settings.ignoreTags ?? [],
          honourTranslateNo: settings.honourTranslateNo,
          rootLang: settings.setRootLang ? options.targetLang : undefined,
          targetLang: options.targetLang,
        });
      } catch (err) {
        if (err instanceof RangeError) throw new DocumentFormatError(`The ${id} file is nested too deeply.`);
        const detail = (err as { details?: { detail?: string } }).details?.detail?.replace(/\.$/u, '');
        throw new DocumentFormatError(`The ${id} file is not well-formed${detail ? `: ${detail}` : ''}.`);
      }
      const units = plan.units;
      return {
        segments: units.map((u) => ({ text: u.text, kind: 'text' as const })),
        characters: plan.textCharacters,
        rebuild(translations) {
          // Without tag placement (callers that do not use translateWith): each unit's text, its inline tags dropped.
          return encode(plan.render(units.map((u, i) => ({ text: translations[i] ?? u.text, marks: [] }))));
        },
        async translateWith(translate) {
          const out = await translateTagged(units, translate, 'realign');
          return encode(plan.render(out));
        },
      };
    },
  };
}

export const htmlFormat = markupFormat('html', ['html', 'htm'], 'text/html; charset=utf-8');
export const xmlFormat = markupFormat('xml', ['xml'], 'application/xml; charset=utf-8');
