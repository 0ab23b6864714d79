// Benchmark-only: Whisper run by sherpa-onnx (its offline recogniser, decodeAsync off the event loop) behind Tolk's
// Whisper recogniser, so it is measured exactly as WhisperEngine (whisper.cpp) is: same utterance detection, partial
// results and queue (one transcription at a time, concluding ones before partial ones), same thread count.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sherpa, { type OfflineRecognizer } from 'sherpa-onnx-node';
import type { SpeechRecognizer, SpeechToTextEngine } from '../src/voice/stt/engine.js';
import { STT_SAMPLE_RATE } from '../src/voice/stt/engine.js';
import { WhisperRecognizer, type WhisperTranscriber } from '../src/voice/stt/whisper-recognizer.js';
import { writeSherpaWhisperModel, type SherpaWhisperFiles } from '../test/helpers/sherpa-whisper-model.js';
import { TINY_EN } from '../test/helpers/whisper-model.js';

export interface SherpaWhisperOptions {
  files: SherpaWhisperFiles;
  /** CPU threads of one transcription (whisper.ts's default: 2). */
  threads?: number;
  /** Silence (10 ms feature frames) sherpa-onnx appends to the audio before encoding; unset: its default, 1,000. */
  tailPaddings?: number;
  /** Removed on close (the generated model's temporary directory). */
  ownedDir?: string;
}

export class SherpaWhisperEngine implements SpeechToTextEngine, WhisperTranscriber {
  readonly name = 'sherpa-whisper';
  readonly languages: ReadonlySet<string> = new Set(['en']);
  readonly detectsLanguage = false;
  readonly partialEveryMs = 1000;
  readonly pauseMs = 600;
  readonly maxUtteranceMs = 25_000;
  private recognizer: Promise<OfflineRecognizer> | null = null;
  private readonly waiting: { kind: 'partial' | 'final'; run: () => Promise<void> }[] = [];
  private running: Promise<void> | null = null;
  private lastCallMs = 0;
  /** Transcriptions made and the time sherpa-onnx spent on them (counted by bench/voice-engines.ts). */
  readonly stats = { calls: 0, busyMs: 0 };

  constructor(private readonly options: SherpaWhisperOptions) {}

  load(): Promise<OfflineRecognizer> {
    const { files, threads, tailPaddings } = this.options;
    this.recognizer ??= sherpa.OfflineRecognizer.createAsync({
      featConfig: { sampleRate: STT_SAMPLE_RATE, featureDim: TINY_EN.mels },
      modelConfig: {
        whisper: { encoder: files.encoder, decoder: files.decoder, language: '', task: 'transcribe', ...(tailPaddings ? { tailPaddings } : {}) },
        tokens: files.tokens,
        numThreads: threads ?? 2,
      },
    });
    return this.recognizer;
  }

  /** As WhisperEngine: partial results spaced to at least twice the latest call's time. */
  partialIntervalMs(): number {
    return Math.max(this.partialEveryMs, 2 * this.lastCallMs);
  }

  idle(): boolean {
    return this.running === null && this.waiting.length === 0;
  }

  async createRecognizer(language: string): Promise<SpeechRecognizer> {
    if (!this.languages.has(language)) throw new Error(`the model does not transcribe ${language}`);
    await this.load();
    return new WhisperRecognizer(this, language, '', new Set());
  }

  /** Queued like WhisperEngine's calls: one at a time, a concluding call ahead of every waiting partial one. */
  transcribeDetailed(audio: Int16Array, language: string, _prompt: string, kind: 'partial' | 'final'): Promise<{ text: string; language: string }> {
    return new Promise((resolve, reject) => {
      const job = { kind, run: () => this.call(audio).then((text) => resolve({ text, language }), reject) };
      const at = kind === 'final' ? this.waiting.findIndex((j) => j.kind === 'partial') : -1;
      this.waiting.splice(at < 0 ? this.waiting.length : at, 0, job);
      this.next();
    });
  }

  private next(): void {
    if (this.running) return;
    const job = this.waiting.shift();
    if (!job) return;
    this.running = job.run().finally(() => {
      this.running = null;
      this.next();
    });
  }

  private async call(audio: Int16Array): Promise<string> {
    const recognizer = await this.load();
    const started = performance.now();
    const samples = new Float32Array(audio.length);
    for (let i = 0; i < audio.length; i++) samples[i] = audio[i]! / 32768;
    const stream = recognizer.createStream();
    stream.acceptWaveform({ samples, sampleRate: STT_SAMPLE_RATE });
    const result = await recognizer.decodeAsync(stream);
    this.lastCallMs = performance.now() - started;
    this.stats.calls++;
    this.stats.busyMs += this.lastCallMs;
    return result.text;
  }

  async close(): Promise<void> {
    while (this.running) await this.running;
    // the native recogniser is freed by the garbage collector (the binding has no explicit free)
    this.recognizer = null;
    if (this.options.ownedDir) rmSync(this.options.ownedDir, { recursive: true, force: true });
  }
}

/**
 * sherpa-onnx on a generated model of the public sherpa-onnx-whisper-tiny.en's shape (float32), written to a temp
 * dir. `tailPaddings` unset: sherpa-onnx's default 10 s of silence after the audio; 50: half a second, as Tolk's
 * whisper.cpp call sizes its encoder; 3000: always Whisper's whole 30 s window (sherpa-onnx caps the input there).
 */
export function tinyShapedSherpaWhisper(opts: { tailPaddings?: number } = {}): SherpaWhisperEngine {
  const dir = mkdtempSync(join(tmpdir(), 'tolk-bench-sherpa-whisper-'));
  const files = writeSherpaWhisperModel(dir, TINY_EN);
  return new SherpaWhisperEngine({ files, threads: 2, ownedDir: dir, ...opts });
}
