// The ZIP container of docx/pptx/xlsx: read with yauzl under size limits (zip bombs, forged sizes and truncated files
// become a DocumentFormatError), written back with yazl in the same entry order, untouched entries streamed through.
import yauzl from 'yauzl';
import yazl from 'yazl';
import { DocumentFormatError } from './format.js';

/** Entries in one package (a 300-slide deck with media has a few thousand). */
export const MAX_ENTRIES = 10_000;
/** Sum of the declared uncompressed sizes. */
export const MAX_UNCOMPRESSED_BYTES = 500 * 1024 * 1024;
/** An entry inflating more than this ratio (and past MIN_RATIO_CHECK_BYTES) is a zip bomb, not a document part. */
export const MAX_COMPRESSION_RATIO = 100;
const MIN_RATIO_CHECK_BYTES = 1024 * 1024;
/** Largest XML part read into memory for translation. */
export const MAX_PART_BYTES = 100 * 1024 * 1024;

export interface PackageEntry {
  name: string;
  directory: boolean;
  entry: yauzl.Entry;
}

export interface OoxmlPackage {
  entries: PackageEntry[];
  /** One entry's content (bounded by MAX_PART_BYTES). */
  read(entry: PackageEntry): Promise<Buffer>;
  /** The package with some entries replaced; every other entry is copied unchanged, in the original order. */
  write(replacements: ReadonlyMap<string, Buffer>): Promise<Buffer>;
}

function damaged(what: string, err: unknown): DocumentFormatError {
  if (err instanceof DocumentFormatError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new DocumentFormatError(`The ${what} file is damaged or not a ${what} document (${detail}).`);
}

function openZip(input: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(input, { lazyEntries: true, validateEntrySizes: true, decodeStrings: true }, (err, zip) => (err ? reject(err) : resolve(zip)));
  });
}

function listEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const out: yauzl.Entry[] = [];
    zip.on('entry', (e: yauzl.Entry) => {
      out.push(e);
      zip.readEntry();
    });
    zip.on('end', () => resolve(out));
    zip.on('error', reject);
    zip.readEntry();
  });
}

function openStream(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) => zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))));
}

/** Opens a package and checks its directory against the limits before any entry is inflated. */
export async function openPackage(input: Buffer, what: string): Promise<OoxmlPackage> {
  let zip: yauzl.ZipFile;
  let raw: yauzl.Entry[];
  try {
    zip = await openZip(input);
    if (zip.entryCount > MAX_ENTRIES) throw new DocumentFormatError(`The ${what} file has too many parts (more than ${MAX_ENTRIES}).`);
    raw = await listEntries(zip);
  } catch (err) {
    throw damaged(what, err);
  }
  let total = 0;
  for (const e of raw) {
    if (e.isEncrypted()) throw new DocumentFormatError(`The ${what} file is encrypted (password protected); it cannot be translated.`);
    if (!e.fileName.endsWith('/') && !e.canDecodeFileData()) {
      throw new DocumentFormatError(`The ${what} file uses a compression method this server cannot read.`);
    }
    total += e.uncompressedSize;
    const bomb = e.uncompressedSize > MIN_RATIO_CHECK_BYTES && e.uncompressedSize > MAX_COMPRESSION_RATIO * Math.max(1, e.compressedSize);
    if (total > MAX_UNCOMPRESSED_BYTES || bomb) {
      throw new DocumentFormatError(
        `The ${what} file unpacks to too much data (a zip bomb?): at most ${MAX_UNCOMPRESSED_BYTES / 1024 / 1024} MB in all and a compression ratio of ${MAX_COMPRESSION_RATIO}:1 per part.`,
      );
    }
  }
  const entries = raw.map((entry) => ({ name: entry.fileName, directory: entry.fileName.endsWith('/'), entry }));

  const read = async (pe: PackageEntry): Promise<Buffer> => {
    if (pe.entry.uncompressedSize > MAX_PART_BYTES) {
      throw new DocumentFormatError(`The ${what} part ${pe.name} is too large (more than ${MAX_PART_BYTES / 1024 / 1024} MB of XML).`);
    }
    try {
      const stream = await openStream(zip, pe.entry);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of stream as AsyncIterable<Buffer>) {
        size += c.length;
        // yauzl already stops at the declared size; this guards the bound independently of it.
        if (size > MAX_PART_BYTES) throw new DocumentFormatError(`The ${what} part ${pe.name} is too large.`);
        chunks.push(c);
      }
      return Buffer.concat(chunks);
    } catch (err) {
      throw damaged(what, err);
    }
  };

  const write = (replacements: ReadonlyMap<string, Buffer>): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const out = new yazl.ZipFile();
      let failed = false;
      const fail = (err: unknown) => {
        if (failed) return;
        failed = true;
        reject(damaged(what, err));
      };
      out.on('error', fail);
      const chunks: Buffer[] = [];
      out.outputStream.on('data', (c: Buffer) => chunks.push(c));
      out.outputStream.on('error', fail);
      out.outputStream.on('end', () => {
        if (!failed) resolve(Buffer.concat(chunks));
      });
      try {
        for (const pe of entries) {
          const mtime = pe.entry.getLastModDate();
          if (pe.directory) {
            out.addEmptyDirectory(pe.name, { mtime });
            continue;
          }
          const replaced = replacements.get(pe.name);
          if (replaced) {
            out.addBuffer(replaced, pe.name, { mtime, compress: true });
            continue;
          }
          // Untouched parts (media included) are inflated and deflated again one at a time, content unchanged.
          out.addReadStreamLazy(pe.name, { mtime, compress: pe.entry.compressionMethod !== 0, size: pe.entry.uncompressedSize }, (cb) => {
            zip.openReadStream(pe.entry, (err, stream) => {
              if (err) {
                fail(err);
                return;
              }
              stream.on('error', fail);
              cb(null, stream);
            });
          });
        }
        out.end();
      } catch (err) {
        fail(err);
      }
    });

  return { entries, read, write };
}
