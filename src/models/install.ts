// Installing, removing and verifying Bergamot model directories. An install is staged in a hidden directory of the
// models directory (which the engine never scans), checked, then renamed into place: a running server sees either
// no model or the complete one, never half of it.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { inspectModelDir, MODEL_META_FILE, ModelFormatError, scanModelsDir, type BadModelDir, type ModelInfo } from '../engines/bergamot/index.js';
import { unpackArchive } from './archive.js';
import { DEFAULT_INDEX_URL, DIRECTION_SYNTAX, directionOf, namesDirection, pickModel, readModelIndex, type IndexModel } from './model-index.js';

import { MAX_MODEL_FILE_BYTES, ModelInstallError } from './model-install-error.js';
import { openDownload } from './open-download.js';
import { hashingMeter, sha256File } from './hashing-meter.js';
import { zstdDecompressor } from './zstd-stream.js';
import { partialPath, pathUnder, removeInstallLeftovers, type NameShape } from './model-paths.js';

export { ModelInstallError };

/** Called while a file downloads (total 0 when unknown). */
export type Progress = (file: string, received: number, total: number) => void;

export interface InstallOptions {
  modelsDir: string;
  indexUrl?: string;
  /** The index already read (several directions installed in one command read it once). */
  index?: IndexModel[];
  /** Pre-release models are candidates too (`--pre`). */
  pre?: boolean;
  progress?: Progress;
  /** Told when the choice is not the obvious one (only a pre-release exists). */
  notice?: (message: string) => void;
}

interface ModelMeta {
  source: string;
  target: string;
  version?: string;
  architecture?: string | undefined;
  origin: string;
  /** SHA-256 of every file as installed, for `tolk models verify`. */
  sha256: Record<string, string>;
}

/** What a download must turn out to be; `zstd`: the body is zstd-compressed and the file written decompressed. */
interface Expected {
  size: number;
  sha256?: string;
  zstd?: { size: number; sha256: string };
}

/** The files of a model in the index: the names the engine loads them by (model.*.bin, lex.*.bin, *vocab.*.spm). */
const INDEX_FILE_NAME: NameShape = {
  pattern: /^(model|lex)\..+\.bin$|^(src|trg)?vocab\..+\.spm$/,
  says: 'a model, shortlist or vocabulary file name (model.*.bin, lex.*.bin, vocab.*.spm)',
};

/** An installed direction's folder: `<source>-<target>` in lower case, language codes only. */
const MODEL_DIR_NAME: NameShape = { pattern: /^[a-z]{2,3}(?:-[a-z0-9]{2,8}){1,4}$/, says: 'a direction of language codes (en-de, en-zh-hans)' };

const modelDirPath = (modelsDir: string, m: { source: string; target: string }, what: string) =>
  pathUnder(modelsDir, `${m.source}-${m.target}`.toLowerCase(), what, MODEL_DIR_NAME);

/** A size the index declares: a whole number of bytes no larger than MAX_MODEL_FILE_BYTES, or an error naming it. */
function checkDeclaredSize(label: string, what: string, size: number): void {
  if (!Number.isSafeInteger(size) || size < 0) throw new ModelInstallError(`${label}: the index gives ${what} as ${Number.isNaN(size) ? 'something else than a number' : size}, not a number of bytes; nothing was installed`);
  if (size > MAX_MODEL_FILE_BYTES) throw new ModelInstallError(`${label}: the index gives ${what} as ${size} bytes, more than the ${MAX_MODEL_FILE_BYTES} a model file may be; nothing was installed`);
}

/**
 * Streams a URL to a file (decompressing zstd on the way when asked), checking size and SHA-256 of the bytes
 * received and of the file written; a short or broken transfer is an error naming the bytes received. More bytes than
 * expected (or than MAX_MODEL_FILE_BYTES when the size is unknown), compressed or decompressed, stop the transfer the
 * moment they arrive.
 */
async function download(url: string, path: string, label: string, expected: Expected, progress?: Progress): Promise<string> {
  checkDeclaredSize(label, 'its size', expected.size);
  if (expected.zstd) checkDeclaredSize(label, 'its decompressed size', expected.zstd.size);
  const { body, contentLength } = await openDownload(url, label, { timeoutMs: 600_000, maxBytes: MAX_MODEL_FILE_BYTES });
  const total = expected.size || contentLength;
  const limit = total || MAX_MODEL_FILE_BYTES;
  const hash = createHash('sha256');
  let received = 0;
  async function* counted(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      received += chunk.length;
      if (received > limit) throw new ModelInstallError(`${label} from ${url} is longer than the ${limit} bytes ${total ? 'expected' : 'a model file may be'}; stopped there, nothing was installed`);
      hash.update(chunk);
      progress?.(label, received, total);
      yield chunk;
    }
  }
  const written = hashingMeter();
  const corrupted = (why: string) => new ModelInstallError(`${label} from ${url} is corrupted: ${why}; nothing was installed`);
  try {
    if (expected.zstd) await pipeline(body, counted, zstdDecompressor({ maxBytes: expected.zstd.size, label: `${label} from ${url}` }), written.stream, createWriteStream(path));
    else await pipeline(body, counted, written.stream, createWriteStream(path));
  } catch (err) {
    // Too long or not zstd: said as such, not as an interruption.
    if (err instanceof ModelInstallError) throw err;
    throw new ModelInstallError(`the download of ${label} from ${url} was interrupted after ${received} of ${total || '?'} bytes`);
  }
  if (total && received !== total) {
    throw new ModelInstallError(`the download of ${label} from ${url} was interrupted after ${received} of ${total} bytes`);
  }
  const actual = hash.digest('hex');
  if (expected.sha256 && actual !== expected.sha256) throw corrupted(`its SHA-256 is ${actual}, the index says ${expected.sha256}`);
  if (expected.zstd) {
    if (written.bytes !== expected.zstd.size) throw corrupted(`it decompresses to ${written.bytes} bytes, the index says ${expected.zstd.size}`);
    const decompressed = written.sha256();
    if (decompressed !== expected.zstd.sha256) throw corrupted(`its decompressed SHA-256 is ${decompressed}, the index says ${expected.zstd.sha256}`);
    return decompressed;
  }
  return actual;
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
  const final = modelDirPath(modelsDir, meta, meta.origin);
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
  for (const path of new Set([files.model, files.shortlist, files.srcVocab, files.trgVocab])) await copyFile(path, pathUnder(staging, basename(path), dir));
  return { source: info.source, target: info.target };
}

