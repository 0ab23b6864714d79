// The speech-to-text engine of what is installed: Whisper on the first ggml model in MODELS_DIR/whisper while there is
// one, else PocketSphinx (TOLK_STT_ENGINE=auto) or nothing (=whisper). The directory is watched as the translation
// models' is (lib/dir-watch.ts), so a speech model installed or removed with `tolk models` while the server runs is
// used by the next session without a restart. A new model is loaded before it replaces the current one (a file the
// runtime cannot load is refused until it changes); running sessions keep the engine they started on, which is
// closed once the last of them is released.
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { DirectoryWatch } from '../../lib/dir-watch.js';
import type { Logger } from '../../lib/logger.js';
import type { RecognizerOptions, SpeechRecognizer, SpeechToTextEngine } from './engine.js';
import { PocketSphinxEngine } from './pocketsphinx.js';
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
  /** Builds the engine of a model file (tests and the benchmark pass their own). */
  whisper?: (modelPath: string) => LoadableEngine;
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

/** Changes when the file is replaced or rewritten. */
const stampOf = (path: string, s: { ino: number; size: number; mtimeMs: number } | null | undefined) =>
  s ? `${path}\n${s.ino}\n${s.size}\n${s.mtimeMs}` : null;

export class InstalledSpeechEngine implements SpeechToTextEngine {
  private current: InUse;
  /** The stamp of the model file `current` runs (null: the fallback). */
  private stamp: string | null = null;
  /** A model file the runtime could not load, until it changes. */
  private refused: string | null = null;
  private readonly watch: DirectoryWatch;
  private readonly makeWhisper: (path: string) => LoadableEngine;
  private readonly fallback: () => SpeechToTextEngine;

  /** Picks the engine from what is installed now (the model loads with the first session); watching starts here. */
  constructor(private readonly opts: InstalledSpeechEngineOptions) {
    this.makeWhisper = opts.whisper ?? ((modelPath) => new WhisperEngine({ modelPath }));
    this.fallback = opts.fallback ?? (opts.mode === 'whisper' ? () => NO_ENGINE : () => new PocketSphinxEngine());
    const model = findWhisperModel(opts.dir);
    if (opts.mode === 'whisper' && !model) throw new Error(`TOLK_STT_ENGINE=whisper, but there is no Whisper model (ggml-*.bin) in ${opts.dir}`);
    this.current = { engine: model ? this.makeWhisper(model) : this.fallback(), users: 0, retired: false };
    this.stamp = model ? stampOf(model, statSync(model, { throwIfNoEntry: false })) : null;
    if (model) opts.logger.info({ model }, 'speech-to-text: Whisper');
    this.watch = new DirectoryWatch(opts.dir, () => this.scan(), { intervalMs: opts.rescanIntervalMs ?? 30_000, logger: opts.logger, what: 'speech models' });
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

  private async scan(): Promise<void> {
    const model = findWhisperModel(this.opts.dir);
    const stamp = model ? stampOf(model, await stat(model).catch(() => null)) : null;
    if (stamp === this.stamp || (stamp !== null && stamp === this.refused)) return;
    let next: LoadableEngine;
    if (model) {
      next = this.makeWhisper(model);
      try {
        await next.load?.();
      } catch (err) {
        this.refused = stamp;
        this.opts.logger.error({ err, model }, 'speech model refused: the runtime cannot load it; the current engine stays');
        await next.close().catch(() => {});
        return;
      }
    } else {
      next = this.fallback();
    }
    const old = this.current;
    this.current = { engine: next, users: 0, retired: false };
    this.stamp = stamp;
    this.refused = null;
    this.opts.logger.info({ model, engine: next.name }, 'speech-to-text engine changed: installed speech models changed');
    old.retired = true;
    if (old.users === 0) await old.engine.close().catch((err) => this.opts.logger.error({ err }, 'closing a replaced speech engine failed'));
  }
}
