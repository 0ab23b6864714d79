// Test helper: reads every entry of a ZIP (name, content) and writes one from entries, with yauzl/yazl as the formats do.
import yauzl from 'yauzl';
import yazl from 'yazl';
import { constants as zlibConstants, crc32, deflateRawSync } from 'node:zlib';

export async function unzipAll(buf: Buffer): Promise<[string, Buffer][]> {
  const zip = await yauzl.fromBufferPromise(buf, { lazyEntries: true });
  const out: [string, Buffer][] = [];
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.endsWith('/')) continue;
    const chunks: Buffer[] = [];
    for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
    out.push([entry.fileName, Buffer.concat(chunks)]);
  }
  return out;
}

export function zipOf(entries: [string, Buffer | string][]): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const [name, data] of entries) z.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), name);
  z.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    z.outputStream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
}

const W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const DOCX_CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const DOCX_RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

/** The smallest docx Word and the docx format read: content types, the package relationship and `word/document.xml`. */
export function minimalDocx(bodyXml: string): Promise<Buffer> {
  return zipOf([
    ['[Content_Types].xml', DOCX_CONTENT_TYPES],
    ['_rels/.rels', DOCX_RELS],
    ['word/document.xml', `<?xml version="1.0" encoding="UTF-8"?><w:document ${W_NS}><w:body>${bodyXml}<w:sectPr/></w:body></w:document>`],
  ]);
}

/** One entry of a zip written byte by byte: `data` as stored (already deflated for method 8), sizes as declared. */
export interface RawZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: 0 | 8;
  data: Buffer;
  /** The uncompressed size the headers declare (true or forged). */
  declaredSize: number;
  /** CRC-32 of the uncompressed content (0 for hostile entries: no reader under test gets to their end). */
  crc?: number;
}

function signature(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value);
  return b;
}

/**
 * A zip whose headers say what the test wants, true or not (yazl would write the true sizes): hostile archives are
 * made at test time, never checked in.
 */
export function rawZip(entries: RawZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    // The fields a local header and its central directory record share: version needed, flags, method, time, date,
    // CRC, sizes, name and extra lengths.
    const shared = Buffer.alloc(26);
    shared.writeUInt16LE(20, 0);
    shared.writeUInt16LE(e.method, 4);
    shared.writeUInt32LE(e.crc ?? 0, 10);
    shared.writeUInt32LE(e.data.length, 14);
    shared.writeUInt32LE(e.declaredSize, 18);
    shared.writeUInt16LE(name.length, 22);
    const local = Buffer.concat([signature(0x04034b50), shared]);
    const record = Buffer.concat([signature(0x02014b50), Buffer.from([20, 0]), shared, Buffer.alloc(14)]);
    record.writeUInt32LE(offset, 42);
    locals.push(local, name, e.data);
    central.push(record, name);
    offset += local.length + name.length + e.data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.concat([signature(0x06054b50), Buffer.alloc(18)]);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * Raw deflate data that inflates to `chunk` repeated `times` times: the chunk is compressed once with a full flush
 * (no reference before it), so its bytes repeat; a final empty block ends the stream. 2 GiB of zeros take 2 MB.
 */
export function deflatedRepeats(chunk: Buffer, times: number): Buffer {
  const block = deflateRawSync(chunk, { finishFlush: zlibConstants.Z_FULL_FLUSH });
  return Buffer.concat([...Array<Buffer>(times).fill(block), Buffer.from([0x03, 0x00])]);
}

/** A deflated entry with its true size. */
export function deflatedEntry(name: string, content: Buffer | string): RawZipEntry {
  const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
  return { name, method: 8, data: deflateRawSync(data), declaredSize: data.length, crc: crc32(data) };
}

/** The parts of minimalDocx, as deflated entries to put beside hostile ones. */
export function minimalDocxEntries(bodyXml: string): RawZipEntry[] {
  return [
    deflatedEntry('[Content_Types].xml', DOCX_CONTENT_TYPES),
    deflatedEntry('_rels/.rels', DOCX_RELS),
    deflatedEntry('word/document.xml', `<?xml version="1.0" encoding="UTF-8"?><w:document ${W_NS}><w:body>${bodyXml}<w:sectPr/></w:body></w:document>`),
  ];
}

/**
 * A docx of `paragraphs` short paragraphs (three to seven words of FLORES sentences, in turn; every seventh with a
 * bold word): the shape of a long table or list exported to Word, ~15 bytes compressed per paragraph.
 */
export function manyParagraphsDocx(sentences: readonly string[], paragraphs: number): Promise<Buffer> {
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const body: string[] = [];
  for (let i = 0; i < paragraphs; i++) {
    const text = escape(sentences[i % sentences.length]!.split(' ').slice(0, 3 + (i % 5)).join(' '));
    body.push(
      i % 7 === 0
        ? `<w:p><w:r><w:t xml:space="preserve">${text} </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>bold</w:t></w:r></w:p>`
        : `<w:p><w:r><w:t>${text}</w:t></w:r></w:p>`,
    );
  }
  return minimalDocx(body.join(''));
}
