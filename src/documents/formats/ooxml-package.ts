// The ZIP container of docx/pptx/xlsx: read under the archive limits of zip-reader.ts (zip bombs, forged sizes and
// truncated files become a DocumentFormatError), written back with yazl in the same entry order, untouched entries
// streamed through.
import type yauzl from 'yauzl';
import yazl from 'yazl';
import { damagedArchive, openZipArchive, type ArchiveLimits } from './zip-reader.js';

export interface PackageEntry {
  name: string;
  directory: boolean;
  entry: yauzl.Entry;
}

export interface OoxmlPackage {
  entries: PackageEntry[];
  /** One entry's content (bounded by the archive limits). */
  read(entry: PackageEntry): Promise<Buffer>;
  /** The package with some entries replaced; every other entry is copied unchanged, in the original order. */
  write(replacements: ReadonlyMap<string, Buffer>): Promise<Buffer>;
}

/** Opens a package and checks its directory against the limits before any entry is inflated. */
export async function openPackage(input: Buffer, what: string, limits?: ArchiveLimits): Promise<OoxmlPackage> {
  const archive = await openZipArchive(input, what, limits);
  const entries = archive.entries.map((entry) => ({ name: entry.fileName, directory: entry.fileName.endsWith('/'), entry }));
  const read = (pe: PackageEntry): Promise<Buffer> => archive.read(pe.entry);

  const write = (replacements: ReadonlyMap<string, Buffer>): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const out = new yazl.ZipFile();
      let failed = false;
      const fail = (err: unknown) => {
        if (failed) return;
        failed = true;
        reject(damagedArchive(what, err));
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
          // Inflated under the same limits as a read: a forged size stops the copy (and the job) at once.
          out.addReadStreamLazy(pe.name, { mtime, compress: pe.entry.compressionMethod !== 0, size: pe.entry.uncompressedSize }, (cb) => {
            archive.open(pe.entry).then((stream) => {
              stream.on('error', fail);
              cb(null, stream);
            }, fail);
          });
        }
        out.end();
      } catch (err) {
        fail(err);
      }
    });

  return { entries, read, write };
}
