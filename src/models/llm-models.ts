// Language models for the local language-model engine: GGUF files installed as TOLK_MODELS_DIR/llm/NAME.gguf (a
// model split in parts as NAME-0000K-of-0000N.gguf). `llm-NAME` installs one of a short list of instruct models
// whose licence allows company use, downloaded from their public repositories and checked against pinned SHA-256;
// `--from FILE.gguf` copies a local file and `--from URL#sha256=HEX` downloads one that must match the hash. Files
// are written under hidden names, checked, then renamed into place (the first part last): a running server sees
// no model or the whole one, never part of it, and a refused file leaves nothing behind.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, writeFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { llmModelsDir } from '../engines/llm/index.js';
import { ModelInstallError, type Progress } from './install.js';
import { openDownload } from './open-download.js';
import { partialPath, pathUnder, removeInstallLeftovers, type NameShape } from './model-paths.js';
import { hashingMeter, sha256File } from './hashing-meter.js';

export const DEFAULT_LLM_MODELS_URL = 'https://huggingface.co/';

interface CuratedFile {
  /** Path under the base URL. */
  path: string;
  sha256: string;
}

/**
 * The curated models: Apache-2.0 instruct models in Q4_K_M. Hashes are those of the files in Qwen's own GGUF
 * repositories (the 1.5B file at a pinned revision).
 */
export const CURATED_LLM_MODELS: Readonly<Record<string, { licence: string; files: CuratedFile[] }>> = {
  'qwen2.5-1.5b-instruct': {
    licence: 'Apache-2.0',
    files: [
      {
        path: 'Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/91cad51170dc346986eccefdc2dd33a9da36ead9/qwen2.5-1.5b-instruct-q4_k_m.gguf',
        sha256: '6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e',
      },
    ],
  },
  'qwen2.5-7b-instruct': {
    licence: 'Apache-2.0',
    files: [
      {
        path: 'Qwen/Qwen2.5-7B-Instruct-GGUF/resolve/main/qwen2.5-7b-instruct-q4_k_m-00001-of-00002.gguf',
        sha256: 'dfce12e3862a5283ccfb88221b48480e58745165de856439950d0f22590580db',
      },
      {
        path: 'Qwen/Qwen2.5-7B-Instruct-GGUF/resolve/main/qwen2.5-7b-instruct-q4_k_m-00002-of-00002.gguf',
        sha256: '539cf93f78e887edea1c04e2d7d8cdaca9d01dae9c9025bcb8accbe29df3d72a',
      },
    ],
  },
};

/** An installed model's files: its name (lower case), then the part number when split, then .gguf. */
const GGUF_FILE: NameShape = { pattern: /^[a-z0-9][a-z0-9._-]{0,80}\.gguf$/, says: "a lower-case name of letters, digits, '.', '-' and '_'" };
const SPLIT_PART = /-(\d{5})-of-(\d{5})\.gguf$/;
const HASH_FILE = (name: string) => `.${name}.sha256.json`;

/** The model name when `what` names a language model (llm-NAME), else null. */
export function llmModelName(what: string): string | null {
  return what.startsWith('llm-') ? what.slice(4) : null;
}

export interface LlmInstallOptions {
  modelsDir: string;
  /** `--from`: a local .gguf file, or an http(s) URL with #sha256=HEX. */
  from?: string | undefined;
  /** Where curated models are downloaded from (TOLK_LLM_MODELS_URL; tests use a local server). */
  baseUrl?: string | undefined;
  progress?: Progress | undefined;
  /** The curated list (tests give their own). */
  curated?: typeof CURATED_LLM_MODELS;
}

export interface InstalledLlmModel {
  name: string;
  files: string[];
  bytes: number;
}

/** Streams a source into a file, hashing on the way; returns the SHA-256 and the byte count. */
async function copyHashing(source: Readable, to: string, label: string, total: number, progress?: Progress): Promise<{ sha256: string; bytes: number }> {
  const meter = hashingMeter((bytes) => progress?.(label, bytes, total));
  await pipeline(source, meter.stream, createWriteStream(to));
  return { sha256: meter.sha256(), bytes: meter.bytes };
}

/** The most one GGUF file (or part of a split one) may be: a 70B model in Q4 fits in one. */
export const MAX_LLM_FILE_BYTES = 64 * 1024 ** 3;

const fetchStream = async (url: string, label: string, dir: string): Promise<{ body: Readable; total: number }> => {
  const { body, contentLength } = await openDownload(url, label, { timeoutMs: 3_600_000, maxBytes: MAX_LLM_FILE_BYTES, dir });
  return { body, total: contentLength };
};

