// `tolk backup FILE`: one ZIP archive of an installation, taken while the server runs. The SQLite database is copied
// by SQLite's online backup in one step (one read transaction: a consistent snapshot that the server's writes, in WAL
// mode, neither block nor restart), and then the data folder's files (encrypted document uploads and results, their
// key-encryption key, translation-memory job files). Database first: a file the snapshot refers to was renamed into
// place before the row that names it was written, so it is there; files written after the snapshot are strays that
// the server's sweeps remove. Models are listed, not copied. The archive is written 0600 under a temporary name and
// renamed into place, so FILE is either the previous file or a whole archive.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import type { Config } from '../config.js';
import { invalid } from '../lib/errors.js';
import { plainNaming } from '../store/disk-byte-store.js';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  DATA_PREFIX,
  DATABASE_ENTRY,
  MANIFEST_ENTRY,
  installedModels,
  syncFile,
  tolkVersion,
  type BackupFile,
  type BackupManifest,
} from './backup-manifest.js';

const DOCUMENTS_MIGRATION = '0007_documents';
/** The disk document store's folder in TOLK_DATA_DIR (services.ts). */
const DOCUMENTS_FOLDER = 'documents/';
const isPostgres = (url: string) => /^postgres(ql)?:\/\//.test(url);

export interface BackupResult {
  path: string;
  bytes: number;
  manifest: BackupManifest;
}

interface Snapshot {
  migrations: string[];
  /** The documents the snapshot knows: only their files are worth keeping. */
  documentIds: Set<string>;
}

/** Copies the live SQLite database to `target` (created 0600): its applied migrations and document ids. */
async function snapshotSqlite(databasePath: string, target: string): Promise<Snapshot> {
  const { default: SqliteDatabase } = await import('better-sqlite3');
  let source;
  try {
    source = new SqliteDatabase(databasePath, { fileMustExist: true });
  } catch (err) {
    throw invalid(`cannot open the database ${databasePath}: ${(err as Error).message}`);
  }
  try {
    source.pragma('busy_timeout = 5000');
    await (await open(target, 'wx', 0o600)).close();
    // every remaining page in one step: the copy is one snapshot, never restarted by the server's writes
    await source.backup(target, { progress: () => 0x7fffffff });
  } finally {
    source.close();
  }
  const copy = new SqliteDatabase(target);
  try {
    // one self-contained file (the server turns WAL on again when it opens the restored database)
    copy.pragma('journal_mode = DELETE');
    const tables = copy.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'`).get();
    if (!tables) throw invalid(`${databasePath} is no Tolk database (it has no migration table)`);
    const migrations = (copy.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as { name: string }[]).map((r) => r.name);
    const documents = migrations.includes(DOCUMENTS_MIGRATION) ? (copy.prepare('SELECT id FROM documents').all() as { id: string }[]) : [];
    return { migrations, documentIds: new Set(documents.map((r) => r.id)) };
  } finally {
    copy.close();
  }
}

/** The data folder's files, depth first, skipping `skip` (the database, the models, the archive being written). */
async function* dataFiles(root: string, skip: Set<string>, visited = new Set<string>()): AsyncGenerator<string> {
  const real = await realpath(root).catch(() => undefined);
  if (real === undefined || visited.has(real)) return;
  visited.add(real);
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(root, entry.name);
    // unfinished writes of the byte stores (renamed into place when whole) and the database's own files
    if (skip.has(path) || entry.name.endsWith('.tmp')) continue;
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory()) yield* dataFiles(path, skip, visited);
    else if (info?.isFile()) yield path;
  }
}

/**
 * Adds one file to the archive and waits until the archive has taken all of it (one file open at a time). A file
 * that went between the listing and now (a document downloaded and purged meanwhile) is left out: undefined.
 */
async function addFile(zip: yazl.ZipFile, entry: string, path: string, compress: boolean): Promise<BackupFile | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const { size, mtime } = await handle.stat();
  const hash = createHash('sha256');
  let bytes = 0;
  const source = handle.createReadStream();
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  source.on('error', (err) => counted.destroy(err));
  source.pipe(counted);
  zip.addReadStream(counted, entry, { compress, mtime, mode: 0o100600, size });
  await finished(counted);
  return { entry, bytes, sha256: hash.digest('hex') };
}

