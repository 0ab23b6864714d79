// `tolk restore FILE`: a `tolk backup` archive back into an empty data folder (and the SQLite database it names). The
// archive is checked before anything is written (names under its known places, no `..`, no links, the manifest's
// sizes matching the entries and fitting on the disk, a schema this build knows), unpacked into a folder beside the
// target and renamed into place once every file's SHA-256 matched: an interrupted restore leaves no half data folder.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir, stat, statfs } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import type { Config } from '../config.js';
import { invalid, ServiceError } from '../lib/errors.js';
import { migrationsFor } from '../store/migrations/index.js';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  DATA_PREFIX,
  DATABASE_ENTRY,
  MANIFEST_ENTRY,
  isValidEntryName,
  reinstallCommand,
  syncFile,
  type BackupManifest,
} from './backup-manifest.js';

const MAX_ENTRIES = 1_000_000;
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
const isPostgres = (url: string) => /^postgres(ql)?:\/\//.test(url);

export interface RestoreResult {
  dataDir: string;
  database: string | undefined;
  files: number;
  manifest: BackupManifest;
}

async function isEmptyOrAbsent(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
}

async function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, limit: number): Promise<Buffer> {
  if (entry.uncompressedSize > limit) throw invalid(`${entry.fileName} in the backup is larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The entries, checked: known names, files only (no links), no duplicates, a bounded count. */
async function readEntries(zip: yauzl.ZipFile): Promise<Map<string, yauzl.Entry>> {
  const entries = new Map<string, yauzl.Entry>();
  for await (const entry of zip.eachEntry()) {
    if (entries.size >= MAX_ENTRIES) throw invalid(`the backup has more than ${MAX_ENTRIES} entries`);
    if (entry.fileName.endsWith('/')) continue;
    const type = (entry.externalFileAttributes >>> 16) & 0o170000;
    if (!isValidEntryName(entry.fileName)) throw invalid(`the backup holds an entry outside its known places: ${JSON.stringify(entry.fileName)}`);
    if (type !== 0 && type !== 0o100000) throw invalid(`the backup holds ${entry.fileName} that is no regular file (a link?)`);
    if (entries.has(entry.fileName)) throw invalid(`the backup holds ${entry.fileName} twice`);
    entries.set(entry.fileName, entry);
  }
  return entries;
}

function checkManifest(manifest: BackupManifest, entries: Map<string, yauzl.Entry>): void {
  if (manifest.format !== BACKUP_FORMAT || manifest.version !== BACKUP_FORMAT_VERSION || !Array.isArray(manifest.files)) {
    throw invalid(`the backup's manifest is not a ${BACKUP_FORMAT} version ${BACKUP_FORMAT_VERSION} manifest`);
  }
  const listed = new Set(manifest.files.map((f) => f.entry));
  for (const f of manifest.files) {
    const entry = entries.get(f.entry);
    if (!entry) throw invalid(`the backup lacks ${f.entry}, which its manifest lists`);
    if (entry.uncompressedSize !== f.bytes) throw invalid(`${f.entry} in the backup has ${entry.uncompressedSize} bytes, its manifest says ${f.bytes}`);
  }
  for (const name of entries.keys()) {
    if (name !== MANIFEST_ENTRY && !listed.has(name)) throw invalid(`the backup holds ${name}, which its manifest does not list`);
  }
  if ((manifest.database.kind === 'sqlite') !== listed.has(DATABASE_ENTRY)) throw invalid("the backup's database entry does not match its manifest");
  if (manifest.database.kind === 'sqlite') {
    const known = new Set(Object.keys(migrationsFor('sqlite')));
    const unknown = manifest.database.migrations.filter((m) => !known.has(m));
    if (unknown.length > 0) {
      throw invalid(`the backup's database has migrations this Tolk does not know (${unknown.join(', ')}): it was made by a newer release (${manifest.tolk_version}); restore it with that release or a newer one`);
    }
  }
}

/** Unpacks one entry to `path` (0600), checking its length and SHA-256 against the manifest. */
async function extract(zip: yauzl.ZipFile, entry: yauzl.Entry, path: string, expected: { bytes: number; sha256: string }): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(
    await zip.openReadStreamPromise(entry),
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > expected.bytes) return done(invalid(`${entry.fileName} in the backup is longer than its manifest says`));
        hash.update(chunk);
        done(null, chunk);
      },
    }),
    createWriteStream(path, { flags: 'wx', mode: 0o600 }),
  );
  await syncFile(path);
  if (bytes !== expected.bytes || hash.digest('hex') !== expected.sha256) throw invalid(`${entry.fileName} in the backup is damaged (its SHA-256 does not match the manifest)`);
}

