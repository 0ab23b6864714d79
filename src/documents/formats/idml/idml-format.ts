// Adobe InDesign Markup Language packages: the paragraphs of every story are translated on the markup layer (style
// ranges as inline tags); every other part, and every untouched byte of a story, is written back unchanged.
import { translateTagged, type TaggedText } from '../../../markup/index.js';
import { countCodePoints, decodeText, DocumentFormatError, type DocumentFormat, type ExtractedDocument, type ExtractOptions } from '../format.js';
import { planStory, renderPieces, type Piece } from './idml-story.js';
import { readZip, writeZip, type ZipPart } from './zip-package.js';

export const IDML_MIMETYPE = 'application/vnd.adobe.indesign-idml-package';
const STORY = /^Stories\/Story_[^/]+\.xml$/u;

export const idmlFormat: DocumentFormat = {
  id: 'idml',
  extensions: ['idml'],
  contentType: IDML_MIMETYPE,
  // IDML holds no images (links only), so 100 MB is a very large publication; parts unpack within the zip limits.
  maxBytes: 100 * 1024 * 1024,
  minimumBilledCharacters: 0,
  async extract(input: Buffer, options: ExtractOptions): Promise<ExtractedDocument> {
    const parts = await readZip(input, 'IDML', options.archiveLimits);
    const mimetype = parts.find((p) => p.name === 'mimetype');
    if (!mimetype || mimetype.data.toString('latin1').trim() !== IDML_MIMETYPE) {
      throw new DocumentFormatError(`The file is not an IDML package (its mimetype entry must be ${IDML_MIMETYPE}).`);
    }
    const units: TaggedText[] = [];
    const stories: { part: ZipPart; pieces: Piece[]; encode: (s: string) => Buffer }[] = [];
    for (const part of parts) {
      if (!STORY.test(part.name)) continue;
      const before = units.length;
      const { text, encode } = decodeText(part.data, `IDML story ${part.name}`);
      const pieces = planStory(text, units, `IDML story ${part.name}`);
      if (units.length > before) stories.push({ part, pieces, encode });
    }
    const build = async (outputs: TaggedText[]) => {
      const replaced = new Map(stories.map((s) => [s.part, s.encode(renderPieces(s.pieces, outputs))]));
      return writeZip(parts.map((p) => ({ ...p, data: replaced.get(p) ?? p.data })), 'mimetype');
    };
    return {
      segments: units.map((u) => ({ text: u.text, kind: 'text' as const })),
      characters: units.reduce((n, u) => n + countCodePoints(u.text), 0),
      async rebuild(translations) {
        // Without the markup layer's realignment: style ranges are placed proportionally on each translation.
        return build(await translateTagged(units, async () => units.map((u, i) => translations[i] ?? u.text), 'placeholders'));
      },
      async translateWith(translate) {
        return build(await translateTagged(units, translate, 'realign'));
      },
    };
  },
};
