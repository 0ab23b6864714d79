// docx, pptx and xlsx: the parts that hold visible text (found by content type) are translated paragraph by paragraph
// on the markup layer; every other part, media included, is copied unchanged in the package's own entry order.
import { SaxesParser } from 'saxes';
import { translateTagged, type TaggedText } from '../../markup/index.js';
import {
  countCodePoints,
  decodeText,
  DocumentFormatError,
  REFERENCE_MINIMUM_BILLED_CHARACTERS,
  type DocumentFormat,
  type ExtractedDocument,
  type ExtractOptions,
} from './format.js';
import { openPackage, type OoxmlPackage, type PackageEntry } from './ooxml-package.js';
import { escapeXmlText, lineRanges } from './ooxml-text.js';
import { streamPart, type PartStream, type PartWindow } from './ooxml-stream.js';
import { translateInPieces } from '../../markup/unit-pieces.js';

const OOXML = 'application/vnd.openxmlformats-officedocument';
/**
 * Source characters of a part read, planned and rendered at a time, and of the windows (of one or more parts) translated
 * together in one markup-layer batch: what is held at once is bounded by these, not by the document (element trees
 * and plans take ~25× their source).
 */
const WINDOW_CHARS = 256 * 1024;
const BATCH_SOURCE_CHARS = 1024 * 1024;
export const WATERMARK_TEXT = 'Translated by Tolk';

interface OoxmlKind {
  id: 'docx' | 'pptx' | 'xlsx';
  name: string;
  contentType: string;
  /** Content type of the package's main part (proves the package is of this kind). */
  main: RegExp;
  /** Content types of the parts to translate. */
  text: RegExp;
}

const CHARTS = 'drawingml\\.chart\\+xml|drawingml\\.diagramData\\+xml|ms-office\\.drawingml\\.diagramDrawing\\+xml';
const KINDS: OoxmlKind[] = [
  {
    id: 'docx',
    name: 'Word (docx)',
    contentType: `${OOXML}.wordprocessingml.document`,
    main: /wordprocessingml\.(document|template)\.main\+xml$|ms-word\.(document|template)\.macroEnabled(Template)?\.main\+xml$/,
    text: new RegExp(`(wordprocessingml\\.(document|template)\\.main|ms-word\\.(document|template)\\.macroEnabled(Template)?\\.main|wordprocessingml\\.(header|footer|footnotes|endnotes|comments))\\+xml$|${CHARTS}`),
  },
  {
    id: 'pptx',
    name: 'PowerPoint (pptx)',
    contentType: `${OOXML}.presentationml.presentation`,
    main: /presentationml\.(presentation|slideshow|template)\.main\+xml$|ms-powerpoint\.[a-z]+\.macroEnabled\.main\+xml$/,
    text: new RegExp(`presentationml\\.(slide|notesSlide)\\+xml$|${CHARTS}`),
  },
  {
    id: 'xlsx',
    name: 'Excel (xlsx)',
    contentType: `${OOXML}.spreadsheetml.sheet`,
    main: /spreadsheetml\.(sheet|template)\.main\+xml$|ms-excel\.(sheet|template)\.macroEnabled(\.main)?\+xml$/,
    text: new RegExp(`spreadsheetml\\.(sharedStrings|worksheet|comments)\\+xml$|officedocument\\.drawing\\+xml$|${CHARTS}`),
  },
];

