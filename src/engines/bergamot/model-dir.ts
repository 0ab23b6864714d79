// Model directories as Mozilla publishes them (model.<pair>.intgemm*.bin, lex.*.<pair>.s2t.bin, vocab.<pair>.spm or
// srcvocab/trgvocab, each possibly gzipped): found, checked file by file, and read for the runtime.
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { checkShortlist, ModelFormatError, readMarianHeaders, readModelYaml, readSentencePieces, vocabSizesOf } from './formats.js';

const gunzipAsync = promisify(gunzip);

/** Optional description Tolk writes next to the files on install (source of truth for the pair and version). */
export const MODEL_META_FILE = 'tolk-model.json';

export interface ModelFiles {
  model: string;
  shortlist: string;
  srcVocab: string;
  trgVocab: string;
}

export interface ModelInfo {
  dir: string;
  source: string;
  target: string;
  version: string | undefined;
  files: ModelFiles;
  /** Bytes of the files as the runtime receives them (decompressed). */
  bytes: number;
  /** Changes when a file is replaced (sizes and modification times). */
  stamp: string;
  /** Firefox's precision hint: `intgemm8` files are unshifted-alpha models, `alphas` ones carry activation alphas. */
  precision: 'int8shiftAll' | 'int8shiftAlphaAll';
}

export interface BadModelDir {
  dir: string;
  reason: string;
}

/** Reads a model file, gunzipping `.gz` ones. */
export async function readModelFile(path: string): Promise<Buffer> {
  const raw = await readFile(path);
  return path.endsWith('.gz') ? gunzipAsync(raw) : raw;
}

function pick(names: string[], re: RegExp, what: string): string {
  const found = names.filter((n) => re.test(n));
  if (found.length === 0) throw new ModelFormatError(`no ${what} file`);
  if (found.length > 1) throw new ModelFormatError(`several ${what} files (${found.join(', ')})`);
  return found[0]!;
}

function pairOf(dir: string, modelName: string, meta: { source?: unknown; target?: unknown } | undefined): [string, string] {
  // The index writes script subtags ("zh-Hans"); the API names a source language without them (ZH), a target with
  // them (ZH-HANS), so the engine offers zh → en and en → zh-hans.
  if (typeof meta?.source === 'string' && typeof meta.target === 'string') return [meta.source.toLowerCase().split('-')[0]!, meta.target.toLowerCase()];
  const named = /^([a-z]{2,3})-([a-z]{2,3})(?:$|[-_.@])/.exec(basename(dir).toLowerCase());
  if (named) return [named[1]!, named[2]!];
  const code = /^model\.([a-z]{4})\./.exec(modelName);
  if (code) return [code[1]!.slice(0, 2), code[1]!.slice(2)];
  throw new ModelFormatError(`cannot tell the language pair (name the directory like en-es or add ${MODEL_META_FILE})`);
}

/** Checks one model directory; throws ModelFormatError naming what is wrong. */
export async function inspectModelDir(dir: string): Promise<ModelInfo> {
  const names = (await readdir(dir)).filter((n) => !n.startsWith('.'));
  const modelName = pick(names, /^model\..+\.bin(\.gz)?$/, 'model (model.*.bin)');
  const lexName = pick(names, /^lex\..+\.bin(\.gz)?$/, 'shortlist (lex.*.s2t.bin)');
  const shared = names.filter((n) => /^vocab\..+\.spm(\.gz)?$/.test(n));
  let srcName: string;
  let trgName: string;
  if (shared.length === 1) srcName = trgName = shared[0]!;
  else if (shared.length > 1) throw new ModelFormatError(`several vocabularies (${shared.join(', ')})`);
  else {
    srcName = pick(names, /^srcvocab\..+\.spm(\.gz)?$/, 'vocabulary (vocab.*.spm or srcvocab/trgvocab)');
    trgName = pick(names, /^trgvocab\..+\.spm(\.gz)?$/, 'target vocabulary (trgvocab.*.spm)');
  }
  let meta: { source?: unknown; target?: unknown; version?: unknown } | undefined;
  if (names.includes(MODEL_META_FILE)) {
    try {
      meta = JSON.parse(await readFile(join(dir, MODEL_META_FILE), 'utf8')) as typeof meta;
    } catch {
      throw new ModelFormatError(`${MODEL_META_FILE} is not JSON`);
    }
  }
  const [source, target] = pairOf(dir, modelName, meta);
  const files: ModelFiles = { model: join(dir, modelName), shortlist: join(dir, lexName), srcVocab: join(dir, srcName), trgVocab: join(dir, trgName) };

  const check = async <T>(name: string, fn: (buf: Buffer) => T): Promise<{ value: T; size: number }> => {
    let buf: Buffer;
    try {
      buf = await readModelFile(join(dir, name));
    } catch (err) {
      throw new ModelFormatError(`${name}: cannot read (${(err as Error).message})`);
    }
    try {
      return { value: fn(buf), size: buf.length };
    } catch (err) {
      throw new ModelFormatError(`${name}: ${(err as Error).message}`);
    }
  };
  const model = await check(modelName, (buf) => {
    const headers = readMarianHeaders(buf);
    if (buf.length !== headers.expectedSize) throw new ModelFormatError(`${buf.length} bytes where its headers say ${headers.expectedSize} (truncated?)`);
    const dims = vocabSizesOf(readModelYaml(buf, headers));
    if (!dims || dims.length < 2) throw new ModelFormatError('special:model.yml has no dim-vocabs');
    return dims;
  });
  const lex = await check(lexName, (buf) => checkShortlist(buf, buf.length));
  const src = await check(srcName, (buf) => readSentencePieces(buf).length);
  const trg = srcName === trgName ? src : await check(trgName, (buf) => readSentencePieces(buf).length);
  const [srcDim, trgDim] = model.value;
  if (src.value !== srcDim) throw new ModelFormatError(`${srcName} has ${src.value} pieces, the model expects ${srcDim}`);
  if (trg.value !== trgDim) throw new ModelFormatError(`${trgName} has ${trg.value} pieces, the model expects ${trgDim}`);

  const stats = await Promise.all([modelName, lexName, srcName, trgName].map((n) => stat(join(dir, n))));
  return {
    dir,
    source,
    target,
    version: typeof meta?.version === 'string' ? meta.version : undefined,
    files,
    bytes: model.size + lex.size + src.size + (srcName === trgName ? 0 : trg.size),
    stamp: stats.map((s) => `${s.size}:${s.mtimeMs}`).join(','),
    precision: /alphas/.test(modelName) ? 'int8shiftAlphaAll' : 'int8shiftAll',
  };
}

/** Every model directory under `root` (one level); a missing root is simply empty. */
export async function scanModelsDir(root: string): Promise<{ models: ModelInfo[]; bad: BadModelDir[] }> {
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { models: [], bad: [] };
    throw err;
  }
  const models: ModelInfo[] = [];
  const bad: BadModelDir[] = [];
  // Hidden directories are installs in progress (see src/models/install.ts); `whisper/` holds speech models, `llm/` language models.
  for (const entry of entries.filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'whisper' && e.name !== 'llm').sort((a, b) => a.name.localeCompare(b.name))) {
    const dir = join(root, entry.name);
    try {
      models.push(await inspectModelDir(dir));
    } catch (err) {
      bad.push({ dir, reason: err instanceof ModelFormatError ? err.message : `cannot read (${(err as Error).message})` });
    }
  }
  return { models, bad };
}
