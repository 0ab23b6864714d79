// Whisper run by sherpa-onnx (onnxruntime) on an operator-installed model in sherpa-onnx's ONNX format
// (sherpa-whisper-files.ts): a third of whisper.cpp's CPU on the same model here (docs/benchmarks.md, issue 21), since
// onnxruntime uses the machine's vector units and threads where the prebuilt whisper.cpp does not. The stream side is
// whisper.cpp's (whisper-recognizer.ts: utterance detection, partial results), as is the one-at-a-time queue.
import sherpa, { type OfflineRecognizer } from 'sherpa-onnx-node';
import type { RecognizerOptions, SpeechRecognizer, SpeechToTextEngine } from './engine.js';
import { STT_SAMPLE_RATE } from './engine.js';
import { isMultilingual, probeSherpaWhisperModel, sherpaWhisperConfig, type SherpaWhisperFiles } from './sherpa-whisper-files.js';
import { TranscriptionQueue, type TranscriptionKind } from './transcription-queue.js';
import { fromWhisper, toWhisper, WHISPER_LANGUAGES } from './whisper.js';
import { WhisperRecognizer } from './whisper-recognizer.js';

export interface SherpaWhisperOptions {
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
  partialEveryMs?: number;
  pauseMs?: number;
  maxUtteranceMs?: number;
}

/** sherpa-onnx's language for Whisper to detect it. */
const DETECT = '';

export class SherpaWhisperEngine implements SpeechToTextEngine {
  readonly name = 'sherpa-whisper';
  readonly languages: ReadonlySet<string>;
  /** Multilingual models detect the language (English-only ones know one). */
  readonly detectsLanguage: boolean;
  readonly partialEveryMs: number;
  readonly pauseMs: number;
  readonly maxUtteranceMs: number;
  private readonly multilingual: boolean;
  /**
   * One recogniser per Whisper language ('' detects): sherpa-onnx sets the language per recogniser, not per stream.
   * Created on first use; each holds its own copy of the model.
   */
  private readonly recognizers = new Map<string, Promise<OfflineRecognizer>>();
  private loaded: Promise<void> | null = null;
  private readonly queue: TranscriptionQueue;

  constructor(private readonly options: SherpaWhisperOptions) {
    this.multilingual = isMultilingual(options.files);
    this.languages = new Set(this.multilingual ? WHISPER_LANGUAGES.map(fromWhisper) : ['en']);
    this.detectsLanguage = this.multilingual;
    this.partialEveryMs = options.partialEveryMs ?? 1000;
    this.pauseMs = options.pauseMs ?? 600;
    this.maxUtteranceMs = options.maxUtteranceMs ?? 25_000;
    this.queue = new TranscriptionQueue(this.partialEveryMs);
  }

  /** Transcriptions made and the time sherpa-onnx spent on them (counted by bench/voice-engines.ts). */
  get stats(): { calls: number; busyMs: number } {
    return this.queue.stats;
  }

  /** Loads the model (once; checked in a child process first): rejects, saying why, when sherpa-onnx cannot. */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      if (this.options.probe !== false) await probeSherpaWhisperModel(this.options.files);
      await this.recognizer(DETECT);
    })();
    return this.loaded;
  }

  partialIntervalMs(): number {
    return this.queue.partialIntervalMs();
  }

  idle(): boolean {
    return this.queue.idle();
  }

  async createRecognizer(language: string, options: RecognizerOptions = {}): Promise<SpeechRecognizer> {
    if (!this.languages.has(language)) throw new Error(`the Whisper model does not transcribe ${language}`);
    await this.load();
    const detectAmong = this.detectsLanguage ? new Set([...(options.detectAmong ?? [])].filter((l) => this.languages.has(l))) : new Set<string>();
    // no initial prompt in sherpa-onnx's Whisper, so spoken terms cannot bias decoding as whisper.cpp's prompt does
    return new WhisperRecognizer(this, language, '', detectAmong);
  }

  /** One utterance, in the queue's turn; `language` 'auto' detects it (reported when sherpa-onnx returns it). */
  transcribeDetailed(audio: Int16Array, language: string, _prompt: string, kind: TranscriptionKind): Promise<{ text: string; language: string }> {
    return this.queue.run(kind, () => this.call(audio, language));
  }

  private recognizer(whisperLanguage: string): Promise<OfflineRecognizer> {
    // an English-only model has no language tokens: one recogniser serves it
    const key = this.multilingual ? whisperLanguage : DETECT;
    let made = this.recognizers.get(key);
    if (!made) {
      const { files, threads, tailPaddings } = this.options;
      made = sherpa.OfflineRecognizer.createAsync(sherpaWhisperConfig(files, key, threads ?? 2, tailPaddings ?? 50));
      this.recognizers.set(key, made);
      // a failed creation is not cached: the next call tries again
      made.catch(() => this.recognizers.delete(key));
    }
    return made;
  }

  private async call(audio: Int16Array, language: string): Promise<{ text: string; language: string }> {
    const recognizer = await this.recognizer(language === 'auto' ? DETECT : toWhisper(language));
    const samples = new Float32Array(audio.length);
    for (let i = 0; i < audio.length; i++) samples[i] = audio[i]! / 32768;
    const stream = recognizer.createStream();
    stream.acceptWaveform({ samples, sampleRate: STT_SAMPLE_RATE });
    const result = await recognizer.decodeAsync(stream);
    // sherpa-onnx fills `lang` for multilingual models ("en", some versions "<|en|>"); else the language asked for
    const heard = (result.lang ?? '').replace(/^<\|(.*)\|>$/, '$1');
    return { text: result.text, language: heard ? fromWhisper(heard) : language };
  }

  async close(): Promise<void> {
    await this.queue.drained();
    // the binding frees a recogniser once it is unreachable (it has no free call): drop every reference
    this.recognizers.clear();
    this.loaded = null;
  }
}
