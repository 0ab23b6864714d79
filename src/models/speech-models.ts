// Speech-to-text models for the Whisper engine: the public whisper.cpp ggml files (Hugging Face, ggerganov/whisper.cpp),
// installed as TOLK_MODELS_DIR/whisper/ggml-NAME.bin and checked against the SHA-1 whisper.cpp publishes for each
// (models/README.md of whisper.cpp). A download goes to a hidden file in the same directory and is renamed into place
// once its hash matches, so a running server never sees half a model. Models in sherpa-onnx's format (whisper-onnx-NAME)
// are installed from a local copy instead (onnx-speech-models.ts).
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ModelInstallError, type Progress } from './install.js';
import { openDownload } from './open-download.js';
import { partialPath, pathUnder, removeInstallLeftovers } from './model-paths.js';
import { listOnnxSpeechModels, onnxModelProblem, removeOnnxSpeechModel } from './onnx-speech-models.js';

export const DEFAULT_WHISPER_BASE_URL = 'https://huggingface.co/ggerganov/whisper.cpp/resolve/main/';

/** Model name → SHA-1 of ggml-NAME.bin, as whisper.cpp's models/README.md lists them (its "Available models" table). */
/** The most a ggml speech model file may be (whisper.cpp's largest, large-v1/v2/v3, are about 3.1 GB). */
const MAX_WHISPER_FILE_BYTES = 4 * 1024 ** 3;

export const WHISPER_MODELS: Readonly<Record<string, string>> = {
  tiny: 'bd577a113a864445d4c299885e0cb97d4ba92b5f',
  'tiny.en': 'c78c86eb1a8faa21b369bcd33207cc90d64ae9df',
  base: '465707469ff3a37a2b9b8d8f89f2f99de7299dac',
  'base.en': '137c40403d78fd54d454da0f9bd998f78703390c',
  small: '55356645c2b361a969dfd0ef2c5a50d530afd8d5',
  'small.en': 'db8a495a91d927739e50b3fc1cc4c6b8f6c2d022',
  medium: 'fd9727b6e1217c2f614f9b698455c4ffd82463b4',
  'medium.en': '8c30f0e44ce9560643ebd10bbe50cd20eafd3723',
  'small.en-tdrz': 'b6c6e7e89af1a35c08e6de56b66ca6a02a2fdfa1',
  'large-v1': 'b1caaf735c4cc1429223d5a74f0f4d0b9b59a299',
  'large-v2': '0f4c8e34f21cf1a914c59d8b3ce882345ad349d6',
  'large-v2-q5_0': '00e39f2196344e901b3a2bd5814807a769bd1630',
  'large-v3': 'ad82bf6a9043ceed055076d0fd39f5f186ff8062',
  'large-v3-q5_0': 'e6e2ed78495d403bef4b7cff42ef4aaadcfea8de',
  'large-v3-turbo': '4af2b29d7ec73d781377bfd1758ca957a807e941',
  'large-v3-turbo-q5_0': 'e050f7970618a659205450ad97eb95a18d69c9ee',
};

/** `whisper-NAME` (whisper-onnx-NAME: sherpa-onnx's format) on the command line, beside translation pairs (en-de). */
const SPEECH_MODEL = /^whisper-(.+)$/;

export interface SpeechInstallOptions {
  modelsDir: string;
  baseUrl?: string;
  progress?: Progress;
  /** Known models and their SHA-1 (tests serve their own). */
  models?: Readonly<Record<string, string>>;
}

export interface InstalledSpeechModel {
  name: string;
  path: string;
  bytes: number;
}

/** The model name when `what` names a speech model (whisper-tiny.en; onnx-tiny.en for whisper-onnx-tiny.en), else null. */
export function speechModelName(what: string): string | null {
  return SPEECH_MODEL.exec(what.toLowerCase())?.[1] ?? null;
}

export const whisperDir = (modelsDir: string) => join(modelsDir, 'whisper');
const fileOf = (name: string) => `ggml-${name}.bin`;

