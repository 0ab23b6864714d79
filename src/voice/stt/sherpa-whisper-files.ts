// A Whisper model in sherpa-onnx's format: the directory of the public sherpa-onnx-whisper-NAME release (NAME-encoder
// .onnx, NAME-decoder.onnx, their .int8 variants, NAME-tokens.txt), installed as TOLK_MODELS_DIR/whisper/onnx-NAME.
// sherpa-onnx ends the whole process (exit 255) when an encoder lacks the metadata it reads, instead of failing the
// load, so a model is first loaded in a child process (probeSherpaWhisperModel) before a server or the CLI trusts it.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export interface SherpaWhisperFiles {
  encoder: string;
  decoder: string;
  tokens: string;
}

/** English-only Whisper vocabularies have 50,256 text tokens (51,864 in all), multilingual ones 50,257 and more. */
const ENGLISH_TEXT_TOKENS = 50256;

/**
 * The model's files in `dir`, or null when one is missing. The int8 graphs are preferred when both are there: a
 * quarter of the size and faster on CPUs, as sherpa-onnx recommends.
 */
export function sherpaWhisperFiles(dir: string): SherpaWhisperFiles | null {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return null;
  const names = readdirSync(dir).filter((n) => !n.startsWith('.')).sort();
  const graph = (part: string) =>
    names.find((n) => n.includes(part) && n.endsWith('.int8.onnx')) ?? names.find((n) => n.includes(part) && n.endsWith('.onnx'));
  const encoder = graph('encoder');
  const decoder = graph('decoder');
  const tokens = names.find((n) => n.endsWith('tokens.txt'));
  return encoder && decoder && tokens ? { encoder: join(dir, encoder), decoder: join(dir, decoder), tokens: join(dir, tokens) } : null;
}

/** Whether the model knows more than English: tokens.txt has one line per text token (as sherpa-onnx's export writes it). */
export function isMultilingual(files: SherpaWhisperFiles): boolean {
  const text = readFileSync(files.tokens, 'utf8');
  let lines = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  if (!text.endsWith('\n') && text.length > 0) lines++;
  return lines > ENGLISH_TEXT_TOKENS;
}

/** sherpa-onnx's recogniser configuration for a Whisper model. */
export function sherpaWhisperConfig(files: SherpaWhisperFiles, language: string, threads: number, tailPaddings: number) {
  return {
    featConfig: { sampleRate: 16000 },
    modelConfig: {
      whisper: { encoder: files.encoder, decoder: files.decoder, language, task: 'transcribe' as const, tailPaddings },
      tokens: files.tokens,
      numThreads: threads,
    },
  };
}

/** Loads the model in a child process; prints "ok" or the error. */
const PROBE = `
const sherpa = require(process.argv[1]);
sherpa.OfflineRecognizer.createAsync(JSON.parse(process.argv[2])).then(
  () => process.stdout.write('ok'),
  (err) => { process.stderr.write(String(err && err.message)); process.exitCode = 1; },
);`;

/**
 * Resolves when sherpa-onnx loads the model (in a child process, within `timeoutMs`), else rejects with what
 * sherpa-onnx said (e.g. "'n_mels' does not exist in the metadata").
 */
export function probeSherpaWhisperModel(files: SherpaWhisperFiles, timeoutMs = 120_000): Promise<void> {
  const binding = createRequire(import.meta.url).resolve('sherpa-onnx-node');
  const config = JSON.stringify(sherpaWhisperConfig(files, '', 1, 50));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', PROBE, binding, config], { timeout: timeoutMs, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (!err && stdout === 'ok') return resolve();
      const said = stderr.trim().split('\n').filter(Boolean).slice(-3).join('; ');
      const why = (err as { killed?: boolean } | null)?.killed ? `it did not load within ${timeoutMs / 1000} s` : said || `the loader exited with ${err?.code ?? 'no answer'}`;
      reject(new Error(`sherpa-onnx cannot load the Whisper model ${files.encoder}: ${why}`));
    });
  });
}
