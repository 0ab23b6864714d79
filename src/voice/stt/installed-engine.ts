// The speech-to-text engine of what is installed: Whisper on the first model in MODELS_DIR/whisper while there is one,
// else PocketSphinx (TOLK_STT_ENGINE=auto) or nothing (=whisper). A sherpa-onnx model (a complete onnx-NAME directory)
// wins over a whisper.cpp one (a ggml-*.bin file): the same model costs a third of the CPU there (docs/benchmarks.md). The directory is watched as the translation
// models' is (lib/dir-watch.ts), so a speech model installed or removed with `tolk models` while the server runs is
// used by the next session without a restart. A new model is loaded before it replaces the current one (a file the
// runtime cannot load is refused until it changes); running sessions keep the engine they started on, which is
// closed once the last of them is released.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DirectoryWatch } from '../../lib/dir-watch.js';
import type { Logger } from '../../lib/logger.js';
import type { RecognizerOptions, SpeechRecognizer, SpeechToTextEngine } from './engine.js';
import { PocketSphinxEngine } from './pocketsphinx.js';
import { SherpaWhisperEngine } from './sherpa-whisper.js';
import { sherpaWhisperFiles, type SherpaWhisperFiles } from './sherpa-whisper-files.js';
import { findWhisperModel, WhisperEngine } from './whisper.js';

/** An engine that can load its model ahead of the first session. */
export type LoadableEngine = SpeechToTextEngine & { load?(): Promise<unknown> };

export interface InstalledSpeechEngineOptions {
  /** auto: PocketSphinx while no Whisper model is installed; whisper: no recogniser then. */
  mode: 'auto' | 'whisper';
  /** MODELS_DIR/whisper. */
  dir: string;
  logger: Logger;
  /** Re-scan this often even without a change event, ms (0: never). Default 30000, as for translation models. */
  rescanIntervalMs?: number;
  /** Builds the engine of a ggml model file (tests and the benchmark pass their own). */
  whisper?: (modelPath: string) => LoadableEngine;
  /** Builds the engine of a sherpa-onnx model directory's files. */
  sherpa?: (files: SherpaWhisperFiles) => LoadableEngine;
  /** The engine while no model is installed in auto mode. */
  fallback?: () => SpeechToTextEngine;
}

interface InUse {
  engine: LoadableEngine;
  /** Recognizers not yet released. */
  users: number;
  retired: boolean;
}

/** TOLK_STT_ENGINE=whisper with no model: no language can be transcribed. */
const NO_ENGINE: SpeechToTextEngine = {
  name: 'none',
  languages: new Set(),
  detectsLanguage: false,
  createRecognizer: () => Promise.reject(new Error('no speech model is installed')),
  close: async () => {},
};

/** An installed Whisper model: a sherpa-onnx directory's files, or a whisper.cpp file. */
export type InstalledSpeechModel = { kind: 'onnx'; path: string; files: SherpaWhisperFiles } | { kind: 'ggml'; path: string };

/** The model to use: the first complete onnx-NAME directory by name, else the first ggml file, else null. */
export function findSpeechModel(dir: string): InstalledSpeechModel | null {
  if (!existsSync(dir)) return null;
  for (const name of readdirSync(dir).filter((n) => n.startsWith('onnx-')).sort()) {
    const files = sherpaWhisperFiles(join(dir, name));
    if (files) return { kind: 'onnx', path: join(dir, name), files };
  }
  const ggml = findWhisperModel(dir);
  return ggml ? { kind: 'ggml', path: ggml } : null;
}

/** Changes when a file of the model is replaced or rewritten (null: no model, or a file just went). */
function stampOf(model: InstalledSpeechModel | null): string | null {
  if (!model) return null;
  const paths = model.kind === 'onnx' ? [model.files.encoder, model.files.decoder, model.files.tokens] : [model.path];
  const stamps: string[] = [];
  for (const path of paths) {
    const s = statSync(path, { throwIfNoEntry: false });
    if (!s) return null;
    stamps.push(`${path}\n${s.ino}\n${s.size}\n${s.mtimeMs}`);
  }
  return stamps.join('\n');
}

