// Whisper through whisper.cpp (@fugood/whisper.node, prebuilt binaries): an operator-installed ggml model file
// (TOLK_MODELS_DIR/whisper/ggml-*.bin, the public whisper.cpp format). Whisper transcribes windows, not streams, so
// the recogniser finds utterances with an energy detector, re-transcribes the utterance so far for partial results
// while the speaker talks, and transcribes it once more when a pause concludes it. Punctuation and casing are the
// model's.
import { existsSync, readdirSync, openSync, readSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import type { RecognizerEvent, RecognizerOptions, SpeechRecognizer, SpeechToTextEngine } from './engine.js';
import { STT_SAMPLE_RATE } from './engine.js';

export interface WhisperOptions {
  /** The ggml model file. */
  modelPath: string;
  /** CPU threads of one transcription. */
  threads?: number;
  /** Audio since the last partial result before the next one is transcribed (longer when transcribing is slow). */
  partialEveryMs?: number;
  /** Silence that concludes an utterance. */
  pauseMs?: number;
  /** Longest utterance (Whisper's window is 30 s). */
  maxUtteranceMs?: number;
}

/** Languages of the multilingual Whisper models (base codes). */
const WHISPER_LANGUAGES = (
  'en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi ml cy sk ' +
  'te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am yi lo uz fo ' +
  'ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue'
).split(' ');

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

interface WhisperContext {
  transcribeData(audio: ArrayBuffer, options: Record<string, unknown>): { promise: Promise<{ result: string }> };
  release(): Promise<void>;
}

/** 20 ms frames; speech is a frame this far above the quietest recent frames (and above a floor). */
const FRAME = STT_SAMPLE_RATE / 50;
const SPEECH_OVER_NOISE_DB = 12;
const MIN_SPEECH_DBFS = -50;
/** Speech kept before the first loud frame (soft onsets). */
const LEAD_IN_MS = 200;

/** Bracketed non-speech labels Whisper writes for silence or noise ("[BLANK_AUDIO]", "(music)"). */
const NON_SPEECH = /\[[^\]]*\]|\([^)]*\)|\*[^*]*\*/g;

class WhisperRecognizer implements SpeechRecognizer {
  private samplesIn = 0;
  private frame = new Int16Array(0);
  /** Audio of the current utterance (empty outside one), and where it starts in the stream. */
  private utterance: Int16Array[] = [];
  private uttSamples = 0;
  private uttStart = 0;
  private lastSpeech = 0;
  private sinceLastPartial = 0;
  private lastPartial = '';
  /** The last LEAD_IN_MS of audio outside an utterance. */
  private lead: Int16Array[] = [];
  private noiseDb = -60;
  private released = false;

  constructor(
    private readonly engine: WhisperEngine,
    private readonly language: string,
    /** Spoken terms as Whisper's initial prompt, which biases decoding towards their spelling. */
    private readonly prompt: string,
  ) {}

  async write(samples: Int16Array): Promise<RecognizerEvent[]> {
    const events: RecognizerEvent[] = [];
    const joined = new Int16Array(this.frame.length + samples.length);
    joined.set(this.frame);
    joined.set(samples, this.frame.length);
    let at = 0;
    for (; at + FRAME <= joined.length; at += FRAME) {
      const frame = joined.slice(at, at + FRAME);
      this.samplesIn += FRAME;
      const db = dbfs(frame);
      // the noise floor follows quiet frames at once and loud ones slowly
      this.noiseDb = db < this.noiseDb ? db : this.noiseDb + 0.01 * (db - this.noiseDb);
      const speech = db > Math.max(MIN_SPEECH_DBFS, this.noiseDb + SPEECH_OVER_NOISE_DB);
      if (this.uttSamples === 0 && !speech) {
        this.lead.push(frame);
        if (this.lead.length > LEAD_IN_MS / 20) this.lead.shift();
        continue;
      }
      if (this.uttSamples === 0) {
        this.uttStart = this.samplesIn - FRAME * (this.lead.length + 1);
        for (const f of this.lead.splice(0)) this.add(f);
      }
      this.add(frame);
      if (speech) this.lastSpeech = this.samplesIn;
      const pause = ((this.samplesIn - this.lastSpeech) * 1000) / STT_SAMPLE_RATE;
      if (pause >= this.engine.pauseMs || (this.uttSamples * 1000) / STT_SAMPLE_RATE >= this.engine.maxUtteranceMs) {
        const final = await this.conclude();
        if (final) events.push(final);
      }
    }
    this.frame = joined.slice(at);
    if (this.uttSamples > 0 && (this.sinceLastPartial * 1000) / STT_SAMPLE_RATE >= this.engine.partialIntervalMs()) {
      this.sinceLastPartial = 0;
      const text = await this.transcribe();
      if (text && text !== this.lastPartial) {
        this.lastPartial = text;
        events.push({ kind: 'partial', segment: { text, startMs: this.ms(this.uttStart), endMs: this.ms(this.samplesIn) } });
      }
    }
    return events;
  }

