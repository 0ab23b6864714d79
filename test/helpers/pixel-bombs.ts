// Hostile documents for the pixel limits, made at test time (no large binaries in the repository): PDFs of giant
// blank pages, PDFs whose one image expands to hundreds of megabytes or claims gigabytes, and PNG/JPEG/TIFF
// decompression bombs (a small file declaring huge dimensions). Each is a well-formed file of its format, so a reader
// that trusts it does the work it asks for.
import { createDeflate, deflateSync } from 'node:zlib';

/** The biggest page PDF allows (ISO 32000: 14,400 units of 1/72 inch, 200 inches). */
export const PDF_MAX_PAGE_PT = 14_400;

/** A PDF from its objects' bodies (object k+1 is bodies[k]; object 1 is the catalog), with a correct xref table. */
function pdfOf(bodies: readonly (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let at = parts[0]!.length;
  const offsets: number[] = [];
  bodies.forEach((body, k) => {
    offsets.push(at);
    const chunk = Buffer.concat([Buffer.from(`${k + 1} 0 obj\n`, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'), Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(chunk);
    at += chunk.length;
  });
  const xref = [`xref\n0 ${bodies.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<</Size ${bodies.length + 1}/Root 1 0 R>>\nstartxref\n${at}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/** `pages` blank pages of `width`×`height` points, without any text layer (so a reader sends them to OCR). */
export function blankPagesPdf(pages: number, width: number, height = width): Buffer {
  const pageIds = Array.from({ length: pages }, (_, k) => k + 3);
  return pdfOf([
    '<</Type/Catalog/Pages 2 0 R>>',
    `<</Type/Pages/Kids[${pageIds.map((id) => `${id} 0 R`).join(' ')}]/Count ${pages}>>`,
    ...pageIds.map(() => `<</Type/Page/Parent 2 0 R/MediaBox[0 0 ${width} ${height}]>>`),
  ]);
}

/** `length` zero bytes through deflate, in pieces (the zeros are never held at once). */
async function deflatedZeros(length: number, rowBytes = 1 << 20): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const done = new Promise<void>((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  const zeros = Buffer.alloc(Math.min(rowBytes, length));
  for (let left = length; left > 0; left -= zeros.length) {
    if (!deflate.write(left >= zeros.length ? zeros : zeros.subarray(0, left))) await new Promise((r) => deflate.once('drain', r));
  }
  deflate.end();
  await done;
  return Buffer.concat(out);
}

/** One A4 page painted with one image (its dictionary entries and data as given), and no text layer: it goes to OCR. */
function imagePagePdf(imageDict: string, data: Buffer, bits = 8): Buffer {
  const content = 'q 595 0 0 842 0 0 cm /Im1 Do Q';
  return pdfOf([
    '<</Type/Catalog/Pages 2 0 R>>',
    '<</Type/Pages/Kids[3 0 R]/Count 1>>',
    '<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]/Resources<</XObject<</Im1 4 0 R>>>>/Contents 5 0 R>>',
    Buffer.concat([
      Buffer.from(`<</Type/XObject/Subtype/Image${imageDict}/ColorSpace/DeviceGray/BitsPerComponent ${bits}/Length ${data.length}>>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream', 'latin1'),
    ]),
    `<</Length ${content.length}>>\nstream\n${content}\nendstream`,
  ]);
}

/** One JBIG2 segment header (ITU T.88 7.2: number, type, no referred segments, page 1) and its data. */
function jbig2Segment(number: number, type: number, data: Buffer): Buffer {
  const head = Buffer.alloc(11);
  head.writeUInt32BE(number, 0);
  head[4] = type;
  head[5] = 0; // no referred-to segments
  head[6] = 1; // page 1
  head.writeUInt32BE(data.length, 7);
  return Buffer.concat([head, data]);
}

/**
 * JBIG2 data as PDF embeds it (segments, no file header) whose page and immediate generic region are `width`×`height`
 * pixels: a few dozen bytes, and a decoder that trusts them allocates width × height bits for the page and as many
 * bytes for the region.
 */
export function jbig2Bomb(width: number, height: number): Buffer {
  const page = Buffer.alloc(19);
  page.writeUInt32BE(width, 0);
  page.writeUInt32BE(height, 4);
  const region = Buffer.alloc(17 + 1 + 8 + 4);
  region.writeUInt32BE(width, 0);
  region.writeUInt32BE(height, 4);
  region[18] = 3; // AT pixel 1 at (3, -1), as template 0 has by default
  region[19] = 0xff;
  return Buffer.concat([jbig2Segment(0, 48, page), jbig2Segment(1, 38, region), jbig2Segment(2, 49, Buffer.alloc(0))]);
}

/** A page painted with a JBIG2 image of `dict` pixels a side by its dictionary and `side` by its own segments. */
export function jbig2Pdf(dict: number, side: number): Buffer {
  return imagePagePdf(`/Width ${dict}/Height ${dict}/Filter/JBIG2Decode`, jbig2Bomb(side, side), 1);
}

/**
 * A page painted with a CCITT fax image of `dict` pixels a side by its dictionary whose parameters declare `columns`
 * × `rows` (a decoder allocates its coding lines from Columns); the data is a few bytes of white runs.
 */
export function ccittPdf(dict: number, columns: number, rows: number): Buffer {
  return imagePagePdf(`/Width ${dict}/Height ${dict}/Filter/CCITTFaxDecode/DecodeParms<</K -1/Columns ${columns}/Rows ${rows}>>`, Buffer.alloc(64, 0xff), 1);
}

/** The same CCITT data drawn as an inline image (BI … ID … EI), its dictionary saying 100×100 and `columns` wide. */
export function inlineCcittPdf(columns: number): Buffer {
  const content = Buffer.concat([
    Buffer.from(`q 595 0 0 842 0 0 cm BI /W 100 /H 100 /CS /G /BPC 1 /F /CCF /DP <</K -1 /Columns ${columns}>> ID `, 'latin1'),
    Buffer.alloc(64, 0xff),
    Buffer.from(' EI Q', 'latin1'),
  ]);
  return pdfOf([
    '<</Type/Catalog/Pages 2 0 R>>',
    '<</Type/Pages/Kids[3 0 R]/Count 1>>',
    '<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]/Contents 4 0 R>>',
    Buffer.concat([Buffer.from(`<</Length ${content.length}>>\nstream\n`, 'latin1'), content, Buffer.from('\nendstream', 'latin1')]),
  ]);
}

/** A page painted with a grey Flate image of `side`×`side` zero pixels: hundreds of kilobytes that decode to side² bytes. */
export async function imageBombPdf(side: number): Promise<Buffer> {
  return imagePagePdf(`/Width ${side}/Height ${side}/Filter/FlateDecode`, await deflatedZeros(side * side));
}

/**
 * A page painted with a JPEG whose dictionary says 100×100 pixels while its own frame header says `side`×`side`:
 * under a kilobyte, and a decoder that trusts the frame header allocates gigabytes.
 */
export function lyingJpegPdf(side: number): Buffer {
  return imagePagePdf('/Width 100/Height 100/Filter/DCTDecode', jpegBomb(side, side));
}

/** The same JPEG drawn as an inline image (BI … ID … EI) in the page's content stream, its dictionary saying 100×100. */
export function lyingInlineJpegPdf(side: number): Buffer {
  const content = Buffer.concat([Buffer.from('q 595 0 0 842 0 0 cm BI /W 100 /H 100 /CS /G /BPC 8 /F /DCT ID ', 'latin1'), jpegBomb(side, side), Buffer.from(' EI Q', 'latin1')]);
  return pdfOf([
    '<</Type/Catalog/Pages 2 0 R>>',
    '<</Type/Pages/Kids[3 0 R]/Count 1>>',
    '<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]/Contents 4 0 R>>',
    Buffer.concat([Buffer.from(`<</Length ${content.length}>>\nstream\n`, 'latin1'), content, Buffer.from('\nendstream', 'latin1')]),
  ]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A valid greyscale PNG of `width`×`height` black pixels: every row (filter byte + zeros) deflated, a few KB per 100 MB. */
export async function pngBomb(width: number, height: number): Promise<Buffer> {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bits per sample
  ihdr[9] = 0; // greyscale
  // filter type 0 on every row is a zero byte too, so the whole image data is zeros
  const idat = await deflatedZeros((width + 1) * height);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))]);
}

