// Images of a PDF whose data declares more pixels than their dictionary. pdf.js checks an image's size from its
// dictionary (maxImageSize) before decoding, but several of its decoders allocate what the data itself declares: JPEG
// and JPEG 2000 the size in their headers, JBIG2 the page and region sizes of its segments, CCITT fax the Columns of
// its parameters. An 800-byte file could claim 100000×100000 pixels and take gigabytes. Before pages are drawn, each
// such image gets the size its data declares written into its dictionary (in a copy used only for drawing), where
// pdf.js's own check then leaves it out; so every image filter goes through the one pixel budget. Inline images
// (BI … ID … EI inside a content stream) are checked the same way; a content stream holding one that claims too much
// is drawn as empty.
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, type PDFObject } from 'pdf-lib';
import { readImageHeader } from '../image/image-header.js';

/** Bytes decoded ahead of the image data (an outer Flate or ASCII filter) to find its header. */
const HEADER_PREFIX_BYTES = 1 << 20;
/** Bytes of a content stream looked through for inline images (a page's content is rarely over a few megabytes). */
const CONTENT_SCAN_BYTES = 64 << 20;
/** Written as the size of an image whose header cannot be found: larger than any cap, so it is left out. */
const UNKNOWN_SIZE = { width: 1 << 30, height: 1 };

type ImageCodec = 'DCTDecode' | 'JPXDecode' | 'JBIG2Decode' | 'CCITTFaxDecode';
const CODECS: readonly ImageCodec[] = ['DCTDecode', 'JPXDecode', 'JBIG2Decode', 'CCITTFaxDecode'];
type Size = { width: number; height: number };

/** JBIG2 segment types that start with a region segment information field (ITU T.88 7.4.1): their bitmap's size. */
const JBIG2_REGIONS = new Set([4, 6, 7, 20, 22, 23, 36, 38, 39, 40, 42, 43]);
const JBIG2_PAGE_INFORMATION = 48;

/**
 * The largest bitmap JBIG2 data (embedded in a PDF: segments without a file header) declares: its page and every
 * region, from the segment headers (T.88 7.2) alone. A page of unknown height (striped) counts as `height` rows.
 * Undefined when the headers cannot be read.
 */
function jbig2Size(data: Uint8Array, height: number): Size | undefined {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let largest: Size | undefined;
  const consider = (size: Size) => {
    if (!largest || size.width * size.height > largest.width * largest.height) largest = size;
  };
  for (let at = 0; at + 11 <= bytes.length; ) {
    const number = bytes.readUInt32BE(at);
    const flags = bytes[at + 4]!;
    const type = flags & 0x3f;
    let p = at + 5;
    let referred = bytes[p]! >> 5;
    if (referred === 7) {
      if (p + 4 > bytes.length) return undefined;
      referred = bytes.readUInt32BE(p) & 0x1fffffff;
      p += 4 + Math.ceil((referred + 1) / 8);
    } else p += 1;
    p += referred * (number <= 256 ? 1 : number <= 65536 ? 2 : 4) + (flags & 0x40 ? 4 : 1);
    if (p + 4 > bytes.length) return largest;
    const length = bytes.readUInt32BE(p);
    p += 4;
    if ((type === JBIG2_PAGE_INFORMATION || JBIG2_REGIONS.has(type)) && p + 8 <= bytes.length) {
      const h = bytes.readUInt32BE(p + 4);
      consider({ width: bytes.readUInt32BE(p), height: type === JBIG2_PAGE_INFORMATION && h === 0xffffffff ? height : h });
    }
    // an immediate generic region may leave its length unknown (0xffffffff): nothing after it is read
    if (length === 0xffffffff) return largest;
    at = p + length;
  }
  return largest;
}

/** A number among a filter's parameters (DecodeParms), undefined when absent. */
type Param = (key: string) => number | undefined;

/** The bitmap a CCITT fax decoder works on: Columns (default 1728) wide, Rows (or the image's height) high. */
function ccittSize(param: Param, height: number): Size {
  const rows = param('Rows') ?? 0;
  return { width: param('Columns') ?? 1728, height: rows > 0 ? rows : height };
}