export async function restore(config: Config, file: string): Promise<RestoreResult> {
  const dataDir = resolve(config.dataDir);
  const sqlite = !isPostgres(config.databaseUrl);
  const databasePath = sqlite ? resolve(config.databaseUrl) : undefined;
  if (!(await isEmptyOrAbsent(dataDir))) {
    throw invalid(`the data folder ${dataDir} (TOLK_DATA_DIR) is not empty: tolk restore only fills an empty or new folder, so nothing is overwritten; move it aside or choose another`);
  }
  if (databasePath && (await stat(databasePath).then((s) => s.size > 0, () => false))) {
    throw invalid(`the database ${databasePath} (TOLK_DATABASE_URL) exists: tolk restore does not overwrite it; move it aside first`);
  }
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(resolve(file), { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: true });
  } catch (err) {
    throw invalid(`${file} is not a readable backup archive: ${(err as Error).message}`);
  }
  try {
    const entries = await readEntries(zip);
    const manifestEntry = entries.get(MANIFEST_ENTRY);
    if (!manifestEntry) throw invalid(`${file} has no ${MANIFEST_ENTRY}: it is no tolk backup`);
    let manifest: BackupManifest;
    try {
      manifest = JSON.parse((await readEntry(zip, manifestEntry, MAX_MANIFEST_BYTES)).toString('utf8')) as BackupManifest;
    } catch (err) {
      throw invalid(`the backup's ${MANIFEST_ENTRY} is unreadable: ${(err as Error).message}`);
    }
    checkManifest(manifest, entries);
    if (manifest.database.kind === 'sqlite' && !sqlite) {
      throw invalid('the backup holds a SQLite database but TOLK_DATABASE_URL names PostgreSQL: unset it (or set a SQLite path) to restore this backup');
    }
    if (manifest.database.kind === 'none' && sqlite) {
      throw invalid('the backup holds no database (made with --no-database): restore the PostgreSQL dump with pg_restore and set TOLK_DATABASE_URL to it first (docs/operations.md)');
    }
    const total = manifest.files.reduce((n, f) => n + f.bytes, 0);
    await mkdir(dirname(dataDir), { recursive: true });
    const disk = await statfs(dirname(dataDir));
    if (total > disk.bavail * disk.bsize) throw invalid(`the backup unpacks to ${total} bytes; ${dirname(dataDir)} has ${disk.bavail * disk.bsize} free`);

    // Unpacked beside the targets (same file system), renamed into place when whole.
    const suffix = `.restoring-${randomBytes(6).toString('hex')}`;
    const staging = `${dataDir}${suffix}`;
    const databaseInData = databasePath !== undefined && databasePath.startsWith(`${dataDir}${sep}`);
    const stagedDatabase = databasePath && (databaseInData ? join(staging, relative(dataDir, databasePath)) : `${databasePath}${suffix}`);
    await mkdir(staging, { mode: 0o700 });
    try {
      for (const f of manifest.files) {
        const path = f.entry === DATABASE_ENTRY ? stagedDatabase! : join(staging, ...f.entry.slice(DATA_PREFIX.length).split('/'));
        await extract(zip, entries.get(f.entry)!, path, f);
      }
      if (stagedDatabase && !databaseInData) {
        await mkdir(dirname(databasePath!), { recursive: true, mode: 0o700 });
        await rename(stagedDatabase, databasePath!);
      }
      await rmdir(dataDir).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      await rename(staging, dataDir);
    } catch (err) {
      await rm(staging, { recursive: true, force: true });
      if (stagedDatabase && !databaseInData) await rm(stagedDatabase, { force: true });
      throw err;
    }
    return { dataDir, database: databasePath, files: manifest.files.length, manifest };
  } catch (err) {
    // what yauzl finds wrong with the archive itself (forged sizes, bad names, truncation) is the archive's fault
    if (err instanceof ServiceError || (err as NodeJS.ErrnoException).syscall !== undefined) throw err;
    throw invalid(`${file} is damaged or no tolk backup: ${(err as Error).message}`);
  } finally {
    zip.close();
  }
}

/** What `tolk restore` prints. */
export function describeRestore(result: RestoreResult): string {
  const { manifest } = result;
  const reinstall = reinstallCommand(manifest.models);
  return [
    `restored the backup of ${manifest.created_at} (Tolk ${manifest.tolk_version}) into ${result.dataDir}: ${result.files} files`,
    result.database && manifest.database.kind === 'sqlite'
      ? `  database: ${result.database} (schema ${manifest.database.migrations.at(-1) ?? '(empty)'}; newer migrations run when the server starts)`
      : '  database: not in this backup (PostgreSQL: restore it with pg_restore, docs/operations.md)',
    reinstall ? `  models were not in the backup; install them again with: ${reinstall}` : '  models: none were installed',
    '',
  ].join('\n');
}
