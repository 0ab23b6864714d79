// `tolk models list | available | install | update | remove | verify`: the models directory (TOLK_MODELS_DIR) and the
// public model index, from the shell.
import { existsSync } from 'node:fs';
import type { Config } from '../config.js';
import { closest, parseCommandArgs, UsageError } from '../lib/command-line.js';
import { scanModelsDir } from '../engines/bergamot/index.js';
import { installModel, ModelInstallError, removeModel, verifyModels, type InstallOptions, type Progress } from './install.js';
import { availableModels, COMMON_DIRECTIONS, compareVersions, COMMON_LANGUAGES, DEFAULT_INDEX_URL, DIRECTION_SYNTAX, ModelIndexError, readModelIndex, updatesFor } from './model-index.js';
import { ArchiveError } from './archive.js';
import { installOnnxSpeechModel } from './onnx-speech-models.js';
import { listLlmModels, LLM_MODELS_USAGE, LLM_SUBCOMMAND_USAGE, llmModelsCommand } from './llm-models.js';
import { installSpeechModel, listSpeechModels, onnxModelName, removeSpeechModel, speechModelName, verifySpeechModels, whisperDir } from './speech-models.js';

/** Each subcommand's usage, answered by `tolk models SUB --help`. */
const SUBCOMMAND_USAGE: Record<string, string> = {
  list: `  tolk models list [--json]                    installed neural (Bergamot) models, directories that are refused, speech models
`,
  available: `  tolk models available [--pre] [--json]       what the model index offers: direction, version, architecture, download size, installed or not
`,
  install: `  tolk models install PAIR... [--pre]          install directions (en-de, zh-en, en-zh-Hans) from the model index, the variant
                                               Firefox desktop release uses (--pre: pre-releases too)
  tolk models install --common [--pre]         both ways between English and ${COMMON_LANGUAGES.join(', ')}
  tolk models install DIR|ARCHIVE|URL          install a model directory, a .tar.gz/.zip or the URL of one
  tolk models install whisper-NAME             install a Whisper speech model (tiny, base, small, medium, large-v3-turbo,
                                               large-v3-turbo-q5_0, …; whisper.cpp's SHA-1 checked)
  tolk models install whisper-onnx-NAME --from DIR
                                               install a Whisper model in sherpa-onnx's format (faster) from an unpacked
                                               sherpa-onnx-whisper-NAME release; checked by loading it
`,
  update: `  tolk models update [--pre]                   install newer versions of the installed directions from the model index
`,
  remove: `  tolk models remove PAIR|whisper-NAME|whisper-onnx-NAME
                                               remove the model of a direction, or a speech model
`,
  verify: `  tolk models verify [PAIR|whisper-NAME]       check files and the hashes recorded at install (speech models: whisper.cpp's SHA-1; ONNX ones: loaded by sherpa-onnx)
`,
};

export const MODELS_USAGE = `${Object.values(SUBCOMMAND_USAGE).join('')}${LLM_MODELS_USAGE}`;

export const MODELS_SUBCOMMANDS = Object.keys(SUBCOMMAND_USAGE);

/** Every kind of model `tolk models remove` can name, for its error. */
const MODEL_KINDS = 'a direction (en-de), whisper-NAME, whisper-onnx-NAME or llm-NAME';

/** The usage of `tolk models SUB` (every model kind it takes), or of every models command for an unknown SUB. */
export function modelsUsage(sub: string): string {
  if (!(sub in SUBCOMMAND_USAGE)) return MODELS_USAGE;
  return `${SUBCOMMAND_USAGE[sub]}${LLM_SUBCOMMAND_USAGE[sub as keyof typeof LLM_SUBCOMMAND_USAGE] ?? ''}`;
}