/** The pixels an image's data declares, by its codec; undefined when its header cannot be read (left out). */
function declaredSize(codec: ImageCodec, data: Uint8Array, param: Param, height: number): Size | undefined {
  if (codec === 'DCTDecode') return jpegSize(data);
  if (codec === 'JPXDecode') return jpxSize(data);
  if (codec === 'JBIG2Decode') return jbig2Size(data, height);
  return ccittSize(param, height);
}

/** Pixel size from a JPEG 2000 codestream's SIZ marker (also inside a JP2 file's boxes). */
function jpxSize(data: Uint8Array): Size | undefined {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const siz = bytes.indexOf(Buffer.from([0xff, 0x4f, 0xff, 0x51]));
  if (siz < 0 || siz + 24 > bytes.length) return undefined;
  const at = siz + 2;
  // Lsiz(2) Rsiz(2) Xsiz(4) Ysiz(4) XOsiz(4) YOsiz(4)
  const [x, y, x0, y0] = [bytes.readUInt32BE(at + 6), bytes.readUInt32BE(at + 10), bytes.readUInt32BE(at + 14), bytes.readUInt32BE(at + 18)];
  return { width: Math.max(0, x - x0), height: Math.max(0, y - y0) };
}

function jpegSize(data: Uint8Array): Size | undefined {
  try {
    return readImageHeader(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  } catch {
    return undefined;
  }
}

/**
 * The image codec of a stream (its last filter), that filter's parameters, and the bytes its data starts with (the
 * filters before it undone).
 */
function imageData(stream: PDFRawStream): { codec: ImageCodec; param: Param; data: Uint8Array } | undefined {
  const filter = stream.dict.lookup(PDFName.of('Filter'));
  const filters = filter instanceof PDFArray ? filter.asArray() : filter ? [filter] : [];
  const last = filters[filters.length - 1];
  const codec = CODECS.find((c) => last === PDFName.of(c));
  if (!codec) return undefined;
  const params = stream.dict.lookup(PDFName.of('DecodeParms'));
  const own = params instanceof PDFArray ? params.lookup(filters.length - 1) : params;
  const param: Param = (key) => {
    const v = own instanceof PDFDict ? own.lookup(PDFName.of(key)) : undefined;
    return v instanceof PDFNumber ? v.asNumber() : undefined;
  };
  if (filters.length === 1) return { codec, param, data: stream.contents };
  // the same stream with its last filter (and that filter's parameters) left off
  const context = stream.dict.context;
  const outer = stream.dict.clone();
  const leading = (list: readonly PDFObject[]) => {
    const array = PDFArray.withContext(context);
    for (const item of list.slice(0, filters.length - 1)) array.push(item);
    return array;
  };
  outer.set(PDFName.of('Filter'), leading(filters));
  if (params instanceof PDFArray) outer.set(PDFName.of('DecodeParms'), leading(params.asArray()));
  else outer.delete(PDFName.of('DecodeParms'));
  try {
    // decoded lazily: only the first megabyte is produced, whatever the outer filters expand to
    const prefix = decodePDFRawStream(PDFRawStream.of(outer, stream.contents)).getBytes(HEADER_PREFIX_BYTES);
    return { codec, param, data: new Uint8Array(prefix.buffer, prefix.byteOffset, prefix.byteLength) };
  } catch {
    return { codec, param, data: new Uint8Array(0) };
  }
}

/** Streams that hold no drawing operators: images, font programs, colour profiles, metadata, cross-references. */
function isContentStream(stream: PDFRawStream): boolean {
  const d = stream.dict;
  const type = d.lookup(PDFName.of('Type'));
  const subtype = d.lookup(PDFName.of('Subtype'));
  if (subtype === PDFName.of('Image') || ['Metadata', 'XRef', 'ObjStm', 'EmbeddedFile'].some((t) => type === PDFName.of(t))) return false;
  return !['Length1', 'Length2', 'Length3', 'N'].some((key) => d.has(PDFName.of(key))) && (subtype === undefined || subtype === PDFName.of('Form'));
}

/** An inline image's filter names in a content stream (`/F /DCT`, `/Filter [/AHx /DCTDecode]`, `/F /CCF`). */
const INLINE_CODEC = /\/(?:F|Filter)\s*(?:\[[^\]]*)?\/(DCT|DCTDecode|JPX|JPXDecode|CCF|CCITTFaxDecode)\b/u;
const INLINE_NAMES: Record<string, ImageCodec> = { DCT: 'DCTDecode', JPX: 'JPXDecode', CCF: 'CCITTFaxDecode' };

/** A number written after `/key` (or its abbreviation) in an inline image's dictionary. */
function inlineNumber(dict: string, ...keys: string[]): number | undefined {
  const m = new RegExp(`/(?:${keys.join('|')})\\s+(\\d+)`, 'u').exec(dict);
  return m ? Number(m[1]) : undefined;
}
const INLINE_BEGIN = /(?:^|[\s\]>)])BI[\s/]/gu;
const INLINE_DATA = /\sID\s/gu;