/** A GGUF file starts with the magic "GGUF" and a version; anything else is refused before it is installed. */
async function assertGguf(path: string, label: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(8), 0, 8, 0);
    if (bytesRead < 8 || buffer.toString('latin1', 0, 4) !== 'GGUF') throw new ModelInstallError(`${label} is not a GGUF model file`);
  } finally {
    await handle.close();
  }
}

interface Source {
  label: string;
  open(): Promise<{ body: Readable; total: number }>;
  /** Expected SHA-256; none for a local file (its hash is recorded for verify). */
  sha256?: string;
}

function sourcesOf(name: string, opts: LlmInstallOptions): Source[] {
  const from = opts.from;
  if (from === undefined) {
    const list = opts.curated ?? CURATED_LLM_MODELS;
    const curated = list[name];
    if (!curated) throw new ModelInstallError(`unknown language model llm-${name} (known: ${Object.keys(list).map((m) => `llm-${m}`).join(', ')}; any other: --from FILE.gguf)`);
    return curated.files.map((f) => {
      const url = new URL(f.path, opts.baseUrl ?? DEFAULT_LLM_MODELS_URL).href;
      const label = f.path.split('/').pop()!;
      return { label, sha256: f.sha256, open: () => fetchStream(url, label, llmModelsDir(opts.modelsDir)) };
    });
  }
  if (/^https?:\/\//.test(from)) {
    const url = new URL(from);
    const sha256 = /^#sha256=([0-9a-f]{64})$/i.exec(url.hash)?.[1]?.toLowerCase();
    if (!sha256) throw new ModelInstallError('a model URL needs its SHA-256: --from https://…/model.gguf#sha256=HEX');
    url.hash = '';
    return [{ label: url.pathname.split('/').pop() || 'model.gguf', sha256, open: () => fetchStream(url.href, from, llmModelsDir(opts.modelsDir)) }];
  }
  if (!from.endsWith('.gguf')) throw new ModelInstallError(`--from takes a .gguf file or a URL with #sha256=HEX, not ${from}`);
  return [{ label: from, open: async () => ({ body: createReadStream(from), total: (await stat(from)).size }) }];
}

/** The installed file names of a model of `parts` files. */
const fileNames = (name: string, parts: number) =>
  parts === 1 ? [`${name}.gguf`] : Array.from({ length: parts }, (_, i) => `${name}-${String(i + 1).padStart(5, '0')}-of-${String(parts).padStart(5, '0')}.gguf`);

export async function installLlmModel(name: string, opts: LlmInstallOptions): Promise<InstalledLlmModel> {
  const dir = llmModelsDir(opts.modelsDir);
  pathUnder(dir, `${name}.gguf`, `llm-${name}`, GGUF_FILE);
  const sources = sourcesOf(name, opts);
  const names = fileNames(name, sources.length);
  const paths = names.map((n) => pathUnder(dir, n, `llm-${name}`, GGUF_FILE));
  await mkdir(dir, { recursive: true });
  await removeInstallLeftovers(opts.modelsDir);
  const staged = names.map((n) => partialPath(dir, n));
  const hashes: Record<string, string> = {};
  let bytes = 0;
  try {
    for (const [i, source] of sources.entries()) {
      const { body, total } = await source.open().catch((err: unknown) => {
        throw err instanceof ModelInstallError ? err : new ModelInstallError(`cannot read ${source.label}: ${(err as Error).message}`);
      });
      let copied;
      try {
        copied = await copyHashing(body, staged[i]!, source.label, total, opts.progress);
      } catch (err) {
        throw new ModelInstallError(`copying ${source.label} broke off (${(err as Error).message})`);
      }
      if (source.sha256 && copied.sha256 !== source.sha256) {
        throw new ModelInstallError(`${source.label} is refused: its SHA-256 is ${copied.sha256}, expected ${source.sha256}`);
      }
      if (i === 0) await assertGguf(staged[i]!, source.label);
      hashes[names[i]!] = copied.sha256;
      bytes += copied.bytes;
    }
    await writeFile(join(dir, HASH_FILE(name)), JSON.stringify(hashes));
    // later parts first: the scanner only considers a model once its first file is there
    for (let i = staged.length - 1; i >= 0; i--) await rename(staged[i]!, paths[i]!);
    return { name, files: paths, bytes };
  } finally {
    await Promise.all(staged.map((p) => rm(p, { force: true })));
  }
}

