// Installing, removing and verifying Bergamot model directories. An install is staged in a hidden directory of the
// models directory (which the engine never scans), checked, then renamed into place: a running server sees either
// no model or the complete one, never half of it.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { inspectModelDir, MODEL_META_FILE, ModelFormatError, scanModelsDir, type BadModelDir, type ModelInfo } from '../engines/bergamot/index.js';
import { unpackArchive } from './archive.js';
import { DEFAULT_INDEX_URL, pickModel, readModelIndex } from './model-index.js';

export class ModelInstallError extends Error {}

/** Called while a file downloads (total 0 when unknown). */
export type Progress = (file: string, received: number, total: number) => void;

export interface InstallOptions {
  modelsDir: string;
  indexUrl?: string;
  progress?: Progress;
}

interface ModelMeta {
  source: string;
  target: string;
  version?: string;
  origin: string;
  /** SHA-256 of every file as installed, for `tolk models verify`. */
  sha256: Record<string, string>;
}

const PAIR = /^[a-z]{2,3}-[a-z]{2,3}$/;

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** Streams a URL to a file, hashing on the way; a short or broken transfer is an error naming the bytes received. */
async function download(url: string, path: string, label: string, expectedSize: number, progress?: Progress): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(600_000) });
  } catch (err) {
    const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message;
    throw new ModelInstallError(`cannot download ${label} from ${url} (${cause})`);
  }
  if (!res.ok || !res.body) throw new ModelInstallError(`cannot download ${label} from ${url}: HTTP ${res.status}`);
  const total = expectedSize || Number(res.headers.get('content-length') ?? 0);
  const hash = createHash('sha256');
  let received = 0;
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => {
    received += chunk.length;
    hash.update(chunk);
    progress?.(label, received, total);
  });
  try {
    await pipeline(body, createWriteStream(path));
  } catch {
    throw new ModelInstallError(`the download of ${label} from ${url} was interrupted after ${received} of ${total || '?'} bytes`);
  }
  if (total && received !== total) {
    throw new ModelInstallError(`the download of ${label} from ${url} was interrupted after ${received} of ${total} bytes`);
  }
  return hash.digest('hex');
}

/** The directory of an unpacked tree that holds the model file (archives often wrap it in a folder). */
async function findModelDir(root: string): Promise<string> {
  const entries = await readdir(root, { withFileTypes: true });
  if (entries.some((e) => e.isFile() && /^model\..+\.bin(\.gz)?$/.test(e.name))) return root;
  for (const e of entries.filter((x) => x.isDirectory())) {
    const found = await findModelDir(join(root, e.name)).catch(() => undefined);
    if (found) return found;
  }
  throw new ModelInstallError('no model file (model.*.bin) in it');
}

/** Moves a checked staging directory into place as `<modelsDir>/<source>-<target>`, replacing an older install. */
async function commit(modelsDir: string, staging: string, meta: ModelMeta): Promise<ModelInfo> {
  const files = (await readdir(staging)).filter((n) => n !== MODEL_META_FILE);
  for (const name of files) meta.sha256[name] ??= await sha256File(join(staging, name));
  await writeFile(join(staging, MODEL_META_FILE), `${JSON.stringify(meta, null, 2)}\n`);
  try {
    await inspectModelDir(staging);
  } catch (err) {
    throw new ModelInstallError(`refusing the model from ${meta.origin}: ${(err as Error).message}`);
  }
  const final = join(modelsDir, `${meta.source}-${meta.target}`);
  const old = `${staging}.old`;
  const hadOld = await stat(final).then(() => true, () => false);
  if (hadOld) await rename(final, old);
  await rename(staging, final);
  if (hadOld) await rm(old, { recursive: true, force: true });
  return inspectModelDir(final);
}

/** Copies the files of a model directory (the first with a model file, inside `source`) into `staging`. */
async function stageFromDir(source: string, staging: string): Promise<{ source: string; target: string }> {
  const dir = await findModelDir(source);
  let info: ModelInfo;
  try {
    info = await inspectModelDir(dir);
  } catch (err) {
    throw new ModelInstallError(`${dir} is not a usable model directory: ${(err as Error).message}`);
  }
  const { files } = info;
  for (const path of new Set([files.model, files.shortlist, files.srcVocab, files.trgVocab])) await copyFile(path, join(staging, basename(path)));
  return { source: info.source, target: info.target };
}

