// What Tolk's two Whisper runtimes share (whisper.cpp: whisper.ts, sherpa-onnx: sherpa-whisper.ts): the languages of
// a model, the stream side (whisper-recognizer.ts: utterance detection, partial results) and the one-at-a-time queue.
// A runtime brings loading, one transcription call, closing, and what it makes of spoken terms.
import type { RecognizerOptions, SpeechRecognizer, SpeechToTextEngine } from './engine.js';
import { TranscriptionQueue, type TranscriptionKind } from './transcription-queue.js';
import { WhisperRecognizer, type WhisperTranscriber } from './whisper-recognizer.js';

/** Languages of the multilingual Whisper models (Whisper's codes). */
export const WHISPER_LANGUAGES = (
  'en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi ml cy sk ' +
  'te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am yi lo uz fo ' +
  'ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue'
).split(' ');

/** Whisper's code for Norwegian Bokmål is 'no'; Tolk's (and the reference's) is 'nb'. */
export const toWhisper = (language: string) => (language === 'nb' ? 'no' : language);
export const fromWhisper = (language: string) => (language === 'no' ? 'nb' : language);

export interface WhisperTiming {
  /** Audio since the last partial result before the next one is transcribed (longer when transcribing is slow). */
  partialEveryMs?: number;
  /** Silence that concludes an utterance. */
  pauseMs?: number;
  /** Longest utterance (Whisper's window is 30 s). */
  maxUtteranceMs?: number;
}

export abstract class WhisperBaseEngine implements SpeechToTextEngine, WhisperTranscriber {
  abstract readonly name: string;
  readonly languages: ReadonlySet<string>;
  /** Multilingual models detect the language (English-only ones know one). */
  readonly detectsLanguage: boolean;
  readonly partialEveryMs: number;
  readonly pauseMs: number;
  readonly maxUtteranceMs: number;
  /** The runtime transcribes one call at a time: calls wait here, concluding ones before partial ones. */
  protected readonly queue: TranscriptionQueue;

  /** `whisperLanguages`: the model's, in Whisper's codes (['en'] for an English-only model). */
  constructor(whisperLanguages: readonly string[], timing: WhisperTiming) {
    this.languages = new Set(whisperLanguages.map(fromWhisper));
    this.detectsLanguage = this.languages.size > 1;
    this.partialEveryMs = timing.partialEveryMs ?? 1000;
    this.pauseMs = timing.pauseMs ?? 600;
    this.maxUtteranceMs = timing.maxUtteranceMs ?? 25_000;
    this.queue = new TranscriptionQueue(this.partialEveryMs);
  }

  /** Loads the model (once; the first session otherwise waits for it); rejects when the runtime cannot. */
  abstract load(): Promise<unknown>;
  abstract close(): Promise<void>;
  /** Transcribes one utterance (in the queue's turn); `language` 'auto' detects it. */
  protected abstract call(audio: Int16Array, language: string, prompt: string): Promise<{ text: string; language: string }>;
  /** The spoken terms as the runtime's prompt. */
  protected abstract promptOf(terms: readonly string[]): string;

  /** Transcriptions made and the time the runtime spent on them (the benchmark's measure of the engine's load). */
  get stats(): { calls: number; busyMs: number } {
    return this.queue.stats;
  }

  /** The encoder runs on the utterance's length only, so a call's cost grows with it (see TranscriptionQueue). */
  partialIntervalMs(): number {
    return this.queue.partialIntervalMs();
  }

  /** Nothing transcribing or waiting to. */
  idle(): boolean {
    return this.queue.idle();
  }

  async createRecognizer(language: string, options: RecognizerOptions = {}): Promise<SpeechRecognizer> {
    if (!this.languages.has(language)) throw new Error(`the Whisper model does not transcribe ${language}`);
    await this.load();
    const detectAmong = this.detectsLanguage ? new Set([...(options.detectAmong ?? [])].filter((l) => this.languages.has(l))) : new Set<string>();
    return new WhisperRecognizer(this, language, this.promptOf(options.spokenTerms ?? []), detectAmong);
  }

  /** With the language the runtime used (the detected one for 'auto'). A `partial` call waits behind concluding ones. */
  transcribeDetailed(audio: Int16Array, language: string, prompt = '', kind: TranscriptionKind = 'final'): Promise<{ text: string; language: string }> {
    return this.queue.run(kind, () => this.call(audio, language, prompt));
  }
}