/** Installed language models: each name with its files (parts in order). */
export async function listLlmModels(modelsDir: string): Promise<InstalledLlmModel[]> {
  const dir = llmModelsDir(modelsDir);
  let entries: string[];
  try {
    entries = (await readdir(dir)).filter((n) => n.endsWith('.gguf') && !n.startsWith('.')).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const byName = new Map<string, InstalledLlmModel>();
  for (const file of entries) {
    const name = file.replace(SPLIT_PART, '').replace(/\.gguf$/, '');
    const model = byName.get(name) ?? { name, files: [], bytes: 0 };
    model.files.push(join(dir, file));
    model.bytes += (await stat(join(dir, file))).size;
    byName.set(name, model);
  }
  return [...byName.values()];
}

export async function removeLlmModel(modelsDir: string, name: string): Promise<string> {
  const model = (await listLlmModels(modelsDir)).find((m) => m.name === name);
  if (!model) throw new ModelInstallError(`no language model llm-${name} is installed in ${llmModelsDir(modelsDir)}`);
  // the first part first: the server stops considering the model before its other parts go
  for (const file of model.files) await rm(file, { force: true });
  await rm(join(llmModelsDir(modelsDir), HASH_FILE(name)), { force: true });
  return `llm-${name}`;
}

export interface LlmVerifyResult {
  name: string;
  ok: boolean;
  problem?: string;
}

/** Each installed model's files against the SHA-256 recorded at install. */
export async function verifyLlmModels(modelsDir: string): Promise<LlmVerifyResult[]> {
  const dir = llmModelsDir(modelsDir);
  const results: LlmVerifyResult[] = [];
  for (const model of await listLlmModels(modelsDir)) {
    let recorded: Record<string, string> = {};
    try {
      recorded = JSON.parse(await readFile(join(dir, HASH_FILE(model.name)), 'utf8')) as Record<string, string>;
    } catch {
      results.push({ name: model.name, ok: false, problem: 'no hashes recorded (not installed by tolk models install)' });
      continue;
    }
    let problem: string | undefined;
    for (const file of model.files) {
      const base = file.slice(dir.length + 1);
      const actual = await sha256File(file);
      if (actual !== recorded[base]) problem ??= `${base}: SHA-256 ${actual}, ${recorded[base] ? `installed as ${recorded[base]}` : 'not recorded'}`;
    }
    results.push(problem ? { name: model.name, ok: false, problem } : { name: model.name, ok: true });
  }
  return results;
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

/** The language-model lines of `tolk models install|remove|verify --help`. */
export const LLM_SUBCOMMAND_USAGE: Record<'install' | 'remove' | 'verify', string> = {
  install: `  tolk models install llm-NAME [--from FILE.gguf|URL#sha256=HEX]
                                               install a language model (rephrase, correct, formality, custom instructions):
                                               ${Object.keys(CURATED_LLM_MODELS).map((m) => `llm-${m}`).join(', ')} (SHA-256 checked), or any GGUF file
`,
  remove: `  tolk models remove llm-NAME                  remove a language model
`,
  verify: `  tolk models verify llm-NAME                  check a language model against the SHA-256 recorded at install
`,
};
export const LLM_MODELS_USAGE = Object.values(LLM_SUBCOMMAND_USAGE).join('');

/**
 * `tolk models install|remove|verify llm-NAME` and the language models' lines of `tolk models list`; undefined when
 * the command is not about a language model (the caller handles it).
 */
export async function llmModelsCommand(
  sub: string | undefined,
  positionals: string[],
  opts: { modelsDir: string; from: string | undefined; baseUrl: string | undefined; progress: Progress | undefined; out: (s: string) => void; json: boolean },
): Promise<number | undefined> {
  const name = positionals.length === 1 ? llmModelName(positionals[0]!) : null;
  if (name === null) return undefined;
  if (sub === 'install') {
    const m = await installLlmModel(name, { modelsDir: opts.modelsDir, from: opts.from, baseUrl: opts.baseUrl, progress: opts.progress });
    opts.out(`installed llm-${m.name} (${mb(m.bytes)}) in ${m.files[0]}\n`);
    return 0;
  }
  if (sub === 'remove') {
    opts.out(`removed ${await removeLlmModel(opts.modelsDir, name)}\n`);
    return 0;
  }
  if (sub === 'verify') {
    const result = (await verifyLlmModels(opts.modelsDir)).find((r) => r.name === name);
    if (!result) throw new ModelInstallError(`no language model llm-${name} is installed in ${llmModelsDir(opts.modelsDir)}`);
    opts.out(`${result.ok ? 'ok     ' : 'FAILED '} llm-${name}${result.problem ? `\n  ${result.problem}` : ''}\n`);
    return result.ok ? 0 : 1;
  }
  return undefined;
}
