// The part of sherpa-onnx-node (a CommonJS package without type declarations) that Tolk's Whisper engine
// (sherpa-whisper.ts), its benchmark and tests use: the offline recogniser with a Whisper model (see the package's
// types.js for the full config). The binding frees a recogniser when it is garbage-collected (it has no free call).
declare module 'sherpa-onnx-node' {
  export interface OfflineWhisperModelConfig {
    encoder: string;
    decoder: string;
    language?: string;
    task?: 'transcribe' | 'translate';
    /** Feature frames (10 ms) of silence appended to the input; sherpa-onnx's default is 1,000. */
    tailPaddings?: number;
  }
  export interface OfflineRecognizerConfig {
    featConfig?: { sampleRate?: number; featureDim?: number };
    modelConfig: { whisper: OfflineWhisperModelConfig; tokens: string; numThreads?: number; debug?: boolean | number; provider?: string };
  }
  export interface OfflineRecognizerResult {
    text: string;
    /** The tokens' text (tokens.txt entries, base64-decoded). */
    tokens: string[];
    /** The language Whisper detected (its code), when the recogniser was created with language ''. */
    lang: string;
  }
  export class OfflineStream {
    acceptWaveform(wave: { samples: Float32Array; sampleRate: number }): void;
  }
  export class OfflineRecognizer {
    constructor(config: OfflineRecognizerConfig);
    static createAsync(config: OfflineRecognizerConfig): Promise<OfflineRecognizer>;
    createStream(): OfflineStream;
    /** Replaces the configuration; for Whisper only its model section (language, task) is taken, no model reload. */
    setConfig(config: OfflineRecognizerConfig): void;
    decode(stream: OfflineStream): void;
    decodeAsync(stream: OfflineStream): Promise<OfflineRecognizerResult>;
    getResult(stream: OfflineStream): OfflineRecognizerResult;
  }
  export const version: string;
  export const onnxruntimeVersion: string;
}