async function installFromIndex(direction: string, staging: string, opts: InstallOptions): Promise<ModelMeta> {
  const indexUrl = opts.indexUrl ?? DEFAULT_INDEX_URL;
  const { model, note } = pickModel(opts.index ?? (await readModelIndex(indexUrl)), direction, { pre: opts.pre === true });
  if (note) opts.notice?.(note);
  // Every name checked before the first byte is fetched.
  modelDirPath(opts.modelsDir, model, `the model index at ${indexUrl}`);
  const paths = model.files.map((file) => pathUnder(staging, file.filename, `the model index at ${indexUrl}`, INDEX_FILE_NAME));
  const duplicate = model.files.find((file, i) => model.files.findIndex((other) => other.filename === file.filename) !== i);
  if (duplicate) throw new ModelInstallError(`the model index at ${indexUrl} lists ${duplicate.filename} twice for ${directionOf(model)} ${model.version}; nothing was installed`);
  const sha256: Record<string, string> = {};
  for (const [i, file] of model.files.entries()) {
    sha256[file.filename] = await download(file.url, paths[i]!, file.filename, file, opts.progress);
  }
  return { source: model.source, target: model.target, version: model.version, architecture: model.architecture, origin: indexUrl, sha256 };
}

/**
 * Installs a model from a directory, an archive (.tar.gz, .tgz, .tar, .zip), a URL of an archive, or by direction
 * ("en-de") from the public index. Nothing is left behind on failure.
 */
export async function installModel(what: string, opts: InstallOptions): Promise<ModelInfo> {
  await mkdir(opts.modelsDir, { recursive: true });
  await removeInstallLeftovers(opts.modelsDir);
  const staging = await mkdtemp(partialPath(opts.modelsDir, 'install-'));
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
          await download(what, tmp, basename(new URL(what).pathname) || what, { size: 0 }, opts.progress);
          archive = await readFile(tmp);
        } finally {
          await rm(tmp, { force: true });
        }
      }
      await mkdir(unpacked);
      await unpackArchive(archive, unpacked, what);
      meta = { ...(await stageFromDir(unpacked, staging)), origin: what, sha256: {} };
    } else if (DIRECTION_SYNTAX.test(what)) {
      meta = await installFromIndex(what, staging, opts);
    } else {
      throw new ModelInstallError(`${what} is neither a directory, an archive, a URL, a language pair like en-de, whisper-NAME nor llm-NAME`);
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
    ...models.filter((m) => namesDirection(pair, m.source, m.target)).map((m) => m.dir),
    ...bad.filter((b) => basename(b.dir) === key).map((b) => b.dir),
  ];
  if (dirs.length === 0) throw new ModelInstallError(`no ${pair} model is installed in ${modelsDir} (tolk models list names the installed ones)`);
  for (const dir of dirs) {
    const trash = partialPath(modelsDir, `remove-${basename(dir)}`);
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
  const wanted = (dir: string, source?: string, target?: string) =>
    !pair || basename(dir) === pair.toLowerCase() || (source !== undefined && namesDirection(pair, source, target!));
  const results: VerifyResult[] = bad.filter((b) => wanted(b.dir)).map((b: BadModelDir) => ({ dir: b.dir, ok: false, problems: [b.reason] }));
  for (const m of models.filter((x) => wanted(x.dir, x.source, x.target))) {
    const problems: string[] = [];
    try {
      const meta = JSON.parse(await readFile(join(m.dir, MODEL_META_FILE), 'utf8')) as ModelMeta;
      for (const [name, expected] of Object.entries(meta.sha256 ?? {})) {
        const actual = await sha256File(pathUnder(m.dir, name, MODEL_META_FILE)).catch((err: Error) => (err instanceof ModelInstallError ? err.message : 'missing'));
        if (actual !== expected) problems.push(`${name}: SHA-256 ${actual}, installed as ${expected}`);
      }
    } catch {
      // Copied in by hand: only the formats can be checked.
    }
    results.push({ dir: m.dir, pair: `${m.source}-${m.target}`, ok: problems.length === 0, problems });
  }
  return results;
}
