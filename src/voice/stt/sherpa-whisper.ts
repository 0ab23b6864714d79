// Whisper run by sherpa-onnx (onnxruntime) on an operator-installed model in sherpa-onnx's ONNX format
// (sherpa-whisper-files.ts): a third of whisper.cpp's CPU on the same model here (docs/benchmarks.md, issue 21), since
// onnxruntime uses the machine's vector units and threads where the prebuilt whisper.cpp does not. The stream side is
// whisper.cpp's (whisper-base.ts: utterance detection, partial results, the one-at-a-time queue).
import type { OfflineRecognizer } from 'sherpa-onnx-node';
import { STT_SAMPLE_RATE } from './engine.js';
import { isMultilingual, probeSherpaWhisperModel, sherpaWhisperConfig, type SherpaWhisperFiles } from './sherpa-whisper-files.js';
import { fromWhisper, toWhisper, WHISPER_LANGUAGES, WhisperBaseEngine, type WhisperTiming } from './whisper-base.js';

export interface SherpaWhisperOptions extends WhisperTiming {
  files: SherpaWhisperFiles;
  /** CPU threads of one transcription (as WhisperOptions.threads). */
  threads?: number;
  /**
   * Silence (10 ms feature frames) sherpa-onnx appends before encoding. Default 50, half a second, as Tolk sizes
   * whisper.cpp's window (whisper.ts, audioContextFor): room for the tail of the last word, where sherpa-onnx's own
   * default (10 s) triples the encoder's work on a short utterance.
   */
  tailPaddings?: number;
  /** Load the model in a child process first (default true): sherpa-onnx exits the process on a broken model. */
  probe?: boolean;
}

/** sherpa-onnx's language for Whisper to detect it. */
const DETECT = '';

/**
 * Cantonese is large-v3's 100th language, unknown to the other models; sherpa-onnx ends the process on a language the
 * model lacks (instead of failing the call), and tokens.txt cannot tell large-v3 apart, so it is not offered.
 */
const NOT_IN_EVERY_MODEL = 'yue';

export class SherpaWhisperEngine extends WhisperBaseEngine {
  readonly name = 'sherpa-whisper';
  /**
   * One recogniser per Whisper language ('' detects): sherpa-onnx sets the language per recogniser, not per stream.
   * Created on first use; each holds its own copy of the model.
   */
  private readonly recognizers = new Map<string, Promise<OfflineRecognizer>>();
  private loaded: Promise<void> | null = null;

  constructor(private readonly options: SherpaWhisperOptions) {
    super(isMultilingual(options.files) ? WHISPER_LANGUAGES.filter((l) => l !== NOT_IN_EVERY_MODEL) : ['en'], options);
  }

  /** Loads the model (once; checked in a child process first): rejects, saying why, when sherpa-onnx cannot. */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      if (this.options.probe !== false) await probeSherpaWhisperModel(this.options.files);
      await this.recognizer(DETECT);
    })();
    return this.loaded;
  }

  /** sherpa-onnx's Whisper takes no initial prompt, so spoken terms cannot bias decoding as whisper.cpp's prompt does. */
  protected promptOf(): string {
    return '';
  }

  private recognizer(whisperLanguage: string): Promise<OfflineRecognizer> {
    // an English-only model has no language tokens: one recogniser serves it
    const key = this.detectsLanguage ? whisperLanguage : DETECT;
    let made = this.recognizers.get(key);
    if (!made) {
      const { files, threads, tailPaddings } = this.options;
      // imported on first use: a server without an ONNX model never loads onnxruntime
      made = import('sherpa-onnx-node').then(({ default: sherpa }) =>
        sherpa.OfflineRecognizer.createAsync(sherpaWhisperConfig(files, key, threads ?? 2, tailPaddings ?? 50)),
      );
      this.recognizers.set(key, made);
      // a failed creation is not cached: the next call tries again
      made.catch(() => this.recognizers.delete(key));
    }
    return made;
  }

  /** `language` 'auto' detects it: reported when sherpa-onnx returns it, else the language asked for. */
  protected async call(audio: Int16Array, language: string): Promise<{ text: string; language: string }> {
    const recognizer = await this.recognizer(language === 'auto' ? DETECT : toWhisper(language));
    const samples = new Float32Array(audio.length);
    for (let i = 0; i < audio.length; i++) samples[i] = audio[i]! / 32768;
    const stream = recognizer.createStream();
    stream.acceptWaveform({ samples, sampleRate: STT_SAMPLE_RATE });
    const result = await recognizer.decodeAsync(stream);
    // sherpa-onnx fills `lang` (Whisper's code) for multilingual models, '' for English-only ones
    const heard = result.lang ?? '';
    return { text: result.text, language: heard ? fromWhisper(heard) : language };
  }

  async close(): Promise<void> {
    await this.queue.drained();
    // the binding frees a recogniser once it is unreachable (it has no free call): drop every reference
    this.recognizers.clear();
    this.loaded = null;
  }
}
