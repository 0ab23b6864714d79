// Zip packages (IDML) read whole under the archive limits of zip-reader.ts (zip bombs, forged sizes, truncated
// archives) and written back with yazl in the same entry order, each part's bytes unchanged unless replaced.
import yazl from 'yazl';
import { openZipArchive, type ArchiveLimits } from '../zip-reader.js';

export interface ZipPart {
  name: string;
  data: Buffer;
  /** Stored (method 0) in the source: written back stored. */
  stored: boolean;
  mtime: Date;
  isDirectory: boolean;
}

/** Reads every entry of a zip archive into memory; any damage or limit breach is a DocumentFormatError. */
export async function readZip(input: Buffer, what: string, limits?: ArchiveLimits): Promise<ZipPart[]> {
  const archive = await openZipArchive(input, what, limits);
  const parts: ZipPart[] = [];
  for (const entry of archive.entries) {
    const isDirectory = entry.fileName.endsWith('/');
    const data = isDirectory ? Buffer.alloc(0) : await archive.read(entry);
    parts.push({ name: entry.fileName, data, stored: entry.compressionMethod === 0, mtime: entry.getLastModDate(), isDirectory });
  }
  return parts;
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