/** Writes the archive to `file` (see the module comment); `noDatabase` leaves the database out (PostgreSQL). */
export async function backup(config: Config, file: string, options: { noDatabase?: boolean } = {}): Promise<BackupResult> {
  const target = resolve(file);
  const sqlite = !isPostgres(config.databaseUrl);
  if (!sqlite && !options.noDatabase) {
    throw invalid('the database is PostgreSQL (TOLK_DATABASE_URL): back it up with pg_dump, and the files beside it with `tolk backup --no-database FILE` (docs/operations.md)');
  }
  if (sqlite && config.databaseUrl === ':memory:') throw invalid('the database is in memory (TOLK_DATABASE_URL=:memory:): there is nothing to back up');
  const databasePath = resolve(config.databaseUrl);
  if (target.startsWith(`${resolve(config.dataDir)}${sep}`)) {
    throw invalid(`write the backup outside the data folder ${resolve(config.dataDir)} (TOLK_DATA_DIR): the next backup would hold this one`);
  }
  await stat(dirname(target)).catch(() => {
    throw invalid(`the folder of ${target} does not exist`);
  });
  const suffix = `.${randomBytes(6).toString('hex')}.tmp`;
  const temp = `${target}${suffix}`;
  const tempDatabase = `${target}${suffix}.db`;
  const zip = new yazl.ZipFile();
  const written = pipeline(zip.outputStream, createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
  // an error of the archive (a stream it read failing) ends the wait for the current file too
  const failed = new Promise<never>((_, reject) => zip.on('error', reject));
  failed.catch(() => {});
  try {
    const files: BackupFile[] = [];
    let database: BackupManifest['database'] = { kind: 'none' };
    const secrets: string[] = [];
    let documentIds: Set<string> | undefined;
    if (sqlite && !options.noDatabase) {
      const snapshot = await snapshotSqlite(databasePath, tempDatabase);
      database = { kind: 'sqlite', migrations: snapshot.migrations };
      documentIds = snapshot.documentIds;
      files.push((await Promise.race([addFile(zip, DATABASE_ENTRY, tempDatabase, true), failed]))!);
      secrets.push(`${DATABASE_ENTRY}: table server_secrets (the URL-signing key, the database document store's key-encryption key) and the API keys' hashes`);
    }
    const skip = new Set([temp, tempDatabase, target, databasePath, `${databasePath}-wal`, `${databasePath}-shm`, `${databasePath}-journal`, resolve(config.modelsDir)]);
    for await (const path of dataFiles(resolve(config.dataDir), skip)) {
      const name = relative(resolve(config.dataDir), path).split(sep).join('/');
      // a document uploaded after the snapshot: its row is not in the backup, so its files would never be used
      const documentFile = name.startsWith(DOCUMENTS_FOLDER) ? plainNaming.parse(name.slice(DOCUMENTS_FOLDER.length)) : undefined;
      if (documentIds && documentFile && !documentIds.has(documentFile.id)) continue;
      // encrypted files do not compress: storing them spares the CPU
      const added = await Promise.race([addFile(zip, `${DATA_PREFIX}${name}`, path, !name.startsWith(DOCUMENTS_FOLDER)), failed]);
      if (!added) continue;
      files.push(added);
      if (name.endsWith('.key-encryption-key')) secrets.push(`${DATA_PREFIX}${name}: the key-encryption key of the documents on disk`);
    }
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_FORMAT_VERSION,
      created_at: new Date().toISOString(),
      tolk_version: tolkVersion(),
      database,
      files,
      secrets,
      models: await installedModels(config.modelsDir),
    };
    zip.addBuffer(Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), MANIFEST_ENTRY, { mode: 0o100600 });
    zip.end();
    await Promise.race([written, failed]);
    await syncFile(temp);
    await rename(temp, target);
    return { path: target, bytes: (await stat(target)).size, manifest };
  } catch (err) {
    (zip.outputStream as Readable).destroy();
    await written.catch(() => {});
    await rm(temp, { force: true });
    throw err;
  } finally {
    await rm(tempDatabase, { force: true });
  }
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

/** What `tolk backup` prints. */
export function describeBackup(result: BackupResult): string {
  const { manifest } = result;
  const data = manifest.files.filter((f) => f.entry.startsWith(DATA_PREFIX));
  const database =
    manifest.database.kind === 'sqlite'
      ? `SQLite, schema ${manifest.database.migrations.at(-1) ?? '(empty)'}`
      : 'not included (--no-database: back up PostgreSQL with pg_dump)';
  return [
    `wrote ${result.path} (${mb(result.bytes)}), mode 0600: it holds the server's secrets and key hashes, keep it as private as the server`,
    `  database: ${database}`,
    `  data folder: ${data.length} files (${mb(data.reduce((n, f) => n + f.bytes, 0))})`,
    ...manifest.secrets.map((s) => `  secret: ${s}`),
    `  models (listed, not copied; tolk restore prints the command that reinstalls them): ${manifest.models.map((m) => m.name).join(', ') || 'none'}`,
    '',
  ].join('\n');
}
