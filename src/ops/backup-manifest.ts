// What a backup archive (`tolk backup`) holds and how its entries are named: shared by backup.ts and restore.ts.
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { scanModelsDir } from '../engines/bergamot/index.js';
import { listLlmModels } from '../models/llm-models.js';
import { listSpeechModels } from '../models/speech-models.js';

export const MANIFEST_ENTRY = 'tolk-backup.json';
/** The SQLite database, as SQLite's online backup copied it. */
export const DATABASE_ENTRY = 'database.sqlite';
/** Files of the data folder (TOLK_DATA_DIR) go under this prefix, by their path relative to it. */
export const DATA_PREFIX = 'data/';
export const BACKUP_FORMAT = 'tolk-backup';
export const BACKUP_FORMAT_VERSION = 1;

export interface BackupFile {
  /** The archive entry's name. */
  entry: string;
  bytes: number;
  sha256: string;
}

export interface InstalledModel {
  /** As `tolk models install` takes it: `en-de`, `whisper-base`, `whisper-onnx-small`, `llm-NAME`. */
  name: string;
  version: string | null;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_FORMAT_VERSION;
  created_at: string;
  tolk_version: string;
  /** `none`: made with --no-database (PostgreSQL: pg_dump holds the database). */
  database: { kind: 'sqlite'; migrations: string[] } | { kind: 'none' };
  /** Every entry but the manifest, with its size and SHA-256 (restore checks both). */
  files: BackupFile[];
  /** Where the server's secrets are in this archive (they make it as sensitive as the installation itself). */
  secrets: string[];
  /** Installed models: listed, not copied (they are large and reinstallable); restore prints the command. */
  models: InstalledModel[];
}

/** Flushes a written file to the disk (a rename of it is then durable once the folder is too). */
export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function tolkVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** The models in TOLK_MODELS_DIR, named as `tolk models install` takes them. */
export async function installedModels(modelsDir: string): Promise<InstalledModel[]> {
  const [{ models }, speech, llms] = await Promise.all([scanModelsDir(modelsDir), listSpeechModels(modelsDir), listLlmModels(modelsDir)]);
  return [
    ...models.map((m) => ({ name: `${m.source}-${m.target}`, version: m.version ?? null })),
    ...speech.map((m) => ({ name: `whisper-${m.name}`, version: null })),
    ...llms.map((m) => ({ name: `llm-${m.name}`, version: null })),
  ];
}

/** The command that installs the listed models again (ONNX speech models need their unpacked release: --from DIR). */
export function reinstallCommand(models: InstalledModel[]): string | undefined {
  if (models.length === 0) return undefined;
  const fromIndex = models.filter((m) => !m.name.startsWith('whisper-onnx-')).map((m) => m.name);
  const fromDir = models.filter((m) => m.name.startsWith('whisper-onnx-')).map((m) => `tolk models install ${m.name} --from DIR`);
  return [...(fromIndex.length ? [`tolk models install ${fromIndex.join(' ')}`] : []), ...fromDir].join('; ');
}

/** True for `tolk restore`'s checks: a relative name under the archive's known places, no `..`, no odd characters. */
export function isValidEntryName(name: string): boolean {
  if (name === MANIFEST_ENTRY || name === DATABASE_ENTRY) return true;
  if (!name.startsWith(DATA_PREFIX) || name.length > 4096) return false;
  const parts = name.slice(DATA_PREFIX.length).split('/');
  return parts.every((p) => p !== '' && p !== '.' && p !== '..' && !/[\\\0]/.test(p));
}
