// One voice session's stream: validates and paces client frames, decodes audio to 16 kHz PCM, runs the recogniser,
// translates concluded segments, synthesizes translated speech, bills speech-to-text time, and emits the server
// messages in protocol order (end_of_stream last). Transport-agnostic: the route attaches a socket as a sink.
import { alawDecode, s16leToSamples, ulawDecode } from './audio/pcm.js';
import { PitchTracker, MALE_FEMALE_BOUNDARY_HZ } from './audio/pitch.js';
import { parseClientFrame, voiceErrors, VoiceProtocolError, type ServerMessage } from './protocol.js';
import type { VoiceSessionConfig } from './session-request.js';
import type { RecognizedSegment, RecognizerEvent, SpeechRecognizer, SpeechToTextEngine } from './stt/engine.js';
import { TranscriptSpacing } from './segment-text.js';
import { SourceAudio } from './source-audio.js';
import { STT_SAMPLE_RATE } from './stt/engine.js';
import type { TextToSpeechEngine, VoiceGender } from './tts/engine.js';
import { TargetMediaWriter } from './tts/target-media.js';
import type { Logger } from '../lib/logger.js';

export const MAX_CHUNK_BYTES = 100 * 1024;
export const MAX_CHUNK_MS = 1000;
export const IDLE_TIMEOUT_MS = 30_000;
/** Audio may run ahead of the wall clock by this much before pacing counts it as "faster than 2x real time". */
const PACE_ALLOWANCE_MS = 1000;
/** Speech-to-text time is charged in steps of this much (and the rest at the end). */
const CHARGE_STEP_MS = 1000;
const OUTBOX_LIMIT = 1000;

export interface StreamSink {
  send(msg: ServerMessage): void;
  /** Closes the transport (after the last message); `reason` tells the client why when no message does. */
  close(reason?: string): void;
}

export interface VoiceStreamDeps {
  stt: SpeechToTextEngine;
  tts: TextToSpeechEngine;
  translate(source: string, target: string, texts: string[], formality: 'default' | 'more' | 'less'): Promise<string[]>;
  /** source_language_mode auto: the languages the recogniser may detect (each translatable to every target). */
  detectAmong?: ReadonlySet<string>;
  /** Terms transcription is biased towards (spoken terms of the source language). */
  spokenTerms?: string[];
  /** Bills speech-to-text milliseconds; rejects when the quota is exhausted. */
  charge(ms: number): Promise<void>;
  /** The stream is over (ended or failed): the session can be forgotten. */
  onDone(): void;
  logger: Logger;
  now?: () => number;
  idleTimeoutMs?: number;
}

export class VoiceStream {
  private sink: StreamSink | null = null;
  private outbox: ServerMessage[] = [];
  private recognizer: SpeechRecognizer | null = null;
  private recognizerReady: Promise<SpeechRecognizer>;
  private readonly source: SourceAudio;
  private readonly sourceSpacing: TranscriptSpacing;
  private readonly targetSpacing = new Map<string, TranscriptSpacing>();
  /** Concluded source segments so far: a tentative translation of an older utterance is dropped. */
  private generation = 0;
  private tentativeBusy = false;
  private pendingPartial: { segment: RecognizedSegment; generation: number } | null = null;
  /** end_of_target_transcript is near: no more target updates. */
  private targetsEnded = false;
  /** Idle timeout: the pending utterance is being concluded before the 408; frames are ignored. */
  private idled = false;
  private recChain: Promise<void> = Promise.resolve();
  private outChain: Promise<void> = Promise.resolve();
  private readonly media: TargetMediaWriter | null;
  private readonly pitch: PitchTracker | null;
  private voice: VoiceGender | null;
  private ended = false;
  private done = false;
  private firstChunkAt = -1;
  /** Pacing counts from the connection: a node that was starved of CPU and reads queued chunks at once has still
   * received no more audio than the client could send since it connected. */
  private readonly openedAt: number;
  private audioMs = 0;
  private unbilledMs = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly now: () => number;