/** Errors the CLI prints as one line (exit 1), without a stack. */
export function isModelsError(err: unknown): boolean {
  return err instanceof ModelInstallError || err instanceof ModelIndexError || err instanceof ArchiveError;
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

/** One progress line on a terminal, rewritten in place for every file of a command; silence elsewhere (logs, pipes). */
interface ProgressLine {
  progress: Progress;
  /** Clears the line (before a result is printed, and at the end). */
  clear(): void;
}

function terminalProgress(): ProgressLine | undefined {
  if (!process.stderr.isTTY) return undefined;
  let last = 0;
  return {
    progress: (label, received, total) => {
      const now = Date.now();
      if (now - last < 100 && received !== total) return;
      last = now;
      const width = 30;
      const done = total ? Math.min(width, Math.round((received / total) * width)) : 0;
      const bar = total ? `[${'#'.repeat(done)}${'-'.repeat(width - done)}] ${mb(received)}/${mb(total)}` : mb(received);
      process.stderr.write(`\r${label.padEnd(52).slice(0, 52)} ${bar}\x1b[K`);
    },
    clear: () => process.stderr.write('\r\x1b[K'),
  };
}

/** The progress label of a file within a command: "[2/5] en-de model.ende.intgemm.alphas.bin". */
function labelled(line: ProgressLine | undefined, label: string): Progress | undefined {
  return line && ((file, received, total) => line.progress(`${label} ${file}`, received, total));
}

/** Where a command writes: the terminal's stdout and stderr, or a test's buffers. */
export interface CommandOutput {
  out: (s: string) => void;
  err: (s: string) => void;
}

const TERMINAL: CommandOutput = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

/** Installs directions from the index (read once), one after the other; failures are reported and the rest go on. */
async function installDirections(directions: string[], opts: InstallOptions, io: CommandOutput): Promise<number> {
  const index = await readModelIndex(opts.indexUrl ?? DEFAULT_INDEX_URL);
  const line = terminalProgress();
  const print = (write: (s: string) => void, s: string) => {
    line?.clear();
    write(s);
  };
  let failed = 0;
  for (const [i, direction] of directions.entries()) {
    const step = directions.length > 1 ? `[${i + 1}/${directions.length}] ` : '';
    const progress = labelled(line, `${step}${direction}`);
    try {
      const info = await installModel(direction, { ...opts, index, ...(progress ? { progress } : {}), notice: (m) => print(io.err, `tolk: ${m}\n`) });
      print(io.out, `${step}installed ${info.source}-${info.target}${info.version ? ` ${info.version}` : ''} in ${info.dir}\n`);
    } catch (err) {
      line?.clear();
      if (!isModelsError(err) || directions.length === 1) throw err;
      failed++;
      io.err(`tolk: ${step}${direction}: ${(err as Error).message}\n`);
    }
  }
  return failed === 0 ? 0 : 1;
}

export async function modelsCommand(
  sub: string | undefined,
  argv: string[],
  loadConfig: () => Config,
  io: CommandOutput = TERMINAL,
): Promise<number> {
  const { out } = io;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    out(`Usage:\n${MODELS_USAGE}`);
    return 0;
  }
  if (!(sub in SUBCOMMAND_USAGE)) {
    const suggestion = closest(sub, MODELS_SUBCOMMANDS);
    throw new UsageError(`unknown models command: ${sub}${suggestion ? ` (did you mean tolk models ${suggestion}?)` : ''}`, 'models');
  }
  const command = `models ${sub}`;
  const usageError = (message: string) => new UsageError(message, command);
  const { values, positionals } = parseCommandArgs(command, argv, {
      json: { type: 'boolean', default: false },
      from: { type: 'string' },
      pre: { type: 'boolean', default: false },
      common: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
  });
  if (values.help) {
    out(`Usage:\n${modelsUsage(sub)}`);
    return 0;
  }
  const config = loadConfig();
  const modelsDir = config.modelsDir;
  const indexUrl = config.bergamot.indexUrl ?? DEFAULT_INDEX_URL;
  // Language models (llm-NAME): their own module; `list` gets their lines and goes on below.
  const llmProgress = sub === 'install' ? terminalProgress() : undefined;
  const llm = await llmModelsCommand(sub, positionals, { modelsDir, from: values.from, baseUrl: config.llmModelsUrl, progress: llmProgress?.progress, out, json: values.json });
  llmProgress?.clear();
  if (llm !== undefined) return llm;
  // Exit status: 0, or 1 when `verify` finds a problem or one of several installs failed.
  if (sub === 'list') {
    const { models, bad } = await scanModelsDir(modelsDir);
    const speech = await listSpeechModels(modelsDir);
    const llms = await listLlmModels(modelsDir);
    if (values.json) {
      const speechJson = speech.map((m) => ({ name: `whisper-${m.name}`, path: m.path, bytes: m.bytes }));
      const llmJson = llms.map((m) => ({ name: `llm-${m.name}`, path: m.files[0], bytes: m.bytes }));
      out(`${JSON.stringify({ models_dir: modelsDir, models: models.map((m) => ({ pair: `${m.source}-${m.target}`, version: m.version ?? null, dir: m.dir, bytes: m.bytes })), refused: bad, speech_models: speechJson, language_models: llmJson })}\n`);
      return 0;
    }
    out(`models directory: ${modelsDir}\n`);
    const rows = [
      ...models.map((m) => [`${m.source}-${m.target}`, m.version ?? '-', mb(m.bytes), m.dir]),
      ...speech.map((m) => [`whisper-${m.name}`, '', mb(m.bytes), m.path]),
      ...llms.map((m) => [`llm-${m.name}`, '', mb(m.bytes), m.files[0] ?? '']),
    ];
    if (rows.length === 0 && bad.length === 0) out('no models installed (tolk models install en-de)\n');
    if (rows.length > 0) {
      const width = Math.max(5, ...rows.map((r) => r[0]!.length));
      const line = (r: string[]) => `${r[0]!.padEnd(width)} ${r[1]!.padEnd(8)} ${r[2]!.padStart(9)}  ${r[3]}\n`;
      out(line(['MODEL', 'VERSION', 'SIZE', 'PATH']));
      for (const r of rows) out(line(r));
    }
    for (const b of bad) out(`refused  ${b.dir}: ${b.reason}\n`);
    return 0;
  }
  if (sub === 'available') {
    const rows = availableModels(await readModelIndex(indexUrl), (await scanModelsDir(modelsDir)).models, { pre: values.pre });
    if (values.json) {
      out(`${JSON.stringify({ index: indexUrl, models: rows })}\n`);
      return 0;
    }
    out(`${'DIRECTION'.padEnd(12)} ${'VERSION'.padEnd(8)} ${'ARCHITECTURE'.padEnd(12)} ${'DOWNLOAD'.padStart(9)}  INSTALLED\n`);
    for (const r of rows) {
      const have = r.installedVersion;
      const installed =
        have === null ? '-' : have === undefined ? 'yes (version unknown)' : compareVersions(r.version, have) > 0 ? `${have} (tolk models update: ${r.version})` : have === r.version ? 'yes' : `yes (${have})`;
      out(`${r.direction.padEnd(12)} ${r.version.padEnd(8)} ${(r.architecture ?? '-').padEnd(12)} ${mb(r.downloadBytes).padStart(9)}  ${installed}\n`);
    }
    return 0;
  }
  if (sub === 'update') {
    if (positionals.length > 0) throw usageError('models update takes no arguments');
    const index = await readModelIndex(indexUrl);
    const updates = updatesFor(index, (await scanModelsDir(modelsDir)).models, { pre: values.pre });
    if (updates.length === 0) {
      out('every installed direction is at the newest version the index offers\n');
      return 0;
    }
    for (const u of updates) out(`${u.direction}: ${u.installedVersion ?? 'unknown version'} → ${u.version}\n`);
    return installDirections(updates.map((u) => u.direction), { modelsDir, indexUrl, pre: values.pre }, io);
  }
  if (sub === 'install' && (values.common || (positionals.length > 0 && positionals.every((p) => DIRECTION_SYNTAX.test(p) && !existsSync(p))))) {
    if (values.from !== undefined) throw usageError('--from only goes with whisper-onnx-NAME or llm-NAME');
    const directions = [...new Set([...(values.common ? COMMON_DIRECTIONS : []), ...positionals])];
    return installDirections(directions, { modelsDir, indexUrl, pre: values.pre }, io);
  }
  if (sub === 'install') {
    if (positionals.length !== 1) throw usageError('models install takes directions (en-de zh-en), --common, or one of whisper-NAME, whisper-onnx-NAME, llm-NAME, a directory, an archive or a URL');
    const speechName = speechModelName(positionals[0]!);
    const onnxName = speechName === null ? null : onnxModelName(speechName);
    if (values.from !== undefined && onnxName === null) throw usageError('--from only goes with whisper-onnx-NAME or llm-NAME');
    if (onnxName !== null) {
      const m = await installOnnxSpeechModel(whisperDir(modelsDir), onnxName, values.from);
      out(`installed whisper-onnx-${onnxName} (${mb(m.bytes)}) in ${m.path}\n`);
      return 0;
    }
    const line = terminalProgress();
    const progress = line?.progress;
    try {
      if (speechName) {
        const m = await installSpeechModel(speechName, { modelsDir, ...(config.whisperModelsUrl ? { baseUrl: config.whisperModelsUrl } : {}), ...(progress ? { progress } : {}) });
        line?.clear();
        out(`installed whisper-${m.name} (${mb(m.bytes)}) in ${m.path}\n`);
        return 0;
      }
      const info = await installModel(positionals[0]!, { modelsDir, indexUrl, ...(progress ? { progress } : {}) });
      line?.clear();
      out(`installed ${info.source}-${info.target}${info.version ? ` ${info.version}` : ''} in ${info.dir}\n`);
      return 0;
    } finally {
      line?.clear();
    }
  }
  if (sub === 'remove') {
    if (positionals.length !== 1) throw usageError(`models remove takes one model: ${MODEL_KINDS}`);
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
  throw usageError(`unknown models command: ${sub}`);
}