export class InstalledSpeechEngine implements SpeechToTextEngine {
  private current: InUse;
  /** The stamp of the model file `current` runs (null: the fallback). */
  private stamp: string | null = null;
  /** A model file the runtime could not load, until it changes. */
  private refused: string | null = null;
  private readonly watch: DirectoryWatch;
  private readonly makeWhisper: (path: string) => LoadableEngine;
  private readonly makeSherpa: (files: SherpaWhisperFiles) => LoadableEngine;
  private readonly fallback: () => SpeechToTextEngine;

  /** Picks the engine from what is installed now (the model loads with the first session); watching starts here. */
  constructor(private readonly opts: InstalledSpeechEngineOptions) {
    this.makeWhisper = opts.whisper ?? ((modelPath) => new WhisperEngine({ modelPath }));
    this.makeSherpa = opts.sherpa ?? ((files) => new SherpaWhisperEngine({ files }));
    this.fallback = opts.fallback ?? (opts.mode === 'whisper' ? () => NO_ENGINE : () => new PocketSphinxEngine());
    const model = findSpeechModel(opts.dir);
    if (opts.mode === 'whisper' && !model) throw new Error(`TOLK_STT_ENGINE=whisper, but there is no Whisper model (ggml-*.bin or onnx-NAME/) in ${opts.dir}`);
    this.current = { engine: model ? this.engineOf(model) : this.fallback(), users: 0, retired: false };
    this.stamp = stampOf(model);
    if (model) opts.logger.info({ model: model.path, runtime: model.kind }, 'speech-to-text: Whisper');
    // recursive: a file replaced inside a model directory is a changed model too
    this.watch = new DirectoryWatch(opts.dir, () => this.scan(), { intervalMs: opts.rescanIntervalMs ?? 30_000, logger: opts.logger, what: 'speech models', recursive: true });
    this.watch.start();
  }

  get name(): string {
    return this.current.engine.name;
  }

  get languages(): ReadonlySet<string> {
    return this.current.engine.languages;
  }

  get detectsLanguage(): boolean {
    return this.current.engine.detectsLanguage;
  }

  /** Re-reads the directory now (the watch does it on its own; tests wait for it). */
  rescan(): Promise<void> {
    return this.watch.rescan();
  }

  async createRecognizer(language: string, options?: RecognizerOptions): Promise<SpeechRecognizer> {
    const held = this.current;
    held.users++;
    let recognizer: SpeechRecognizer;
    try {
      recognizer = await held.engine.createRecognizer(language, options);
    } catch (err) {
      this.release(held);
      throw err;
    }
    let released = false;
    return {
      write: (samples) => recognizer.write(samples),
      finish: () => recognizer.finish(),
      release: () => {
        if (released) return;
        released = true;
        recognizer.release();
        this.release(held);
      },
    };
  }

  async close(): Promise<void> {
    await this.watch.close();
    this.current.retired = true;
    await this.current.engine.close();
  }

  private release(held: InUse): void {
    held.users--;
    if (held.retired && held.users === 0) void held.engine.close().catch((err) => this.opts.logger.error({ err }, 'closing a replaced speech engine failed'));
  }

  private engineOf(model: InstalledSpeechModel): LoadableEngine {
    return model.kind === 'onnx' ? this.makeSherpa(model.files) : this.makeWhisper(model.path);
  }

  private async scan(): Promise<void> {
    const model = findSpeechModel(this.opts.dir);
    const stamp = stampOf(model);
    if (stamp === this.stamp || (stamp !== null && stamp === this.refused)) return;
    let next: LoadableEngine;
    if (model && stamp !== null) {
      let made: LoadableEngine | null = null;
      try {
        // an engine's constructor reads the model too (its vocabulary): a file it cannot read is refused as well
        made = this.engineOf(model);
        await made.load?.();
        next = made;
      } catch (err) {
        this.refused = stamp;
        this.opts.logger.error({ err, model: model.path, runtime: model.kind }, 'speech model refused: the runtime cannot load it; the current engine stays');
        await made?.close().catch(() => {});
        return;
      }
    } else {
      next = this.fallback();
    }
    const old = this.current;
    this.current = { engine: next, users: 0, retired: false };
    this.stamp = stamp;
    this.refused = null;
    this.opts.logger.info({ model: model?.path ?? null, engine: next.name }, 'speech-to-text engine changed: installed speech models changed');
    old.retired = true;
    if (old.users === 0) await old.engine.close().catch((err) => this.opts.logger.error({ err }, 'closing a replaced speech engine failed'));
  }
}
