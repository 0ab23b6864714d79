// `tolk models list | install | remove | verify`: the models directory (TOLK_MODELS_DIR) managed from the shell.
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { scanModelsDir } from '../engines/bergamot/index.js';
import { installModel, ModelInstallError, removeModel, verifyModels, type Progress } from './install.js';
import { ModelIndexError } from './model-index.js';
import { ArchiveError } from './archive.js';
import { installOnnxSpeechModel } from './onnx-speech-models.js';
import { LLM_MODELS_USAGE, llmModelsCommand } from './llm-models.js';
import { installSpeechModel, listSpeechModels, onnxModelName, removeSpeechModel, speechModelName, verifySpeechModels, whisperDir } from './speech-models.js';

export const MODELS_USAGE = `  tolk models list [--json]                    installed neural (Bergamot) models, directories that are refused, speech models
  tolk models install DIR|ARCHIVE|URL|PAIR     install a model directory, a .tar.gz/.zip, a URL, or a direction (en-de) from the public index
  tolk models install whisper-NAME             install a Whisper speech model (tiny, tiny.en, base, base.en, small, …; SHA-1 checked)
  tolk models install whisper-onnx-NAME --from DIR
                                               install a Whisper model in sherpa-onnx's format (faster) from an unpacked
                                               sherpa-onnx-whisper-NAME release; checked by loading it
  tolk models remove PAIR|whisper-NAME|whisper-onnx-NAME
                                               remove the model of a direction, or a speech model
  tolk models verify [PAIR]                    check files and the hashes recorded at install (speech models: whisper.cpp's SHA-1; ONNX ones: loaded by sherpa-onnx)
${LLM_MODELS_USAGE}`;

/** Errors the CLI prints as one line (exit 1), without a stack. */
export function isModelsError(err: unknown): boolean {
  return err instanceof ModelInstallError || err instanceof ModelIndexError || err instanceof ArchiveError;
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

/** A one-line progress bar on a terminal; silence elsewhere (logs, pipes). */
function terminalProgress(): Progress | undefined {
  if (!process.stderr.isTTY) return undefined;
  let last = 0;
  return (file, received, total) => {
    const now = Date.now();
    if (now - last < 100 && received !== total) return;
    last = now;
    const width = 30;
    const done = total ? Math.min(width, Math.round((received / total) * width)) : 0;
    const bar = total ? `[${'#'.repeat(done)}${'-'.repeat(width - done)}] ${mb(received)}/${mb(total)}` : mb(received);
    process.stderr.write(`\r${file.padEnd(36).slice(0, 36)} ${bar}${received === total ? '\n' : ''}`);
  };
}

export async function modelsCommand(sub: string | undefined, argv: string[], config: Config, usageError: (m: string) => Error): Promise<number> {
  // Exit status: 0, or 1 when `verify` finds a problem.
  const modelsDir = config.modelsDir;
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean', default: false }, from: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const out = (s: string) => process.stdout.write(s);
  // Language models (llm-NAME): their own module; `list` gets their lines and goes on below.
  const llm = await llmModelsCommand(sub, positionals, { modelsDir, from: values.from, baseUrl: config.llmModelsUrl, progress: sub === 'install' ? terminalProgress() : undefined, out, json: values.json });
  if (llm !== undefined) return llm;
  if (sub === 'list') {
    const { models, bad } = await scanModelsDir(modelsDir);
    const speech = await listSpeechModels(modelsDir);
    if (values.json) {
      const speechJson = speech.map((m) => ({ name: `whisper-${m.name}`, path: m.path, bytes: m.bytes }));
      out(`${JSON.stringify({ models_dir: modelsDir, models: models.map((m) => ({ pair: `${m.source}-${m.target}`, version: m.version ?? null, dir: m.dir, bytes: m.bytes })), refused: bad, speech_models: speechJson })}\n`);
      return 0;
    }
    out(`models directory: ${modelsDir}\n`);
    if (models.length === 0 && bad.length === 0 && speech.length === 0) out('no models installed (tolk models install en-de)\n');
    for (const m of speech) out(`${`whisper-${m.name}`.padEnd(19)} ${mb(m.bytes).padStart(9)}  ${m.path}\n`);
    for (const m of models) out(`${`${m.source}-${m.target}`.padEnd(8)} ${(m.version ?? '-').padEnd(10)} ${mb(m.bytes).padStart(9)}  ${m.dir}\n`);
    for (const b of bad) out(`refused  ${b.dir}: ${b.reason}\n`);
    return 0;
  }
  if (sub === 'install') {
    if (positionals.length !== 1) throw usageError('tolk models install takes one directory, archive, URL or pair (en-de)');
    const progress = terminalProgress();
    const speechName = speechModelName(positionals[0]!);
    const onnxName = speechName === null ? null : onnxModelName(speechName);
    if (values.from !== undefined && onnxName === null) throw usageError('--from only goes with whisper-onnx-NAME');
    if (onnxName !== null) {
      const m = await installOnnxSpeechModel(whisperDir(modelsDir), onnxName, values.from);
      out(`installed whisper-onnx-${onnxName} (${mb(m.bytes)}) in ${m.path}\n`);
      return 0;
    }
    if (speechName) {
      const m = await installSpeechModel(speechName, { modelsDir, ...(config.whisperModelsUrl ? { baseUrl: config.whisperModelsUrl } : {}), ...(progress ? { progress } : {}) });
      out(`installed whisper-${m.name} (${mb(m.bytes)}) in ${m.path}\n`);
      return 0;
    }
    const info = await installModel(positionals[0]!, {
      modelsDir,
      ...(config.bergamot.indexUrl ? { indexUrl: config.bergamot.indexUrl } : {}),
      ...(progress ? { progress } : {}),
    });
    out(`installed ${info.source}-${info.target}${info.version ? ` ${info.version}` : ''} in ${info.dir}\n`);
    return 0;
  }
  if (sub === 'remove') {
    if (positionals.length !== 1) throw usageError('tolk models remove takes one pair (en-de)');
    const speechName = speechModelName(positionals[0]!);
    out(`removed ${speechName ? await removeSpeechModel(modelsDir, speechName) : await removeModel(modelsDir, positionals[0]!)}\n`);
    return 0;
  }
  if (sub === 'verify') {
    const speechName = positionals[0] ? speechModelName(positionals[0]) : null;
    const speech = (await verifySpeechModels(modelsDir)).filter((m) => !positionals[0] || m.name === speechName);
    for (const m of speech) out(`${m.ok ? 'ok     ' : 'FAILED '} whisper-${m.name} ${m.path}${m.problem ? `\n  ${m.problem}` : ''}\n`);
    if (speechName) {
      if (speech.length === 0) throw new ModelInstallError(`no speech model whisper-${speechName} is installed in ${modelsDir}`);
      return speech.some((m) => !m.ok) ? 1 : 0;
    }
    const results = await verifyModels(modelsDir, positionals[0]);
    if (positionals[0] && results.length === 0) throw new ModelInstallError(`no ${positionals[0]} model is installed in ${modelsDir}`);
    for (const r of results) out(`${r.ok ? 'ok     ' : 'FAILED '} ${r.pair ?? '?'} ${r.dir}${r.problems.map((p) => `\n  ${p}`).join('')}\n`);
    return results.some((r) => !r.ok) || speech.some((m) => !m.ok) ? 1 : 0;
  }
  throw usageError(`unknown models command: ${sub ?? '(none)'}`);
}
