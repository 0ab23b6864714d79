// Whisper through whisper.cpp (the library @fugood/whisper.node ships, called through its C API: whisper-native.ts):
// an operator-installed ggml model file (TOLK_MODELS_DIR/whisper/ggml-*.bin, the public whisper.cpp format). One
// transcription runs at a time per model; the recogniser of each stream (whisper-recognizer.ts) decides when.
// Punctuation and casing are the model's.
import { closeSync, existsSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { STT_SAMPLE_RATE } from './engine.js';
import { fromWhisper, toWhisper, WHISPER_LANGUAGES, WhisperBaseEngine, type WhisperTiming } from './whisper-base.js';
import { whisperNative, type WhisperNative } from './whisper-native.js';

interface LoadedModel {
  native: WhisperNative;
  context: unknown;
  /** One decoding state: calls are queued, one at a time. */
  state: unknown;
}

/** whisper.cpp's shortest input (1 s), with a margin. */
const MIN_INPUT_SAMPLES = STT_SAMPLE_RATE * 1.1;
/** Whisper's encoder has 50 positions per second of audio, 1,500 in its 30 s window. */
const AUDIO_CTX_PER_SECOND = 50;
const FULL_AUDIO_CTX = 1500;

/**
 * Most tokens a call may decode: fast speech is ~4 words (~6 tokens) a second. Whisper otherwise decodes up to 220
 * tokens when it loops on a phrase (its known hallucination on noise), which costs seconds and yields garbage.
 */
export function maxTokensFor(samples: number): number {
  return Math.ceil((samples / STT_SAMPLE_RATE) * 8) + 8;
}

/** Encoder positions for `samples` of audio, with half a second to spare for the tail of the last word. */
export function audioContextFor(samples: number): number {
  return Math.min(FULL_AUDIO_CTX, Math.ceil((samples / STT_SAMPLE_RATE + 0.5) * AUDIO_CTX_PER_SECOND));
}

export interface WhisperOptions extends WhisperTiming {
  /** The ggml model file. */
  modelPath: string;
  /** CPU threads of one transcription. */
  threads?: number;
  /** Encode the whole 30 s window on every call, as whisper.cpp does by default (the benchmark's baseline). */
  fullWindow?: boolean;
}

/** The first ggml model in `dir` (sorted by name, so an operator can pick by naming), or null. */
export function findWhisperModel(dir: string): string | null {
  if (!existsSync(dir)) return null;
  const name = readdirSync(dir).filter((f) => /^ggml-.+\.bin$/.test(f)).sort()[0];
  return name ? join(dir, name) : null;
}

/** n_vocab from the model header: English-only models have 51,864 tokens, multilingual ones more. */
function vocabularySize(path: string): number {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(8);
    readSync(fd, head, 0, 8, 0);
    if (head.readUInt32LE(0) !== 0x67676d6c) throw new Error(`${path} is not a whisper.cpp (ggml) model`);
    return head.readInt32LE(4);
  } finally {
    closeSync(fd);
  }
}

/** Engines with a loaded model: whisper.cpp's log is routed (dropped) while there is one. */
let loadedEngines = 0;

export class WhisperEngine extends WhisperBaseEngine {
  readonly name = 'whisper';
  private model: Promise<LoadedModel> | null = null;

  constructor(private readonly options: WhisperOptions) {
    // English-only models have 51,864 tokens, multilingual ones more
    super(vocabularySize(options.modelPath) > 51864 ? WHISPER_LANGUAGES : ['en'], options);
  }

  /** Loads the model (once; the first session otherwise waits for it). */
  load(): Promise<LoadedModel> {
    this.model ??= (async () => {
      // whisper.cpp logs to stderr unless its log is routed to the JS binding's listeners (none here, so it is
      // dropped); the binding loads the same library file, so the routing holds for the calls made through koffi
      const whisper = await import('@fugood/whisper.node');
      await whisper.loadWhisperModule();
      if (loadedEngines++ === 0) await whisper.toggleNativeLog(true);
      try {
        const native = whisperNative();
        const context = await native.init(this.options.modelPath);
        return { native, context, state: native.newState(context) };
      } catch (err) {
        if (--loadedEngines === 0) await whisper.toggleNativeLog(false);
        throw err;
      }
    })();
    return this.model;
  }

  /** Spoken terms as Whisper's initial prompt, which biases decoding towards their spelling. */
  protected promptOf(terms: readonly string[]): string {
    return terms.join(', ');
  }

  /**
   * Transcribes one utterance; greedy, no temperature fallback (a partial must not cost six decodes), no text
   * carried over from the previous call (the state is shared by every stream). The encoder's context is sized to the
   * audio (50 positions a second, plus a margin) instead of Whisper's fixed 30 s window.
   */
  async transcribe(audio: Int16Array, language: string, prompt = ''): Promise<string> {
    return (await this.transcribeDetailed(audio, language, prompt)).text;
  }

  protected async call(audio: Int16Array, language: string, prompt: string): Promise<{ text: string; language: string }> {
    const { native, context, state } = await this.load();
    // whisper.cpp skips input under 1 s: shorter audio is padded with silence
    const samples = new Float32Array(Math.max(audio.length, MIN_INPUT_SAMPLES));
    for (let i = 0; i < audio.length; i++) samples[i] = audio[i]! / 32768;
    const params = native.defaults();
    Object.assign(params, {
      n_threads: this.options.threads ?? 2,
      language: toWhisper(language),
      no_context: true,
      no_timestamps: true,
      single_segment: false,
      print_progress: false,
      print_realtime: false,
      print_timestamps: false,
      temperature: 0,
      temperature_inc: 0,
      audio_ctx: this.options.fullWindow ? 0 : audioContextFor(samples.length),
      initial_prompt: prompt || null,
      max_tokens: maxTokensFor(audio.length),
    });
    params.greedy.best_of = 1;
    const rc = await native.full(context, state, params, samples);
    if (rc !== 0) throw new Error(`whisper.cpp failed to transcribe (${rc})`);
    return { text: native.segments(state).join(''), language: fromWhisper(native.language(state)) };
  }

  async close(): Promise<void> {
    const model = this.model;
    this.model = null;
    const loaded = await model?.catch(() => null);
    if (!loaded) return;
    const { native, context, state } = loaded;
    await this.queue.drained();
    native.freeState(state);
    native.free(context);
    // the routed log holds a native callback that keeps the process alive; another loaded model (one replacing this
    // model while sessions still use it) keeps it routed
    if (--loadedEngines === 0) await (await import('@fugood/whisper.node')).toggleNativeLog(false);
  }
}
