// Speech-to-text engine interface: one recognizer per stream, fed 16 kHz mono s16 samples in arrival order.

export interface RecognizedSegment {
  text: string;
  /** Milliseconds from the start of the stream. */
  startMs: number;
  endMs: number;
  /** The language heard, when the recogniser was asked to detect it (RecognizerOptions.detectAmong). */
  language?: string;
}

export type RecognizerEvent =
  | { kind: 'partial'; segment: RecognizedSegment }
  | { kind: 'final'; segment: RecognizedSegment };

export interface SpeechRecognizer {
  /** Processes samples; returns what changed (a new partial, or a concluded utterance). */
  write(samples: Int16Array): Promise<RecognizerEvent[]>;
  /** End of audio: concludes whatever is pending. */
  finish(): Promise<RecognizerEvent[]>;
  /** Frees the recognizer (returns pooled resources). */
  release(): void;
}

export interface RecognizerOptions {
  /** Terms (written forms) the transcript should get right: product names, jargon. */
  spokenTerms?: readonly string[];
  /**
   * Detect the spoken language among these (source_language_mode auto); the language given to createRecognizer is
   * the fallback when the engine hears another. Ignored by engines that cannot detect (detectsLanguage false).
   */
  detectAmong?: ReadonlySet<string>;
}

export interface SpeechToTextEngine {
  readonly name: string;
  /** Base language codes (en, de, …) this engine transcribes. */
  readonly languages: ReadonlySet<string>;
  /** Whether the engine can tell which of its languages is spoken. */
  readonly detectsLanguage: boolean;
  createRecognizer(language: string, options?: RecognizerOptions): Promise<SpeechRecognizer>;
  close(): Promise<void>;
}

export const STT_SAMPLE_RATE = 16000;