/** Whether a content stream draws an inline JPEG, JPEG 2000 or CCITT image whose data declares more than `maxPixels`. */
function hasOversizedInlineImage(stream: PDFRawStream, maxPixels: number): boolean {
  let data: Buffer;
  try {
    const bytes = decodePDFRawStream(stream).getBytes(CONTENT_SCAN_BYTES);
    data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch {
    return false; // pdf.js cannot read it either
  }
  const text = data.toString('latin1');
  // one pass: each image's dictionary runs from BI to the next ID, and the search goes on after its data's start
  for (INLINE_BEGIN.lastIndex = 0; INLINE_BEGIN.exec(text); ) {
    INLINE_DATA.lastIndex = INLINE_BEGIN.lastIndex;
    const id = INLINE_DATA.exec(text);
    if (!id) return false;
    const dict = text.slice(INLINE_BEGIN.lastIndex, id.index);
    const name = INLINE_CODEC.exec(dict)?.[1];
    INLINE_BEGIN.lastIndex = INLINE_DATA.lastIndex;
    if (!name) continue;
    const codec = INLINE_NAMES[name] ?? (name as ImageCodec);
    const size = declaredSize(codec, data.subarray(INLINE_DATA.lastIndex), (key) => inlineNumber(dict, key), inlineNumber(dict, 'H', 'Height') ?? 0) ?? UNKNOWN_SIZE;
    if (size.width * size.height > maxPixels) return true;
  }
  return false;
}

/**
 * The PDF as given when no image's data declares more than `maxPixels`, else a copy in which those images'
 * dictionaries carry the size their data declares (so pdf.js leaves them out); an image whose header cannot be
 * read is treated as too large; a content stream with such an inline image is emptied.
 */
export async function withImageSizesChecked(input: Buffer, maxPixels: number): Promise<Buffer> {
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(input, { updateMetadata: false, ignoreEncryption: true });
  } catch {
    return input; // pdf.js will not open it either
  }
  let changed = false;
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream)) continue;
    if (isContentStream(object)) {
      if (!hasOversizedInlineImage(object, maxPixels)) continue;
      const empty = object.dict.clone();
      for (const key of ['Filter', 'DecodeParms', 'Length']) empty.delete(PDFName.of(key));
      doc.context.assign(ref, PDFRawStream.of(empty, new Uint8Array(0)));
      changed = true;
      continue;
    }
    if (object.dict.lookup(PDFName.of('Subtype')) !== PDFName.of('Image')) continue;
    const found = imageData(object);
    if (!found) continue;
    const height = object.dict.lookup(PDFName.of('Height'));
    const size = declaredSize(found.codec, found.data, found.param, height instanceof PDFNumber ? height.asNumber() : 0) ?? UNKNOWN_SIZE;
    if (size.width * size.height <= maxPixels) continue;
    object.dict.set(PDFName.of('Width'), PDFNumber.of(size.width));
    object.dict.set(PDFName.of('Height'), PDFNumber.of(size.height));
    changed = true;
  }
  return changed ? Buffer.from(await doc.save({ useObjectStreams: false })) : input;
}
