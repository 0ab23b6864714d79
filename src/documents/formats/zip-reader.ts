// Zip archives (docx, pptx, xlsx, IDML, model archives) read with yauzl under limits checked twice: against the
// central directory's declared sizes before anything is inflated, and on the bytes as they come out of the inflater.
// Each entry's stream is stopped the moment it passes its declared size, so the sum of what is inflated can never
// pass the sum of the declared sizes, which is checked first: a forged size cannot carry a bomb past the limits.
import { Transform, type Readable } from 'node:stream';
import yauzl from 'yauzl';
import { DocumentFormatError } from './format.js';

const MIB = 1024 * 1024;

export interface ArchiveLimits {
  /** Entries in one archive. */
  maxEntries: number;
  /** Decompressed bytes of all entries together. */
  maxTotalBytes: number;
  /** Decompressed bytes of one entry (a part read into memory, or media streamed through). */
  maxEntryBytes: number;
  /** Decompressed/compressed size of one entry larger than RATIO_CHECK_BYTES (real XML stays far below 100:1). */
  maxRatio: number;
}

/** The defaults of TOLK_DOCUMENT_ARCHIVE_ENTRIES, _UNPACKED_MB, _PART_MB and _COMPRESSION_RATIO. */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxEntries: 10_000, maxTotalBytes: 512 * MIB, maxEntryBytes: 100 * MIB, maxRatio: 100 };

/** Small entries compress as they like (a run of blank cells); the ratio is checked on larger ones only. */
const RATIO_CHECK_BYTES = MIB;

export interface ZipArchive {
  readonly entries: readonly yauzl.Entry[];
  /** The entry's inflated bytes as a stream, ended with a DocumentFormatError the moment a limit is passed. */
  open(entry: yauzl.Entry): Promise<Readable>;
  /** The entry's inflated bytes, bounded in the same way. */
  read(entry: yauzl.Entry): Promise<Buffer>;
}

function sizeText(bytes: number): string {
  return bytes >= MIB ? `${Math.round((bytes / MIB) * 10) / 10} MiB` : `${bytes} bytes`;
}

/** What a limit stopped, naming the limit (the job's error message). */
function overLimit(what: string, entry: yauzl.Entry, inflated: number, limits: ArchiveLimits): DocumentFormatError | undefined {
  const part = `The ${what} part ${entry.fileName}`;
  if (inflated > limits.maxEntryBytes) return new DocumentFormatError(`${part} unpacks to more than ${sizeText(limits.maxEntryBytes)}, the limit for one part.`);
  if (inflated > RATIO_CHECK_BYTES && inflated > limits.maxRatio * Math.max(1, entry.compressedSize)) {
    return new DocumentFormatError(`${part} is compressed more than ${limits.maxRatio}:1, the limit for one part (a zip bomb?).`);
  }
  return undefined;
}

/** Any failure reading an archive as the client's: a DocumentFormatError (limits keep their own message). */
export function damagedArchive(what: string, err: unknown): DocumentFormatError {
  if (err instanceof DocumentFormatError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new DocumentFormatError(`The ${what} file is damaged or not a ${what} package (${detail}).`);
}

/** Checks one central directory record; `total` is the sum of the declared sizes up to and including it. */
function checkDeclared(what: string, entry: yauzl.Entry, total: number, limits: ArchiveLimits): void {
  const over = overLimit(what, entry, entry.uncompressedSize, limits);
  if (over) throw over;
  if (total > limits.maxTotalBytes) {
    throw new DocumentFormatError(`The ${what} file unpacks to more than ${sizeText(limits.maxTotalBytes)}, the limit for all its parts together (a zip bomb?).`);
  }
  if (entry.isEncrypted()) throw new DocumentFormatError(`The ${what} file is encrypted (password protected); it cannot be translated.`);
  if (!entry.fileName.endsWith('/') && !entry.canDecodeFileData()) throw new DocumentFormatError(`The ${what} file uses a compression method this server cannot read.`);
}

/**
 * Counts an entry's inflated bytes: past its declared size (a forged header), its limit or the ratio it errors at
 * once; short of the declared size at the end, the archive is damaged.
 */
function counted(what: string, entry: yauzl.Entry, limits: ArchiveLimits): Transform {
  let inflated = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      inflated += chunk.length;
      if (inflated > entry.uncompressedSize) {
        return done(new DocumentFormatError(`The ${what} part ${entry.fileName} unpacks to more than the ${entry.uncompressedSize} bytes its header declares (a forged size: a zip bomb?).`));
      }
      done(overLimit(what, entry, inflated, limits) ?? null, chunk);
    },
    flush(done) {
      done(inflated < entry.uncompressedSize ? damagedArchive(what, new Error(`${entry.fileName} is shorter than its declared size`)) : null);
    },
  });
}

/** Opens an archive and checks its whole central directory against the limits before any entry is inflated. */
export async function openZipArchive(input: Buffer, what: string, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): Promise<ZipArchive> {
  let zip: yauzl.ZipFile;
  try {
    // Entry sizes are checked by `counted` (a message naming the limit), not by yauzl's own check.
    zip = await yauzl.fromBufferPromise(input, { lazyEntries: true, validateEntrySizes: false, decodeStrings: true });
  } catch (err) {
    throw damagedArchive(what, err);
  }
  if (zip.entryCount > limits.maxEntries) throw new DocumentFormatError(`The ${what} file has too many parts (${zip.entryCount}; the limit is ${limits.maxEntries}).`);
  const entries: yauzl.Entry[] = [];
  let total = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      total += entry.uncompressedSize;
      checkDeclared(what, entry, total, limits);
      entries.push(entry);
    }
  } catch (err) {
    throw damagedArchive(what, err);
  }

  const open = async (entry: yauzl.Entry): Promise<Readable> => {
    let raw: Readable;
    try {
      raw = await zip.openReadStreamPromise(entry);
    } catch (err) {
      throw damagedArchive(what, err);
    }
    const out = counted(what, entry, limits);
    // Errors of the inflater (corrupt data) end the counted stream as damage; a stopped stream stops inflating.
    raw.on('error', (err) => out.destroy(damagedArchive(what, err)));
    out.on('close', () => raw.destroy());
    return raw.pipe(out);
  };

  const read = async (entry: yauzl.Entry): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of await open(entry)) chunks.push(chunk as Buffer);
    } catch (err) {
      throw damagedArchive(what, err);
    }
    return Buffer.concat(chunks);
  };

  return { entries, open, read };
}
