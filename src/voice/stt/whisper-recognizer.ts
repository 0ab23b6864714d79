// Whisper's recogniser of one stream: Whisper transcribes windows, not streams, so an energy detector finds
// utterances, the utterance so far is re-transcribed for partial results while the speaker talks, and once more when a
// pause concludes it (unless nothing was said since the latest partial). Partial transcriptions cost the whole
// utterance each, so they are bounded: one at a time per session, in the background (the stream goes on), spaced to
// twice the latest call's time, and only on an idle engine (concluding transcriptions always go first).
import type { RecognizerEvent, SpeechRecognizer } from './engine.js';
import { STT_SAMPLE_RATE } from './engine.js';

/** What the recogniser needs of the engine (whisper.ts). */
export interface WhisperTranscriber {
  readonly pauseMs: number;
  readonly maxUtteranceMs: number;
  /** Audio between periodic partial transcriptions of one session. */
  partialIntervalMs(): number;
  /** Nothing transcribing or waiting to. */
  idle(): boolean;
  transcribeDetailed(audio: Int16Array, language: string, prompt: string, kind: 'partial' | 'final'): Promise<{ text: string; language: string }>;
}

/** 20 ms frames; speech is a frame this far above the quietest recent frames (and above a floor). */
const FRAME = STT_SAMPLE_RATE / 50;
const SPEECH_OVER_NOISE_DB = 12;
const MIN_SPEECH_DBFS = -50;
/** Silence after speech that starts a transcription in case it becomes the concluding pause. */
const EARLY_TRANSCRIPTION_SILENCE_MS = 200;
/** Speech kept before the first loud frame (soft onsets). */
const LEAD_IN_MS = 200;

/** Bracketed non-speech labels Whisper writes for silence or noise ("[BLANK_AUDIO]", "(music)"). */
const NON_SPEECH = /\[[^\]]*\]|\([^)]*\)|\*[^*]*\*/g;

export class WhisperRecognizer implements SpeechRecognizer {
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
    private readonly engine: WhisperTranscriber,
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

