// Whisper models in sherpa-onnx's format, installed as TOLK_MODELS_DIR/whisper/onnx-NAME/ from a directory the
// operator downloaded and unpacked (sherpa-onnx's public sherpa-onnx-whisper-NAME release): Tolk pins no hashes for
// them, so it does not download them. The files are copied into a hidden directory, loaded once by sherpa-onnx (in a
// child process, bounded in time: sherpa-onnx exits on a broken encoder) and only then renamed into place, so a
// running server never sees an incomplete or unloadable model.
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { probeSherpaWhisperModel, sherpaWhisperFiles } from '../voice/stt/sherpa-whisper-files.js';
import { ModelInstallError } from './install.js';
import { partialPath, pathUnder, type NameShape } from './model-paths.js';

/** Model names become directory names (onnx-NAME). */
const ONNX_DIR: NameShape = { pattern: /^onnx-[a-z0-9][a-z0-9._-]*$/, says: "onnx- and a name of letters, digits, '.', '_' and '-'" };

const onnxDir = (whisperDir: string, name: string) => pathUnder(whisperDir, `onnx-${name}`, `whisper-onnx-${name}`, ONNX_DIR);

/** What to do without --from: where the files come from, named as the public release names them. */
function fromRequired(name: string): ModelInstallError {
  return new ModelInstallError(
    `ONNX Whisper models are installed from a local copy of sherpa-onnx's release (Tolk pins no hashes for them, so it ` +
      `does not download them): download and unpack sherpa-onnx-whisper-${name}.tar.bz2 from ` +
      `https://github.com/k2-fsa/sherpa-onnx/releases/tag/asr-models, then run ` +
      `tolk models install whisper-onnx-${name} --from sherpa-onnx-whisper-${name} (the directory holding ` +
      `${name}-encoder.int8.onnx or ${name}-encoder.onnx, ${name}-decoder(.int8).onnx and ${name}-tokens.txt)`,
  );
}

export interface OnnxInstallOptions {
  /** How long sherpa-onnx may take to load the model before it is refused, ms. */
  loadTimeoutMs?: number;
}

/** Installs the model in `from` as whisper/onnx-NAME (replacing one of that name); returns its directory and size. */
export async function installOnnxSpeechModel(
  whisperDir: string,
  name: string,
  from: string | undefined,
  opts: OnnxInstallOptions = {},
): Promise<{ path: string; bytes: number }> {
  const path = onnxDir(whisperDir, name);
  if (!from) throw fromRequired(name);
  const files = sherpaWhisperFiles(from);
  if (!files) {
    throw new ModelInstallError(
      `${from} is not a sherpa-onnx Whisper model directory: it needs an encoder (*encoder*.onnx), a decoder (*decoder*.onnx) and the vocabulary (*tokens.txt)`,
    );
  }
  await mkdir(whisperDir, { recursive: true });
  const tmp = partialPath(whisperDir, `onnx-${name}`);
  const old = partialPath(whisperDir, `onnx-${name}.old`);
  try {
    await mkdir(tmp);
    let bytes = 0;
    const copied = { encoder: '', decoder: '', tokens: '' };
    for (const part of ['encoder', 'decoder', 'tokens'] as const) {
      copied[part] = pathUnder(tmp, basename(files[part]), from);
      await copyFile(files[part], copied[part]);
      bytes += (await stat(copied[part])).size;
    }
    try {
      await probeSherpaWhisperModel(copied, opts.loadTimeoutMs);
    } catch (err) {
      throw new ModelInstallError(`${from} is refused: ${(err as Error).message}`);
    }
    // a model of that name already there: moved aside first, so the rename below is the only change a server sees
    const replacing = await stat(path).catch(() => null);
    if (replacing) await rename(path, old);
    await rename(tmp, path);
    return { path, bytes };
  } finally {
    await rm(tmp, { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
  }
}

/** Why the installed model in `dir` is unusable (a file missing, or sherpa-onnx cannot load it), or null. */
export async function onnxModelProblem(dir: string, loadTimeoutMs?: number): Promise<string | null> {
  const files = sherpaWhisperFiles(dir);
  if (!files) return 'an encoder, a decoder or tokens.txt is missing';
  return probeSherpaWhisperModel(files, loadTimeoutMs).then(
    () => null,
    (err: Error) => err.message,
  );
}

/** Removes whisper/onnx-NAME; returns its path. */
export async function removeOnnxSpeechModel(whisperDir: string, name: string): Promise<string> {
  const path = onnxDir(whisperDir, name);
  if (!(await stat(path).catch(() => null))) throw new ModelInstallError(`no speech model whisper-onnx-${name} is installed in ${whisperDir}`);
  await rm(path, { recursive: true });
  return path;
}

/** Installed ONNX models (copied in by hand included): name (onnx-NAME), directory, size of its files. */
export async function listOnnxSpeechModels(whisperDir: string, names: string[]): Promise<{ name: string; path: string; bytes: number }[]> {
  const out = [];
  for (const dirName of names.filter((n) => n.startsWith('onnx-')).sort()) {
    const path = join(whisperDir, dirName);
    const files = sherpaWhisperFiles(path);
    if (!files) continue;
    let bytes = 0;
    for (const f of [files.encoder, files.decoder, files.tokens]) bytes += (await stat(f)).size;
    out.push({ name: dirName, path, bytes });
  }
  return out;
}