/** Part name → content type, from [Content_Types].xml (overrides; defaults by extension). */
function contentTypes(xml: string, what: string): (name: string) => string | undefined {
  const overrides = new Map<string, string>();
  const defaults = new Map<string, string>();
  const parser = new SaxesParser({ xmlns: false });
  parser.on('doctype', () => {
    throw new DocumentFormatError(`The ${what} file contains a DOCTYPE declaration, which Office documents never have; it is refused.`);
  });
  parser.on('opentag', (tag) => {
    const local = tag.name.replace(/^.*:/, '');
    const a = tag.attributes as Record<string, string>;
    if (local === 'Override' && a.PartName && a.ContentType) {
      let name = a.PartName.replace(/^\//, '');
      try {
        name = decodeURIComponent(name);
      } catch {
        // a malformed escape: keep the name as written
      }
      overrides.set(name.toLowerCase(), a.ContentType);
    } else if (local === 'Default' && a.Extension && a.ContentType) defaults.set(a.Extension.toLowerCase(), a.ContentType);
  });
  try {
    parser.write(xml).close();
  } catch (err) {
    if (err instanceof DocumentFormatError) throw err;
    throw new DocumentFormatError(`The ${what} file has a malformed [Content_Types].xml: ${(err as Error).message}`);
  }
  return (name) => overrides.get(name.toLowerCase()) ?? defaults.get(/\.([^./]+)$/.exec(name)?.[1]?.toLowerCase() ?? '');
}

/** A text part being read window by window, and how it is written back (its own encoding). */
interface OpenPart {
  entry: PackageEntry;
  stream: PartStream;
  encode: (xml: string) => Buffer;
}

/** The word edge (start of text, end of text or a blank) nearest to `pos`, so a scaled tag never cuts a word. */
function nearestBoundary(text: string, pos: number): number {
  const edge = (k: number) => k <= 0 || k >= text.length || /\s/u.test(text[k]!) || /\s/u.test(text[k - 1]!);
  for (let d = 0; d <= text.length; d++) {
    if (pos - d >= 0 && edge(pos - d)) return pos - d;
    if (pos + d <= text.length && edge(pos + d)) return pos + d;
  }
  return pos;
}

/** A Word paragraph saying the document was machine translated (enable_watermark). */
export function watermarkParagraph(prefix: string): string {
  const w = prefix ? `${prefix}:` : '';
  return `<${w}p><${w}pPr><${w}jc ${w}val="center"/></${w}pPr><${w}r><${w}rPr><${w}i/><${w}color ${w}val="808080"/></${w}rPr><${w}t>${escapeXmlText(WATERMARK_TEXT)}</${w}t></${w}r></${w}p>`;
}

async function openPart(pkg: OoxmlPackage, entry: PackageEntry, what: string, targetLang: string): Promise<OpenPart> {
  // UTF-8 or UTF-16 (with BOM), written back in the same encoding.
  const { text, encode } = decodeText(await pkg.read(entry), `${what} part ${entry.name}`);
  return { entry, stream: streamPart(text, `${what} part ${entry.name}`, targetLang, WINDOW_CHARS), encode };
}

function ooxmlFormat(kind: OoxmlKind): DocumentFormat {
  const what = kind.id;
  return {
    id: kind.id,
    extensions: [kind.id],
    contentType: kind.contentType,
    maxBytes: 100 * 1024 * 1024,
    minimumBilledCharacters: REFERENCE_MINIMUM_BILLED_CHARACTERS,
    async extract(input: Buffer, options: ExtractOptions): Promise<ExtractedDocument> {
      if (input.length >= 8 && input.readUInt32BE(0) === 0xd0cf11e0 && input.readUInt32BE(4) === 0xa1b11ae1) {
        // An OLE compound file: Office writes password-protected documents this way, and the legacy binary formats.
        throw new DocumentFormatError(`The file is not a ${kind.name} package: it is password protected or a legacy binary Office file.`);
      }
      if (input.length < 4 || input.readUInt32LE(0) !== 0x04034b50) {
        throw new DocumentFormatError(`The file is not a ${kind.name} document (it is not a ZIP package).`);
      }
      const pkg = await openPackage(input, what, options.archiveLimits);
      const typesEntry = pkg.entries.find((e) => e.name === '[Content_Types].xml');
      if (!typesEntry) throw new DocumentFormatError(`The file is not a ${kind.name} document ([Content_Types].xml is missing).`);
      const typeOf = contentTypes((await pkg.read(typesEntry)).toString('utf8'), what);
      const files = pkg.entries.filter((e) => !e.directory);
      if (!files.some((e) => kind.main.test(typeOf(e.name) ?? ''))) {
        throw new DocumentFormatError(`The file is not a ${kind.name} document (its main part is missing).`);
      }
      const watermark = kind.id === 'docx' && options.watermark === true;

      // Only the entries are kept between extraction and translation: each part is read again, window by window.
      const parts: PackageEntry[] = [];
      const segments: ExtractedDocument['segments'] = [];
      let characters = 0;
      for (const entry of files) {
        const type = typeOf(entry.name) ?? '';
        if (!kind.text.test(type)) continue;
        // A worksheet holds text only in inline strings; the others keep their text in sharedStrings.xml.
        if (type.endsWith('spreadsheetml.worksheet+xml') && !(await pkg.read(entry)).includes('inlineStr')) continue;
        const { stream } = await openPart(pkg, entry, what, options.targetLang);
        let units = 0;
        for (let w = stream.next(); w; w = stream.next()) {
          for (const u of w.units) {
            segments.push({ text: u.text, kind: 'text' });
            characters += countCodePoints(u.text);
          }
          units += w.units.length;
        }
        if (units > 0 || (watermark && stream.hasBody)) parts.push(entry);
      }

      /** Renders every text part with its translated units, a batch of windows at a time, and writes the package. */
      const build = async (translateUnits: (units: TaggedText[], lineBreaks: number[][]) => Promise<TaggedText[]>): Promise<Buffer> => {
        const replaced = new Map<string, Buffer>();
        /** Parts read to their end whose windows are not all rendered yet. */
        const read: OpenPart[] = [];
        let batch: PartWindow[] = [];
        let size = 0;
        const finishRead = () => {
          for (const part of read) replaced.set(part.entry.name, part.encode(part.stream.finish(watermark ? watermarkParagraph : undefined)));
          read.length = 0;
        };
        const flush = async () => {
          const units = batch.flatMap((w) => w.units);
          const outputs = units.length > 0 ? await translateUnits(units, batch.flatMap((w) => w.lineBreaks)) : [];
          let k = 0;
          for (const w of batch) {
            w.render(outputs.slice(k, k + w.units.length));
            k += w.units.length;
          }
          batch = [];
          size = 0;
          finishRead();
        };
        for (const entry of parts) {
          const part = await openPart(pkg, entry, what, options.targetLang);
          for (let w = part.stream.next(); w; w = part.stream.next()) {
            batch.push(w);
            size += w.size;
            if (size >= BATCH_SOURCE_CHARS) await flush();
          }
          read.push(part);
          if (batch.length === 0) finishRead();
        }
        await flush();
        return pkg.write(replaced);
      };

      return {
        segments,
        characters,
        rebuild(translations) {
          // Without tag placement (callers that do not use translateWith): inline tags keep their relative places.
          let n = 0;
          return build(async (units) =>
            units.map((u) => {
              const t = translations[n++] ?? u.text;
              const scale = t.length / Math.max(1, u.text.length);
              return { text: t, marks: u.marks.map((m) => ({ ...m, pos: nearestBoundary(t, Math.round(m.pos * scale)) })) };
            }),
          );
        },
        translateWith(translate) {
          // A paragraph's lines (between line breaks) are translated apart: each keeps its own formatting.
          return build((units, lineBreaks) => {
            const breaks = new Map(units.map((u, i) => [u, lineBreaks[i]!]));
            return translateInPieces(units, (u) => lineRanges(u.text, breaks.get(u)!), (pieces) => translateTagged(pieces, translate, 'realign'));
          });
        },
      };
    },
  };
}

export const docxFormat = ooxmlFormat(KINDS[0]!);
export const pptxFormat = ooxmlFormat(KINDS[1]!);
export const xlsxFormat = ooxmlFormat(KINDS[2]!);
