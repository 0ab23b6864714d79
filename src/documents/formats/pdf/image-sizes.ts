// Images of a PDF whose data declares more pixels than their dictionary. pdf.js checks an image's size from its
// dictionary (maxImageSize) before decoding, but its JPEG and JPEG 2000 decoders allocate what the data's own header
// declares: an 800-byte file could claim 20000×20000 pixels and take gigabytes. Before pages are drawn, each such
// image gets the size its data declares written into its dictionary (in a copy used only for drawing), where pdf.js's
// own check then leaves it out. Inline images (BI … ID … EI inside a content stream) are checked the same way; a
// content stream holding one that claims too much is drawn as empty.
import { decodePDFRawStream, PDFArray, PDFDocument, PDFName, PDFNumber, PDFRawStream, type PDFObject } from 'pdf-lib';
import { readImageHeader } from '../image/image-header.js';

/** Bytes decoded ahead of the image data (an outer Flate or ASCII filter) to find its header. */
const HEADER_PREFIX_BYTES = 1 << 20;
/** Bytes of a content stream looked through for inline images (a page's content is rarely over a few megabytes). */
const CONTENT_SCAN_BYTES = 64 << 20;
/** Written as the size of an image whose header cannot be found: larger than any cap, so it is left out. */
const UNKNOWN_SIZE = { width: 1 << 30, height: 1 };

type ImageCodec = 'DCTDecode' | 'JPXDecode';

/** Pixel size from a JPEG 2000 codestream's SIZ marker (also inside a JP2 file's boxes). */
function jpxSize(data: Uint8Array): { width: number; height: number } | undefined {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const siz = bytes.indexOf(Buffer.from([0xff, 0x4f, 0xff, 0x51]));
  if (siz < 0 || siz + 24 > bytes.length) return undefined;
  const at = siz + 2;
  // Lsiz(2) Rsiz(2) Xsiz(4) Ysiz(4) XOsiz(4) YOsiz(4)
  const [x, y, x0, y0] = [bytes.readUInt32BE(at + 6), bytes.readUInt32BE(at + 10), bytes.readUInt32BE(at + 14), bytes.readUInt32BE(at + 18)];
  return { width: Math.max(0, x - x0), height: Math.max(0, y - y0) };
}

function jpegSize(data: Uint8Array): { width: number; height: number } | undefined {
  try {
    return readImageHeader(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  } catch {
    return undefined;
  }
}

/** The image codec of a stream (its last filter) and the bytes its data starts with (the filters before it undone). */
function imageData(stream: PDFRawStream): { codec: ImageCodec; data: Uint8Array } | undefined {
  const filter = stream.dict.lookup(PDFName.of('Filter'));
  const filters = filter instanceof PDFArray ? filter.asArray() : filter ? [filter] : [];
  const last = filters[filters.length - 1];
  const codec = last === PDFName.of('DCTDecode') ? 'DCTDecode' : last === PDFName.of('JPXDecode') ? 'JPXDecode' : undefined;
  if (!codec) return undefined;
  if (filters.length === 1) return { codec, data: stream.contents };
  // the same stream with its last filter (and that filter's parameters) left off
  const context = stream.dict.context;
  const outer = stream.dict.clone();
  const leading = (list: readonly PDFObject[]) => {
    const array = PDFArray.withContext(context);
    for (const item of list.slice(0, filters.length - 1)) array.push(item);
    return array;
  };
  outer.set(PDFName.of('Filter'), leading(filters));
  const params = stream.dict.lookup(PDFName.of('DecodeParms'));
  if (params instanceof PDFArray) outer.set(PDFName.of('DecodeParms'), leading(params.asArray()));
  else outer.delete(PDFName.of('DecodeParms'));
  try {
    // decoded lazily: only the first megabyte is produced, whatever the outer filters expand to
    const prefix = decodePDFRawStream(PDFRawStream.of(outer, stream.contents)).getBytes(HEADER_PREFIX_BYTES);
    return { codec, data: new Uint8Array(prefix.buffer, prefix.byteOffset, prefix.byteLength) };
  } catch {
    return { codec, data: new Uint8Array(0) };
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

/** An inline image's filter names in a content stream (`/F /DCT`, `/Filter [/AHx /DCTDecode]`). */
const INLINE_CODEC = /\/(?:F|Filter)\s*(?:\[[^\]]*)?\/(DCT|DCTDecode|JPX|JPXDecode)\b/u;
const INLINE_BEGIN = /(?:^|[\s\]>)])BI[\s/]/gu;
const INLINE_DATA = /\sID\s/gu;

/** Whether a content stream draws an inline JPEG or JPEG 2000 image whose data declares more than `maxPixels`. */
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
    const codec = INLINE_CODEC.exec(text.slice(INLINE_BEGIN.lastIndex, id.index))?.[1];
    INLINE_BEGIN.lastIndex = INLINE_DATA.lastIndex;
    if (!codec) continue;
    const image = data.subarray(INLINE_DATA.lastIndex);
    const size = (codec.startsWith('DCT') ? jpegSize(image) : jpxSize(image)) ?? UNKNOWN_SIZE;
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
    const size = (found.codec === 'DCTDecode' ? jpegSize(found.data) : jpxSize(found.data)) ?? UNKNOWN_SIZE;
    if (size.width * size.height <= maxPixels) continue;
    object.dict.set(PDFName.of('Width'), PDFNumber.of(size.width));
    object.dict.set(PDFName.of('Height'), PDFNumber.of(size.height));
    changed = true;
  }
  return changed ? Buffer.from(await doc.save({ useObjectStreams: false })) : input;
}
