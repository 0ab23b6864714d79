// Model archives (.tar, .tar.gz/.tgz, .zip) unpacked into a directory, refusing entries whose path is not made of
// plain names (model-paths.ts).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { readZip } from '../documents/formats/idml/zip-package.js';
import type { ArchiveLimits } from '../documents/formats/zip-reader.js';
import { MAX_MODEL_FILE_BYTES } from './model-install-error.js';
import { nestedPathUnder } from './model-paths.js';

const gunzipAsync = promisify(gunzip);

export class ArchiveError extends Error {}

/** Regular files of a ustar/GNU tar image. */
function* tarEntries(tar: Buffer): Generator<{ name: string; data: Buffer }> {
  let pos = 0;
  while (pos + 512 <= tar.length) {
    const header = tar.subarray(pos, pos + 512);
    if (header.every((b) => b === 0)) return;
    const field = (from: number, len: number) => header.toString('utf8', from, from + len).replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    if (!Number.isFinite(size) || size < 0) throw new ArchiveError('damaged tar archive (bad size field)');
    const type = field(156, 1);
    const prefix = field(345, 155);
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const start = pos + 512;
    if (start + size > tar.length) throw new ArchiveError(`truncated tar archive (${name} is cut short)`);
    if (type === '0' || type === '') yield { name, data: tar.subarray(start, start + size) };
    pos = start + Math.ceil(size / 512) * 512;
  }
}

/** A model archive's own bounds: model files are large (up to MAX_MODEL_FILE_BYTES) and some compress well. */
const MODEL_ARCHIVE_LIMITS: ArchiveLimits = { maxEntries: 10_000, maxTotalBytes: MAX_MODEL_FILE_BYTES, maxEntryBytes: MAX_MODEL_FILE_BYTES, maxRatio: 200 };

/** Unpacks an archive (recognised by its first bytes) into `dir`; returns the number of files written. */
export async function unpackArchive(archive: Buffer, dir: string, what: string): Promise<number> {
  let entries: { name: string; data: Buffer }[];
  if (archive[0] === 0x50 && archive[1] === 0x4b) {
    try {
      entries = (await readZip(archive, what, MODEL_ARCHIVE_LIMITS)).filter((p) => !p.isDirectory);
    } catch (err) {
      throw new ArchiveError((err as Error).message);
    }
  } else {
    let tar = archive;
    if (archive[0] === 0x1f && archive[1] === 0x8b) {
      try {
        tar = await gunzipAsync(archive, { maxOutputLength: MAX_MODEL_FILE_BYTES });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new ArchiveError(`${what} unpacks to more than ${MAX_MODEL_FILE_BYTES} bytes; nothing was installed`);
        throw new ArchiveError(`${what}: damaged gzip data (${(err as Error).message})`);
      }
    }
    if (tar.length < 512 || tar.toString('latin1', 257, 262) !== 'ustar') throw new ArchiveError(`${what} is not a model directory, .tar(.gz) or .zip archive`);
    entries = [...tarEntries(tar)];
  }
  let written = 0;
  for (const entry of entries) {
    const path = nestedPathUnder(dir, entry.name, what);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, entry.data);
    written++;
  }
  return written;
}