async function installFromIndex(pair: string, staging: string, opts: InstallOptions): Promise<ModelMeta> {
  const indexUrl = opts.indexUrl ?? DEFAULT_INDEX_URL;
  const model = pickModel(await readModelIndex(indexUrl), pair);
  const sha256: Record<string, string> = {};
  for (const file of model.files) {
    const actual = await download(file.url, join(staging, file.filename), file.filename, file.size, opts.progress);
    if (actual !== file.sha256) {
      throw new ModelInstallError(`${file.filename} from ${file.url} is corrupted: its SHA-256 is ${actual}, the index says ${file.sha256}`);
    }
    sha256[file.filename] = actual;
  }
  return { source: model.source, target: model.target, version: model.version, origin: indexUrl, sha256 };
}

/**
 * Installs a model from a directory, an archive (.tar.gz, .tgz, .tar, .zip), a URL of an archive, or by direction
 * ("en-de") from the public index. Nothing is left behind on failure.
 */
export async function installModel(what: string, opts: InstallOptions): Promise<ModelInfo> {
  await mkdir(opts.modelsDir, { recursive: true });
  const staging = await mkdtemp(join(opts.modelsDir, '.install-'));
  const unpacked = `${staging}.unpacked`;
  try {
    const local = await stat(what).catch(() => undefined);
    let meta: ModelMeta;
    if (local?.isDirectory()) {
      meta = { ...(await stageFromDir(what, staging)), origin: what, sha256: {} };
    } else if (local?.isFile() || /^https?:\/\//.test(what)) {
      let archive: Buffer;
      if (local) archive = await readFile(what);
      else {
        const tmp = `${staging}.download`;
        try {
          await download(what, tmp, basename(new URL(what).pathname) || what, 0, opts.progress);
          archive = await readFile(tmp);
        } finally {
          await rm(tmp, { force: true });
        }
      }
      await mkdir(unpacked);
      await unpackArchive(archive, unpacked, what);
      meta = { ...(await stageFromDir(unpacked, staging)), origin: what, sha256: {} };
    } else if (PAIR.test(what.toLowerCase())) {
      meta = await installFromIndex(what.toLowerCase(), staging, opts);
    } else {
      throw new ModelInstallError(`${what} is neither a directory, an archive, a URL nor a language pair like en-de`);
    }
    return await commit(opts.modelsDir, staging, meta);
  } catch (err) {
    if (err instanceof ModelFormatError) throw new ModelInstallError(err.message);
    throw err;
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(unpacked, { recursive: true, force: true });
  }
}

/** Removes the model of a direction; the directory disappears in one rename. */
export async function removeModel(modelsDir: string, pair: string): Promise<string> {
  const { models, bad } = await scanModelsDir(modelsDir);
  const key = pair.toLowerCase();
  const dirs = [
    ...models.filter((m) => `${m.source}-${m.target}` === key).map((m) => m.dir),
    ...bad.filter((b) => basename(b.dir) === key).map((b) => b.dir),
  ];
  if (dirs.length === 0) throw new ModelInstallError(`no ${pair} model is installed in ${modelsDir}`);
  for (const dir of dirs) {
    const trash = join(modelsDir, `.remove-${basename(dir)}-${process.pid}`);
    await rename(dir, trash);
    await rm(trash, { recursive: true, force: true });
  }
  return dirs.join(', ');
}

export interface VerifyResult {
  dir: string;
  pair?: string;
  ok: boolean;
  problems: string[];
}

/** Checks every installed model (or one direction): the formats, then the SHA-256 recorded at install. */
export async function verifyModels(modelsDir: string, pair?: string): Promise<VerifyResult[]> {
  const { models, bad } = await scanModelsDir(modelsDir);
  const results: VerifyResult[] = bad.map((b: BadModelDir) => ({ dir: b.dir, ok: false, problems: [b.reason] }));
  for (const m of models) {
    const problems: string[] = [];
    try {
      const meta = JSON.parse(await readFile(join(m.dir, MODEL_META_FILE), 'utf8')) as ModelMeta;
      for (const [name, expected] of Object.entries(meta.sha256 ?? {})) {
        const actual = await sha256File(join(m.dir, name)).catch(() => 'missing');
        if (actual !== expected) problems.push(`${name}: SHA-256 ${actual}, installed as ${expected}`);
      }
    } catch {
      // Copied in by hand: only the formats can be checked.
    }
    results.push({ dir: m.dir, pair: `${m.source}-${m.target}`, ok: problems.length === 0, problems });
  }
  const wanted = pair?.toLowerCase();
  return wanted ? results.filter((r) => r.pair === wanted || basename(r.dir) === wanted) : results;
}