  async finish(): Promise<RecognizerEvent[]> {
    if (this.frame.length > 0 && this.uttSamples > 0) this.add(this.frame);
    this.frame = new Int16Array(0);
    const final = await this.conclude();
    return final ? [final] : [];
  }

  release(): void {
    this.released = true;
    this.utterance = [];
  }

  private add(frame: Int16Array): void {
    this.utterance.push(frame);
    this.uttSamples += frame.length;
    this.sinceLastPartial += frame.length;
  }

  private ms(sample: number): number {
    return Math.round((sample * 1000) / STT_SAMPLE_RATE);
  }

  private async transcribe(): Promise<string> {
    if (this.released || this.uttSamples === 0) return '';
    const audio = new Int16Array(this.uttSamples);
    let o = 0;
    for (const f of this.utterance) (audio.set(f, o), (o += f.length));
    const text = await this.engine.transcribe(audio, this.language, this.prompt);
    return text.replace(NON_SPEECH, ' ').replace(/\s+/g, ' ').trim();
  }

  private async conclude(): Promise<RecognizerEvent | null> {
    const startMs = this.ms(this.uttStart);
    // the utterance ends with its last loud frame, not with the pause that concluded it
    const endMs = Math.max(startMs, this.ms(Math.min(this.samplesIn, this.lastSpeech)));
    const text = await this.transcribe();
    this.utterance = [];
    this.uttSamples = 0;
    this.sinceLastPartial = 0;
    this.lastPartial = '';
    return text ? { kind: 'final', segment: { text, startMs, endMs } } : null;
  }
}

/** Loudness of a frame in dB relative to full scale. */
function dbfs(frame: Int16Array): number {
  let sum = 0;
  for (const s of frame) sum += s * s;
  return 10 * Math.log10(sum / frame.length / (32768 * 32768) + 1e-12);
}

export class WhisperEngine implements SpeechToTextEngine {
  readonly name = 'whisper';
  readonly languages: ReadonlySet<string>;
  readonly partialEveryMs: number;
  readonly pauseMs: number;
  readonly maxUtteranceMs: number;
  private context: Promise<WhisperContext> | null = null;
  /** whisper.cpp runs one transcription per context at a time: calls queue here. */
  private queue: Promise<unknown> = Promise.resolve();
  /** How long the latest transcription took. */
  private lastCallMs = 0;

  constructor(private readonly options: WhisperOptions) {
    this.languages = new Set(vocabularySize(options.modelPath) > 51864 ? WHISPER_LANGUAGES : ['en']);
    this.partialEveryMs = options.partialEveryMs ?? 1000;
    this.pauseMs = options.pauseMs ?? 600;
    this.maxUtteranceMs = options.maxUtteranceMs ?? 25_000;
  }

  /** Loads the model (once; the first session otherwise waits for it). */
  load(): Promise<WhisperContext> {
    this.context ??= (async () => {
      const whisper = await import('@fugood/whisper.node');
      // whisper.cpp logs to stderr unless its log is routed to the package's listeners (none here, so it is dropped);
      // routing needs the native module loaded
      await whisper.loadWhisperModule();
      await whisper.toggleNativeLog(true);
      return (await whisper.initWhisper({ filePath: this.options.modelPath, useGpu: false })) as unknown as WhisperContext;
    })();
    return this.context;
  }

  /**
   * Every call encodes a whole 30 s window, however short the utterance: partial results are spaced to at least
   * twice the time a call takes, so that they never take more than half the engine's time.
   */
  partialIntervalMs(): number {
    return Math.max(this.partialEveryMs, 2 * this.lastCallMs);
  }

  async createRecognizer(language: string, options: RecognizerOptions = {}): Promise<SpeechRecognizer> {
    if (!this.languages.has(language)) throw new Error(`the Whisper model does not transcribe ${language}`);
    await this.load();
    return new WhisperRecognizer(this, language, (options.spokenTerms ?? []).join(', '));
  }

  /** Transcribes one utterance; greedy, no temperature fallback (a partial must not cost six decodes). */
  transcribe(audio: Int16Array, language: string, prompt = ''): Promise<string> {
    const run = this.queue.then(async () => {
      const context = await this.load();
      const started = performance.now();
      const copy = audio.slice().buffer;
      const { promise } = context.transcribeData(copy, {
        language,
        maxThreads: this.options.threads ?? 2,
        temperature: 0,
        temperatureInc: 0,
        beamSize: 1,
        bestOf: 1,
        ...(prompt ? { prompt } : {}),
      });
      const { result } = await promise;
      this.lastCallMs = performance.now() - started;
      return result;
    });
    this.queue = run.catch(() => {});
    return run;
  }

  async close(): Promise<void> {
    const context = this.context;
    this.context = null;
    if (!context) return;
    await (await context).release();
    // the routed log holds a native callback that keeps the process alive
    await (await import('@fugood/whisper.node')).toggleNativeLog(false);
  }
}