  constructor(
    private readonly config: VoiceSessionConfig,
    private readonly deps: VoiceStreamDeps,
  ) {
    this.now = deps.now ?? Date.now;
    this.openedAt = this.now();
    const src = config.sourceMedia;
    this.source = new SourceAudio(src, { samples: (s, decoded) => this.onSamples(s, decoded), fail: (err) => this.fail(err) }, deps.logger);
    this.sourceSpacing = new TranscriptSpacing(config.sourceLanguage);
    for (const t of config.targets) this.targetSpacing.set(t.label, new TranscriptSpacing(t.code));
    const recognizerOptions = { spokenTerms: deps.spokenTerms ?? [], ...(deps.detectAmong ? { detectAmong: deps.detectAmong } : {}) };
    this.recognizerReady = deps.stt.createRecognizer(config.sourceLanguage, recognizerOptions).then((r) => {
      if (this.done) r.release();
      return (this.recognizer = r);
    });
    this.recognizerReady.catch(() => {});
    const tm = config.targetMedia;
    this.media = tm ? new TargetMediaWriter(tm.media, (chunk) => this.send({ target_media_chunk: { language: tm.label, ...chunk } })) : null;
    this.voice = tm && tm.voice !== 'match' ? tm.voice : null;
    this.pitch = tm && tm.voice === 'match' ? new PitchTracker() : null;
  }

  /** Attaches a connection; messages produced while none was attached are delivered now. */
  attach(sink: StreamSink): void {
    this.sink = sink;
    for (const msg of this.outbox.splice(0)) sink.send(msg);
    this.armIdleTimer();
  }

  /** Detaches `sink` if it is the attached one; true when it was. */
  detach(sink: StreamSink): boolean {
    if (this.sink !== sink) return false;
    // The idle timer keeps running: a session nobody reconnects to within 30 s ends and frees its processes.
    this.sink = null;
    return true;
  }

  get finished(): boolean {
    return this.done;
  }

  private send(msg: ServerMessage): void {
    if (this.sink) this.sink.send(msg);
    else if (this.outbox.length < OUTBOX_LIMIT) this.outbox.push(msg);
  }

