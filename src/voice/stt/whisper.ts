// Whisper through whisper.cpp (the library @fugood/whisper.node ships, called through its C API: whisper-native.ts):
// an operator-installed ggml model file (TOLK_MODELS_DIR/whisper/ggml-*.bin, the public whisper.cpp format). Whisper
// transcribes windows, not streams, so the recogniser finds utterances with an energy detector, re-transcribes the
// utterance so far for partial results while the speaker talks, and transcribes it once more when a pause concludes
// it (unless nothing was said since the latest partial). Partial transcriptions cost the whole utterance each, so
// they are bounded: one at a time per session, in the background (the stream goes on), spaced to twice the latest
// call's time, and only on an idle engine, where concluding transcriptions always go first. Punctuation and casing
// are the model's.
import { closeSync, existsSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { RecognizerEvent, RecognizerOptions, SpeechRecognizer, SpeechToTextEngine } from './engine.js';
import { STT_SAMPLE_RATE } from './engine.js';
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
  /** Encode the whole 30 s window on every call, as whisper.cpp does by default (the benchmark's baseline). */
  fullWindow?: boolean;
}

/** Languages of the multilingual Whisper models (base codes). */
const WHISPER_LANGUAGES = (
  'en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi ml cy sk ' +
  'te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am yi lo uz fo ' +
  'ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue'
).split(' ');

/** Whisper's code for Norwegian Bokmål is 'no'; Tolk's (and the reference's) is 'nb'. */
const toWhisper = (language: string) => (language === 'nb' ? 'no' : language);
const fromWhisper = (language: string) => (language === 'no' ? 'nb' : language);

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

/** 20 ms frames; speech is a frame this far above the quietest recent frames (and above a floor). */
const FRAME = STT_SAMPLE_RATE / 50;
const SPEECH_OVER_NOISE_DB = 12;
const MIN_SPEECH_DBFS = -50;
/** Silence after speech that starts a transcription in case it becomes the concluding pause. */
const EARLY_TRANSCRIPTION_SILENCE_MS = 200;
/** Speech kept before the first loud frame (soft onsets). */
const LEAD_IN_MS = 200;