async function sha1File(path: string): Promise<string> {
  const hash = createHash('sha1');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

export async function installSpeechModel(name: string, opts: SpeechInstallOptions): Promise<InstalledSpeechModel> {
  const models = opts.models ?? WHISPER_MODELS;
  const expected = models[name];
  if (!expected) throw new ModelInstallError(`unknown speech model whisper-${name} (known: ${Object.keys(models).map((m) => `whisper-${m}`).join(', ')})`);
  const dir = whisperDir(opts.modelsDir);
  const file = fileOf(name);
  const path = pathUnder(dir, file, `whisper-${name}`);
  await mkdir(dir, { recursive: true });
  await removeInstallLeftovers(opts.modelsDir);
  const url = new URL(file, opts.baseUrl ?? DEFAULT_WHISPER_BASE_URL).href;
  const part = partialPath(dir, file);
  try {
    const { body, contentLength: total } = await openDownload(url, file, { timeoutMs: 1_800_000, maxBytes: MAX_WHISPER_FILE_BYTES, dir });
    const hash = createHash('sha1');
    let received = 0;
    body.on('data', (chunk: Buffer) => {
      received += chunk.length;
      hash.update(chunk);
      opts.progress?.(file, received, total);
    });
    try {
      await pipeline(body, createWriteStream(part));
    } catch (err) {
      throw new ModelInstallError(`the download of ${file} from ${url} broke off after ${received} bytes (${(err as Error).message})`);
    }
    const actual = hash.digest('hex');
    if (actual !== expected) throw new ModelInstallError(`${file} from ${url} is corrupted: its SHA-1 is ${actual}, whisper.cpp publishes ${expected}`);
    await rename(part, path);
    return { name, path, bytes: received };
  } finally {
    await rm(part, { force: true });
  }
}

/** The ONNX model's name (tiny.en) when `name` is onnx-tiny.en, else null. */
export const onnxModelName = (name: string) => (name.startsWith('onnx-') ? name.slice(5) : null);

/** Installed models (copied in by hand included): the ONNX directories (onnx-NAME), then the ggml files. */
export async function listSpeechModels(modelsDir: string): Promise<InstalledSpeechModel[]> {
  const dir = whisperDir(modelsDir);
  const files = await readdir(dir).catch(() => [] as string[]);
  const out: InstalledSpeechModel[] = await listOnnxSpeechModels(dir, files);
  for (const f of files.filter((f) => /^ggml-.+\.bin$/.test(f)).sort()) {
    const path = join(dir, f);
    out.push({ name: f.slice(5, -4), path, bytes: (await stat(path)).size });
  }
  return out;
}

export async function removeSpeechModel(modelsDir: string, name: string): Promise<string> {
  const onnx = onnxModelName(name);
  if (onnx !== null) return removeOnnxSpeechModel(whisperDir(modelsDir), onnx);
  const path = pathUnder(whisperDir(modelsDir), fileOf(name), `whisper-${name}`);
  if (!(await stat(path).catch(() => null))) throw new ModelInstallError(`no speech model whisper-${name} is installed in ${whisperDir(modelsDir)}`);
  await rm(path);
  return path;
}

/**
 * SHA-1 of each installed ggml model against whisper.cpp's (models not in the list are only listed); each ONNX model
 * (no published hashes) is loaded once by sherpa-onnx in a child process, as install and the server do.
 */
export async function verifySpeechModels(
  modelsDir: string,
  models: Readonly<Record<string, string>> = WHISPER_MODELS,
): Promise<{ name: string; path: string; ok: boolean; problem?: string }[]> {
  const results = [];
  for (const m of await listSpeechModels(modelsDir)) {
    if (m.name.startsWith('onnx-')) {
      const problem = await onnxModelProblem(m.path);
      results.push(problem ? { ...m, ok: false, problem } : { ...m, ok: true });
      continue;
    }
    const expected = models[m.name];
    const actual = expected ? await sha1File(m.path) : undefined;
    results.push(expected && actual !== expected ? { ...m, ok: false, problem: `SHA-1 ${actual}, whisper.cpp publishes ${expected}` } : { ...m, ok: true });
  }
  return results;
}
