// Zip packages (IDML) read with yauzl under hard limits (zip bombs, forged sizes, truncated archives) and written back
// with yazl in the same entry order, each part's bytes unchanged unless the format replaced them.
import yauzl from 'yauzl';
import yazl from 'yazl';
import { DocumentFormatError } from '../format.js';

export interface ZipPart {
  name: string;
  data: Buffer;
  /** Stored (method 0) in the source: written back stored. */
  stored: boolean;
  mtime: Date;
  isDirectory: boolean;
}

export interface ZipLimits {
  maxEntries: number;
  /** Sum of the declared (and enforced) uncompressed sizes. */
  maxTotalBytes: number;
  /** Largest uncompressed/compressed ratio of an entry bigger than 1 MiB. */
  maxRatio: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = { maxEntries: 10_000, maxTotalBytes: 256 * 1024 * 1024, maxRatio: 200 };

/** Reads every entry of a zip archive into memory; any damage or limit breach is a DocumentFormatError. */
export async function readZip(input: Buffer, what: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<ZipPart[]> {
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
      yauzl.fromBuffer(input, { lazyEntries: true, validateEntrySizes: true, decodeStrings: true }, (err, z) => (err ? reject(err) : resolve(z)));
    });
  } catch (err) {
    throw new DocumentFormatError(`The ${what} file is not a readable zip package (${(err as Error).message}).`);
  }
  if (zip.entryCount > limits.maxEntries) throw new DocumentFormatError(`The ${what} file has too many parts (${zip.entryCount}; at most ${limits.maxEntries}).`);
  const entries: yauzl.Entry[] = [];
  let total = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        total += entry.uncompressedSize;
        if (total > limits.maxTotalBytes) return reject(new DocumentFormatError(`The ${what} file unpacks to more than ${limits.maxTotalBytes / 1024 / 1024} MiB.`));
        if (entry.uncompressedSize > 1024 * 1024 && entry.uncompressedSize > limits.maxRatio * Math.max(1, entry.compressedSize)) {
          return reject(new DocumentFormatError(`The ${what} file looks like a zip bomb (part ${entry.fileName} is compressed more than ${limits.maxRatio}:1).`));
        }
        if (entry.isEncrypted()) return reject(new DocumentFormatError(`The ${what} file has encrypted parts.`));
        if (!entry.canDecodeFileData()) return reject(new DocumentFormatError(`The ${what} file uses an unsupported compression method.`));
        entries.push(entry);
        zip.readEntry();
      });
      zip.readEntry();
    });
    const parts: ZipPart[] = [];
    for (const entry of entries) {
      const isDirectory = entry.fileName.endsWith('/');
      const data = isDirectory ? Buffer.alloc(0) : await readEntry(zip, entry);
      parts.push({ name: entry.fileName, data, stored: entry.compressionMethod === 0, mtime: entry.getLastModDate(), isDirectory });
    }
    return parts;
  } catch (err) {
    if (err instanceof DocumentFormatError) throw err;
    throw new DocumentFormatError(`The ${what} file is damaged (${(err as Error).message}).`);
  } finally {
    zip.close();
  }
}

async function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) => {
    zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s)));
  });
  // yauzl errors the stream when the data exceeds (or falls short of) the declared size, so memory stays bounded.
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Writes the parts in order; `storedFirst` (e.g. "mimetype") is moved first and stored without extra fields. */
export async function writeZip(parts: ZipPart[], storedFirst?: string): Promise<Buffer> {
  const out = new yazl.ZipFile();
  const first = parts.filter((p) => p.name === storedFirst);
  for (const p of [...first, ...parts.filter((q) => q.name !== storedFirst)]) {
    if (p.isDirectory) out.addEmptyDirectory(p.name, { mtime: p.mtime });
    else if (p.name === storedFirst) out.addBuffer(p.data, p.name, { mtime: p.mtime, compress: false, forceDosTimestamp: true });
    else out.addBuffer(p.data, p.name, { mtime: p.mtime, compress: !p.stored });
  }
  out.end();
  const chunks: Buffer[] = [];
  for await (const chunk of out.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
