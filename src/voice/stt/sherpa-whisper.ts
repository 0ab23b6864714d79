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
   * One recogniser for every language: sherpa-onnx keeps Whisper's language in the recogniser's configuration, which
   * setConfig changes without reloading the model; calls run one at a time (the base's queue), so switching it before
   * each call is safe, and one copy of the model serves every language (a recogniser per language would let sessions
   * cycling through languages load a copy each).
   */
  private recognizer: Promise<OfflineRecognizer> | null = null;
  /** The language the recogniser is set to ('' detects). */
  private configured = DETECT;
  private loaded: Promise<void> | null = null;

  constructor(private readonly options: SherpaWhisperOptions) {
    super(isMultilingual(options.files) ? WHISPER_LANGUAGES.filter((l) => l !== NOT_IN_EVERY_MODEL) : ['en'], options);
  }

  /** Loads the model (once; checked in a child process first): rejects, saying why, when sherpa-onnx cannot. */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      if (this.options.probe !== false) await probeSherpaWhisperModel(this.options.files);
      await this.created();
    })();
    return this.loaded;
  }

  /** sherpa-onnx's Whisper takes no initial prompt, so spoken terms cannot bias decoding as whisper.cpp's prompt does. */
  protected promptOf(): string {
    return '';
  }

  private config(whisperLanguage: string) {
    const { files, threads, tailPaddings } = this.options;
    return sherpaWhisperConfig(files, whisperLanguage, threads ?? 2, tailPaddings ?? 50);
  }

  /** The recogniser, created once (set to detect). */
  private created(): Promise<OfflineRecognizer> {
    if (!this.recognizer) {
      // imported on first use: a server without an ONNX model never loads onnxruntime
      const made = import('sherpa-onnx-node').then(({ default: sherpa }) => sherpa.OfflineRecognizer.createAsync(this.config(DETECT)));
      this.recognizer = made;
      this.configured = DETECT;
      // a failed creation is not kept: the next call tries again
      made.catch(() => {
        if (this.recognizer === made) this.recognizer = null;
      });
    }
    return this.recognizer;
  }

  /** The recogniser set to `whisperLanguage`; only called by call(), which the queue runs one at a time. */
  private async recognizerFor(whisperLanguage: string): Promise<OfflineRecognizer> {
    return this.created().then((recognizer) => {
      // an English-only model has no language tokens: it is never switched
      if (this.detectsLanguage && whisperLanguage !== this.configured) {
        recognizer.setConfig(this.config(whisperLanguage));
        this.configured = whisperLanguage;
      }
      return recognizer;
    });
  }

  /** `language` 'auto' detects it: reported when sherpa-onnx returns it, else the language asked for. */
  protected async call(audio: Int16Array, language: string): Promise<{ text: string; language: string }> {
    const recognizer = await this.recognizerFor(language === 'auto' ? DETECT : toWhisper(language));
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
    // the binding frees a recogniser once it is unreachable (it has no free call): drop the reference
    this.recognizer = null;
    this.loaded = null;
  }
}