/** Engines with a loaded model: whisper.cpp's log is routed (dropped) while there is one. */
let loadedEngines = 0;

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
  /** The latest partial transcription's text (also when unchanged, so not emitted). */
  private partialText = '';
  /** The stream position the latest partial transcription covered (0: none in this utterance). */
  private partialCovers = 0;
  /** The partial transcription running (at most one per session), and partial results it produced, not yet returned. */
  private inFlight: Promise<void> | null = null;
  private ready: RecognizerEvent[] = [];
  /** The last LEAD_IN_MS of audio outside an utterance. */
  private lead: Int16Array[] = [];
  private noiseDb = -60;
  private released = false;

  constructor(
    private readonly engine: WhisperEngine,
    private readonly language: string,
    /** Spoken terms as Whisper's initial prompt, which biases decoding towards their spelling. */
    private readonly prompt: string,
    /** Languages to detect among (empty: transcribe `language`). */
    private readonly detectAmong: ReadonlySet<string>,
  ) {}

  /** The language detected in the current utterance (its first transcription detects, later ones reuse it). */
  private detected: string | null = null;

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
        // partial results of the utterance that came while it concluded go first
        events.push(...this.ready.splice(0));
        if (final) events.push(final);
      }
    }
    this.frame = joined.slice(at);
    const due = this.uttSamples > 0 && !this.inFlight ? this.partialDue() : null;
    if (due) this.startPartial(due);
    // partial results transcribed since the last write
    return [...this.ready.splice(0), ...events];
  }

  /**
   * Transcribes the utterance so far in the background: the stream keeps feeding audio (a pause keeps being
   * detected on time) and its result goes out with the next write. One at a time per session.
   */
  private startPartial(kind: 'partial' | 'final'): void {
    this.sinceLastPartial = 0;
    const covers = this.samplesIn;
    const startMs = this.ms(this.uttStart);
    this.inFlight = this.transcribe(kind)
      .then((text) => {
        this.partialCovers = covers;
        this.partialText = text;
        if (text && text !== this.lastPartial) {
          this.lastPartial = text;
          this.ready.push({ kind: 'partial', segment: { text, startMs, endMs: this.ms(covers), ...this.heard() } });
        }
      })
      .catch(() => {})
      .finally(() => (this.inFlight = null));
  }

  async finish(): Promise<RecognizerEvent[]> {
    if (this.frame.length > 0 && this.uttSamples > 0) this.add(this.frame);
    this.frame = new Int16Array(0);
    const final = await this.conclude();
    const partials = this.ready.splice(0);
    return final ? [...partials, final] : partials;
  }

  release(): void {
    this.released = true;
    this.utterance = [];
  }

  /**
   * Once as soon as a short silence follows speech not yet transcribed (queued as a concluding transcription: if the
   * silence turns into the pause that concludes the utterance, it is the utterance's text, and the concluded segment
   * comes without another call), and every partialIntervalMs while the speaker talks, when the engine is idle (these
   * never hold up another session's concluding transcription), else null.
   */
  private partialDue(): 'partial' | 'final' | null {
    const silentMs = ((this.samplesIn - this.lastSpeech) * 1000) / STT_SAMPLE_RATE;
    if (silentMs >= EARLY_TRANSCRIPTION_SILENCE_MS && this.partialCovers < this.lastSpeech) return 'final';
    const due = (this.sinceLastPartial * 1000) / STT_SAMPLE_RATE >= this.engine.partialIntervalMs();
    return due && this.engine.idle() ? 'partial' : null;
  }

  /** The segment's language field when detecting. */
  private heard(): { language?: string } {
    return this.detectAmong.size > 0 ? { language: this.detected ?? this.language } : {};
  }

  private add(frame: Int16Array): void {
    this.utterance.push(frame);
    this.uttSamples += frame.length;
    this.sinceLastPartial += frame.length;
  }

  private ms(sample: number): number {
    return Math.round((sample * 1000) / STT_SAMPLE_RATE);
  }

  private async transcribe(kind: 'partial' | 'final'): Promise<string> {
    if (this.released || this.uttSamples === 0) return '';
    const audio = new Int16Array(this.uttSamples);
    let o = 0;
    for (const f of this.utterance) (audio.set(f, o), (o += f.length));
    const detect = this.detectAmong.size > 0;
    const result = await this.engine.transcribeDetailed(audio, detect ? (this.detected ?? 'auto') : this.language, this.prompt, kind);
    // a language heard outside the allowed ones (no translation from it) falls back to the session's
    if (detect && !this.detected) this.detected = this.detectAmong.has(result.language) ? result.language : this.language;
    return result.text.replace(NON_SPEECH, ' ').replace(/\s+/g, ' ').trim();
  }

  private async conclude(): Promise<RecognizerEvent | null> {
    const startMs = this.ms(this.uttStart);
    // the utterance ends with its last loud frame, not with the pause that concluded it
    const endMs = Math.max(startMs, this.ms(Math.min(this.samplesIn, this.lastSpeech)));
    // the partial transcription running may cover the whole utterance
    if (this.inFlight) await this.inFlight;
    // no speech since the latest transcription: its text is the utterance's
    const text = this.partialCovers >= this.lastSpeech && this.partialCovers > 0 ? this.partialText : await this.transcribe('final');
    this.utterance = [];
    this.uttSamples = 0;
    this.sinceLastPartial = 0;
    this.lastPartial = '';
    this.partialText = '';
    this.partialCovers = 0;
    const heard = this.heard();
    this.detected = null;
    return text ? { kind: 'final', segment: { text, startMs, endMs, ...heard } } : null;
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
  /** Multilingual models detect the language (English-only ones know one). */
  readonly detectsLanguage: boolean;
  readonly partialEveryMs: number;
  readonly pauseMs: number;
  readonly maxUtteranceMs: number;
  private model: Promise<LoadedModel> | null = null;
  /**
   * whisper.cpp runs one transcription per state at a time: calls wait here, concluding ones before partial ones.
   */
  private readonly waiting: { kind: 'partial' | 'final'; run: () => Promise<void> }[] = [];
  private running: Promise<void> | null = null;
  /** How long the latest transcription took. */
  private lastCallMs = 0;
  /** Transcriptions made and the time whisper.cpp spent on them (the benchmark's measure of the engine's load). */
  readonly stats = { calls: 0, busyMs: 0 };

  constructor(private readonly options: WhisperOptions) {
    this.languages = new Set(vocabularySize(options.modelPath) > 51864 ? WHISPER_LANGUAGES.map(fromWhisper) : ['en']);
    this.detectsLanguage = this.languages.size > 1;
    this.partialEveryMs = options.partialEveryMs ?? 1000;
    this.pauseMs = options.pauseMs ?? 600;
    this.maxUtteranceMs = options.maxUtteranceMs ?? 25_000;
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

  /**
   * A call's cost follows the utterance (the encoder runs on its length only) and grows with it: partial results
   * are spaced to at least twice the time the latest call took, so that they never take more than half the engine.
   */
  partialIntervalMs(): number {
    return Math.max(this.partialEveryMs, 2 * this.lastCallMs);
  }

  async createRecognizer(language: string, options: RecognizerOptions = {}): Promise<SpeechRecognizer> {
    if (!this.languages.has(language)) throw new Error(`the Whisper model does not transcribe ${language}`);
    await this.load();
    const detectAmong = this.detectsLanguage ? new Set([...(options.detectAmong ?? [])].filter((l) => this.languages.has(l))) : new Set<string>();
    return new WhisperRecognizer(this, language, (options.spokenTerms ?? []).join(', '), detectAmong);
  }

  /**
   * Transcribes one utterance; greedy, no temperature fallback (a partial must not cost six decodes), no text
   * carried over from the previous call (the state is shared by every stream). The encoder's context is sized to the
   * audio (50 positions a second, plus a margin) instead of Whisper's fixed 30 s window.
   */
  async transcribe(audio: Int16Array, language: string, prompt = ''): Promise<string> {
    return (await this.transcribeDetailed(audio, language, prompt)).text;
  }

  /** Nothing transcribing or waiting to. */
  idle(): boolean {
    return this.running === null && this.waiting.length === 0;
  }

  /**
   * As transcribe, with the language whisper.cpp used (the detected one for 'auto'). A `partial` call waits behind
   * every concluding one.
   */
  transcribeDetailed(audio: Int16Array, language: string, prompt = '', kind: 'partial' | 'final' = 'final'): Promise<{ text: string; language: string }> {
    return new Promise((resolve, reject) => {
      const job = { kind, run: () => this.call(audio, language, prompt).then(resolve, reject) };
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

  private async call(audio: Int16Array, language: string, prompt: string): Promise<{ text: string; language: string }> {
    const { native, context, state } = await this.load();
    const started = performance.now();
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
    this.lastCallMs = performance.now() - started;
    this.stats.calls++;
    this.stats.busyMs += this.lastCallMs;
    return { text: native.segments(state).join(''), language: fromWhisper(native.language(state)) };
  }

  async close(): Promise<void> {
    const model = this.model;
    this.model = null;
    const loaded = await model?.catch(() => null);
    if (!loaded) return;
    const { native, context, state } = loaded;
    while (this.running) await this.running;
    native.freeState(state);
    native.free(context);
    // the routed log holds a native callback that keeps the process alive; another loaded model (one replacing this
    // model while sessions still use it) keeps it routed
    if (--loadedEngines === 0) await (await import('@fugood/whisper.node')).toggleNativeLog(false);
  }
}