  private armIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.ended || this.done) return;
    this.idleTimer = setTimeout(() => this.onIdle(), this.deps.idleTimeoutMs ?? IDLE_TIMEOUT_MS);
    this.idleTimer.unref();
  }

  /** Handles one WebSocket frame; protocol violations end the session with an error message. */
  onFrame(raw: Buffer, isBinary: boolean): void {
    if (this.done || this.idled) return;
    try {
      const msg = parseClientFrame(raw, isBinary, this.config.messageFormat);
      if (msg.kind === 'end_of_source_media') {
        if (this.ended) throw voiceErrors.afterEnd(msg.kind);
        this.ended = true;
        if (this.idleTimer) clearTimeout(this.idleTimer);
        void this.finishStream();
        return;
      }
      if (this.ended) throw voiceErrors.afterEnd();
      this.onAudio(msg.data);
      this.armIdleTimer();
    } catch (err) {
      this.fail(err);
    }
  }

  private onAudio(data: Buffer): void {
    if (data.length > MAX_CHUNK_BYTES) throw voiceErrors.chunkTooLarge();
    const src = this.config.sourceMedia;
    const now = this.now();
    if (this.firstChunkAt < 0) this.firstChunkAt = now;
    if (src.kind === 'pcm') {
      const frameBytes = src.encoding === 's16le' ? 2 : 1;
      if (data.length % frameBytes !== 0) throw voiceErrors.partialFrame();
      const chunkMs = ((data.length / frameBytes) * 1000) / src.rate;
      if (chunkMs > MAX_CHUNK_MS) throw voiceErrors.chunkTooLarge();
      this.audioMs += chunkMs;
      if (this.tooFast(now, chunkMs)) throw voiceErrors.tooFast();
      const samples = src.encoding === 's16le' ? s16leToSamples(data) : src.encoding === 'alaw' ? alawDecode(data) : ulawDecode(data);
      this.source.pushPcm(samples);
      return;
    }
    this.source.pushContainer(data, now - this.firstChunkAt);
  }

  private onSamples(samples: Int16Array, decoded: boolean): void {
    if (decoded) {
      this.audioMs += (samples.length * 1000) / STT_SAMPLE_RATE;
      // Chunk durations are only known once decoded: the decoded audio may lead by a whole chunk's 1 s.
      if (this.tooFast(this.now(), MAX_CHUNK_MS)) {
        this.fail(voiceErrors.tooFast());
        return;
      }
    }
    this.recognize(samples);
  }

  /** More audio than 2x real time since the connection opened, beyond a burst allowance for jitter and the latest chunk. */
  private tooFast(now: number, latestChunkMs: number): boolean {
    return this.audioMs > 2 * (now - this.openedAt) + PACE_ALLOWANCE_MS + latestChunkMs;
  }

  private recognize(samples: Int16Array): void {
    if (samples.length === 0) return;
    this.pitch?.push(samples);
    this.recChain = this.recChain.then(async () => {
      if (this.done) return;
      const recognizer = await this.recognizerReady;
      const events = await recognizer.write(samples);
      this.handle(events);
      await this.bill((samples.length * 1000) / STT_SAMPLE_RATE);
    });
    this.recChain = this.recChain.catch((err: unknown) => this.fail(err));
  }

  private async bill(ms: number, final = false): Promise<void> {
    this.unbilledMs += ms;
    if (this.unbilledMs < CHARGE_STEP_MS && !final) return;
    const units = Math.round(this.unbilledMs);
    this.unbilledMs -= units;
    if (units <= 0) return;
    try {
      await this.deps.charge(units);
    } catch (err) {
      throw (err as { code?: string }).code === 'quota_exceeded' ? voiceErrors.quota() : err;
    }
  }

  private handle(events: RecognizerEvent[]): void {
    for (const { kind, segment } of events) {
      const lang = segment.language ?? this.config.sourceLanguage;
      const spaced = kind === 'partial' ? this.sourceSpacing.tentative(segment.text, lang) : this.sourceSpacing.conclude(segment.text, lang);
      if (!spaced) continue;
      const seg = { language: lang, text: spaced, start_time: segment.startMs, end_time: segment.endMs };
      if (kind === 'partial') {
        this.send({ source_transcript_update: { concluded: [], tentative: [seg] } });
        this.pendingPartial = { segment, generation: this.generation };
        this.translateTentative();
        continue;
      }
      this.generation++;
      this.send({ source_transcript_update: { concluded: [seg], tentative: [] } });
      this.outChain = this.outChain.then(() => this.translateSegment(segment));
      this.outChain = this.outChain.catch((err: unknown) => this.fail(err));
    }
  }

  /** The texts of every target for a source text (the source's own language passes through). */
  private translateAll(text: string, heard?: string): Promise<string[]> {
    const { targets, formality } = this.config;
    const sourceLanguage = heard ?? this.config.sourceLanguage;
    return Promise.all(
      targets.map(async (t) => (t.code.split('-')[0] === sourceLanguage ? text : (await this.deps.translate(sourceLanguage, t.code, [text], formality))[0]!)),
    );
  }

  /**
   * Translates the latest partial hypothesis for the targets' tentative segments: one translation at a time, the
   * newest partial next, and none that arrives after its utterance was concluded.
   */
  private translateTentative(): void {
    const pending = this.pendingPartial;
    if (this.tentativeBusy || !pending) return;
    this.pendingPartial = null;
    this.tentativeBusy = true;
    const { segment, generation } = pending;
    this.translateAll(segment.text.trim(), segment.language)
      .then((texts) => {
        if (generation !== this.generation || this.targetsEnded || this.done) return;
        this.config.targets.forEach((t, i) => {
          const text = this.targetSpacing.get(t.label)!.tentative(texts[i]!);
          const tentative = text ? [{ text, start_time: segment.startMs, end_time: segment.endMs }] : [];
          this.send({ target_transcript_update: { language: t.label, concluded: [], tentative } });
        });
      })
      // A tentative translation that fails is only skipped: the concluded one decides about the stream.
      .catch((err: unknown) => this.deps.logger.debug?.({ err }, 'tentative translation failed'))
      .finally(() => {
        this.tentativeBusy = false;
        this.translateTentative();
      });
  }

  private async translateSegment(segment: RecognizedSegment): Promise<void> {
    if (this.done) return;
    const { targets, targetMedia } = this.config;
    const translated = await this.translateAll(segment.text.trim(), segment.language);
    targets.forEach((t, i) => {
      const text = this.targetSpacing.get(t.label)!.conclude(translated[i]!);
      if (text) this.send({ target_transcript_update: { language: t.label, concluded: [{ text, start_time: segment.startMs, end_time: segment.endMs }], tentative: [] } });
    });
    if (targetMedia && this.media) {
      const spoken = translated[targets.findIndex((t) => t.code === targetMedia.code)]!;
      if (spoken.trim() === '') return;
      const speech = await this.deps.tts.synthesize(spoken, targetMedia.code, this.chooseVoice());
      if (!this.done) this.media.speak(speech.samples, speech.sampleRate, spoken);
    }
  }

  private chooseVoice(): VoiceGender {
    if (this.voice) return this.voice;
    const hz = this.pitch?.medianHz() ?? null;
    if (hz === null) return 'female';
    this.voice = hz < MALE_FEMALE_BOUNDARY_HZ ? 'male' : 'female';
    this.deps.logger.debug?.({ medianHz: Math.round(hz), voice: this.voice }, 'voice matched to speaker pitch');
    return this.voice;
  }

  /** Concludes what was heard: the decoder flushed, the recogniser finished, every segment translated and billed. */
  private async drain(): Promise<void> {
    await this.source.end();
    await this.recChain;
    if (this.done) return;
    const recognizer = await this.recognizerReady;
    this.handle(await recognizer.finish());
    await this.bill(0, true);
    await this.outChain;
    this.targetsEnded = true;
  }

  private async finishStream(): Promise<void> {
    try {
      await this.drain();
      if (this.done) return;
      this.send({ end_of_source_transcript: {} });
      // The speech of the last segments is flushed first: no media chunk may follow end_of_target_transcript.
      if (this.media) {
        const error = await this.media.finish();
        if (error) throw new Error(`target media encoding failed: ${error}`);
      }
      if (this.done) return;
      for (const t of this.config.targets) this.send({ end_of_target_transcript: { language: t.label } });
      if (this.config.targetMedia) this.send({ end_of_target_media: { language: this.config.targetMedia.label } });
      this.send({ end_of_stream: {} });
      this.stop();
    } catch (err) {
      this.fail(err);
    }
  }

  /** No audio for the idle time: the utterance in progress is concluded and translated, then the 408 ends the stream. */
  private onIdle(): void {
    this.idled = true;
    this.drain().then(
      () => this.fail(voiceErrors.idle()),
      (err: unknown) => this.fail(err),
    );
  }

  /** Ends the session with an error message (the session cannot be resumed). */
  fail(err: unknown): void {
    if (this.done) return;
    const protocolError = err instanceof VoiceProtocolError ? err : voiceErrors.internal();
    if (!(err instanceof VoiceProtocolError)) this.deps.logger.error({ err }, 'voice stream failed');
    this.send({ error: protocolError.body() });
    this.stop();
  }

  /** Server shutdown: frees the decoder and child processes without further messages. */
  abort(): void {
    this.sink = null;
    this.stop();
  }

  private stop(): void {
    if (this.done) return;
    this.done = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.source.kill();
    this.media?.close();
    this.recognizer?.release();
    this.sink?.close();
    this.deps.onDone();
  }
}