/**
 * A baseline JPEG declaring `width`×`height` (at most 65,535 each) with one grey component, one quantization and
 * one DC/AC Huffman table, and a scan of a few bytes: a decoder that trusts the frame header allocates the whole image.
 */
export function jpegBomb(width: number, height: number): Buffer {
  const segment = (marker: number, body: Buffer) => {
    const head = Buffer.from([0xff, marker, 0, 0]);
    head.writeUInt16BE(body.length + 2, 2);
    return Buffer.concat([head, body]);
  };
  const dqt = Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)]);
  const sof = Buffer.from([8, 0, 0, 0, 0, 1, 1, 0x11, 0]);
  sof.writeUInt16BE(height, 1);
  sof.writeUInt16BE(width, 3);
  // one code of length 1 for symbol 0, in both tables: every block is "DC difference 0, end of block"
  const huffman = (tableClass: number) => Buffer.concat([Buffer.from([tableClass << 4]), Buffer.from([1, ...Array(15).fill(0)]), Buffer.from([0])]);
  const sos = Buffer.from([1, 1, 0x00, 0, 63, 0]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xdb, dqt),
    segment(0xc0, sof),
    segment(0xc4, huffman(0)),
    segment(0xc4, huffman(1)),
    segment(0xda, sos),
    Buffer.alloc(64, 0),
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** A little-endian TIFF of `width`×`height` greyscale pixels in one Deflate strip of zeros (a few hundred KB per GB). */
export function tiffBomb(width: number, height: number): Buffer {
  // one strip of the first rows only: readers that allocate the declared size before reading strips are caught either way
  const strip = deflateSync(Buffer.alloc(Math.min(width * height, 16 << 20)), { level: 9 });
  const entries: [tag: number, type: number, value: number][] = [
    [256, 4, width], // ImageWidth (LONG)
    [257, 4, height], // ImageLength
    [258, 3, 8], // BitsPerSample (SHORT)
    [259, 3, 8], // Compression: Deflate
    [262, 3, 1], // PhotometricInterpretation: black is zero
    [273, 4, 0], // StripOffsets (set below)
    [277, 3, 1], // SamplesPerPixel
    [278, 4, height], // RowsPerStrip
    [279, 4, strip.length], // StripByteCounts
  ];
  const ifdOffset = 8;
  const ifd = Buffer.alloc(2 + entries.length * 12 + 4);
  const dataOffset = ifdOffset + ifd.length;
  ifd.writeUInt16LE(entries.length, 0);
  entries.forEach(([tag, type, value], k) => {
    const at = 2 + k * 12;
    ifd.writeUInt16LE(tag, at);
    ifd.writeUInt16LE(type, at + 2);
    ifd.writeUInt32LE(1, at + 4);
    if (type === 3) ifd.writeUInt16LE(value, at + 8);
    else ifd.writeUInt32LE(tag === 273 ? dataOffset : value, at + 8);
  });
  const header = Buffer.from([0x49, 0x49, 42, 0, ifdOffset, 0, 0, 0]);
  return Buffer.concat([header, ifd, strip]);
}
