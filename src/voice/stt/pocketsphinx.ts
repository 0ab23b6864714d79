// CMU PocketSphinx (Debian's libpocketsphinx3 + pocketsphinx-en-us) driven in-process through koffi: decoding runs
// on koffi's worker threads (async calls), decoders are pooled because ps_init takes ~300 ms.
import { existsSync } from 'node:fs';
import type { RecognizedSegment, RecognizerEvent, RecognizerOptions, SpeechRecognizer, SpeechToTextEngine } from './engine.js';
import { STT_SAMPLE_RATE } from './engine.js';
import { KeywordSpotter, type SpottableTerm } from './keyword-spotter.js';
import { trimCHeap } from '../../lib/c-heap.js';
import { callAsync, pocketSphinxLib, type PocketSphinxLib as Lib } from './pocketsphinx-lib.js';
import { PronunciationDictionary, pronounceTerm } from './pronunciation.js';
import { correctWithTerms, type TermDetection, type TimedWord } from './term-correction.js';

export interface PocketSphinxOptions {
  modelDir?: string;
  /** Silence (10 ms frames) that ends an utterance. */
  postSpeechFrames?: number;
  /**
   * Speech/noise ratio that starts an utterance. Debian's default (2.0) fires on the first 200 ms of faint noise, and
   * the CMN learned from that false start garbled the next utterance ("why would like one thing…" for "the weather is
   * nice today…"); 3.0 transcribed faint, loud-noise and 10x quieter speech correctly in a trial here.
   */
  vadThreshold?: number;
  /** Idle decoders kept for reuse. */
  poolSize?: number;
  /**
   * How long an idle decoder is kept, ms (default 30 s): each holds ~95 MiB, which a burst of sessions would otherwise
   * keep for good; a new one costs a ~300 ms ps_init.
   */
  decoderIdleMs?: number;
  /** More decoder arguments, e.g. ['-cmn', 'live']. */
  extraArgs?: string[];
  /** Keyword-spotting threshold for spoken terms (see keyword-spotter.ts). */
  kwsThreshold?: number;
}

const DEFAULT_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
const DEFAULT_DECODER_IDLE_MS = 30_000;

/** A decoder in the pool, and the (unref'd) timer that frees it once it has been idle for decoderIdleMs. */
interface IdleDecoder {
  decoder: unknown;
  expiry: NodeJS.Timeout;
}
/** Samples per decoder call: 100 ms, which is also the partial-result cadence. */
const BLOCK = STT_SAMPLE_RATE / 10;

/** Fillers and sentence markers are not words; "word(2)" is an alternative pronunciation of "word". */
function cleanWord(word: string): string | null {
  if (/^(<.*>|\[.*\]|\+\+.*\+\+)$/.test(word)) return null;
  return word.replace(/\(\d+\)$/, '');
}

class PocketSphinxRecognizer implements SpeechRecognizer {
  private samplesIn = 0;
  private uttStartSample = 0;
  private pending = new Int16Array(0);
  private inSpeech = false;
  private lastPartial = '';
  private released = false;
  /** The async decoder call in flight: the decoder returns to the pool only after it. */
  private inflight: Promise<unknown> = Promise.resolve();
  /** Spoken terms reported during the current utterance. */
  private detections: TermDetection[] = [];

  constructor(
    private readonly lib: Lib,
    private readonly decoder: unknown,
    private readonly onRelease: (decoder: unknown) => void,
    private readonly spotting: { spotter: KeywordSpotter; dictionary: PronunciationDictionary } | null = null,
  ) {
    // A new stream: frame numbers (and so word times) count from here again.
    lib.startStream(decoder);
    lib.startUtt(decoder);
  }

  async write(samples: Int16Array): Promise<RecognizerEvent[]> {
    const joined = new Int16Array(this.pending.length + samples.length);
    joined.set(this.pending);
    joined.set(samples, this.pending.length);
    const events: RecognizerEvent[] = [];
    let offset = 0;
    for (; offset + BLOCK <= joined.length; offset += BLOCK) {
      if (this.released) return events;
      const block = joined.subarray(offset, offset + BLOCK);
      this.inflight = callAsync(this.lib.processRaw, this.decoder, block, BLOCK, 0, 0);
      const spotted = this.spotting?.spotter.process(block, this.msOf(this.samplesIn + BLOCK));
      await this.inflight;
      if (spotted) this.detections.push(...(await spotted));
      if (this.released) return events;
      this.samplesIn += BLOCK;
      const speech = Boolean(this.lib.inSpeech(this.decoder));
      if (speech) {
        // The VAD fires ~100 ms into speech and keeps 200 ms before it: the utterance starts about 300 ms back.
        if (!this.inSpeech) this.uttStartSample = Math.max(this.uttStartSample, this.samplesIn - (STT_SAMPLE_RATE * 3) / 10);
        this.inSpeech = true;
        const partial = await this.hypothesis();
        if (partial && partial !== this.lastPartial) {
          this.lastPartial = partial;
          events.push({ kind: 'partial', segment: { text: partial, startMs: this.msOf(this.uttStartSample), endMs: this.msOf(this.samplesIn) } });
        }
      } else if (this.inSpeech) {
        const final = await this.conclude();
        if (final) events.push({ kind: 'final', segment: final });
      }
    }
    this.pending = joined.slice(offset);
    return events;
  }

  async finish(): Promise<RecognizerEvent[]> {
    if (this.released) return [];
    if (this.pending.length > 0) {
      const spotted = this.spotting?.spotter.process(this.pending, this.msOf(this.samplesIn + this.pending.length));
      await callAsync(this.lib.processRaw, this.decoder, this.pending, this.pending.length, 0, 0);
      if (spotted) this.detections.push(...(await spotted));
      this.samplesIn += this.pending.length;
      this.pending = new Int16Array(0);
    }
    const final = await this.conclude();
    return final ? [{ kind: 'final', segment: final }] : [];
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.spotting?.spotter.free();
    void this.inflight.catch(() => {}).then(() => this.onRelease(this.decoder));
  }

  private msOf(sample: number): number {
    return Math.round((sample * 1000) / STT_SAMPLE_RATE);
  }

  /** The partial hypothesis (a backtrace: off the main thread like decoding). */
  private async hypothesis(): Promise<string> {
    if (this.released) return '';
    this.inflight = callAsync(this.lib.getHyp, this.decoder, [0]);
    const hyp = (await this.inflight) as string | null;
    return (hyp ?? '').trim();
  }

  /**
   * Ends the utterance and starts the next; word times come from the segment iterator (10 ms frames counted from the
   * stream start). ps_end_utt runs the decoder's final passes over the whole utterance (150–420 ms of CPU for 4 s of
   * speech on a loaded machine), so it runs on a worker thread like decoding: on the main thread it held every other
   * request up that long (docs/benchmarks.md, issue 31).
   */
  private async conclude(): Promise<RecognizedSegment | null> {
    if (this.released) return null;
    this.inflight = callAsync(this.lib.endUtt, this.decoder);
    await this.inflight;
    // released meanwhile: the decoder goes back to the pool once this call is over; it is no longer this one's
    if (this.released) return null;
    this.uttStartSample = this.samplesIn;
    this.inSpeech = false;
    this.lastPartial = '';
    const words: TimedWord[] = [];
    for (let seg = this.lib.segIter(this.decoder); seg; seg = this.lib.segNext(seg)) {
      const raw = String(this.lib.segWord(seg));
      const word = cleanWord(raw);
      if (!word) continue;
      const sf = [0];
      const ef = [0];
      this.lib.segFrames(seg, sf, ef);
      // The alternative the decoder chose ("to(2)") is the pronunciation it heard.
      words.push({ text: word, phones: this.spotting?.dictionary.phones(raw) ?? null, startMs: sf[0]! * 10, endMs: (ef[0]! + 1) * 10 });
    }
    // after the segments: they are the ended utterance's
    this.lib.startUtt(this.decoder);
    const detections = this.detections.concat(this.spotting?.spotter.restart(this.msOf(this.samplesIn)) ?? []);
    this.detections = [];
    if (words.length === 0) return null;
    const text = detections.length > 0 ? correctWithTerms(words, detections) : words.map((w) => w.text);
    return { text: text.join(' '), startMs: words[0]!.startMs, endMs: words.at(-1)!.endMs };
  }
}

export class PocketSphinxEngine implements SpeechToTextEngine {
  readonly name = 'pocketsphinx';
  readonly detectsLanguage = false;
  readonly languages: ReadonlySet<string>;
  private lib: Lib | null = null;
  private readonly idle: IdleDecoder[] = [];
  private dictionary: Promise<PronunciationDictionary> | null = null;
  /** Pronunciations of recently used terms (letter-to-sound runs a process per unknown word). */
  private readonly pronunciations = new Map<string, string[] | null>();

  constructor(private readonly options: PocketSphinxOptions = {}) {
    this.languages = new Set(PocketSphinxEngine.available(options.modelDir) ? ['en'] : []);
  }

  /** Whether Debian's library and English model are installed. */
  static available(modelDir = DEFAULT_MODEL_DIR): boolean {
    return existsSync(`${modelDir}/en-us/mdef`) && ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib'].some((d) => existsSync(`${d}/libpocketsphinx.so.3`));
  }

  private async newDecoder(): Promise<unknown> {
    this.lib ??= pocketSphinxLib();
    const dir = this.options.modelDir ?? DEFAULT_MODEL_DIR;
    const decoder = await this.lib.init([
      '-hmm', `${dir}/en-us`,
      '-lm', `${dir}/en-us.lm.bin`,
      '-dict', `${dir}/cmudict-en-us.dict`,
      ...this.sharedArgs(),
    ]);
    if (!decoder) throw new Error('PocketSphinx failed to initialise');
    return decoder;
  }

  /** Arguments the main decoder and the keyword spotter share, so both hear the audio alike. */
  private sharedArgs(): string[] {
    return [
      '-vad_postspeech', String(this.options.postSpeechFrames ?? 30),
      '-vad_threshold', String(this.options.vadThreshold ?? 3.0),
      ...(this.options.extraArgs ?? []),
    ];
  }

  /** Pronounces the terms (those no word of which can be pronounced are left out) and starts a spotter for them. */
  private async spotting(terms: readonly string[]): Promise<{ spotter: KeywordSpotter; dictionary: PronunciationDictionary } | null> {
    const dir = this.options.modelDir ?? DEFAULT_MODEL_DIR;
    this.dictionary ??= PronunciationDictionary.load(`${dir}/cmudict-en-us.dict`);
    const dictionary = await this.dictionary;
    const spottable: SpottableTerm[] = [];
    for (const term of terms) {
      if (!this.pronunciations.has(term)) {
        this.pronunciations.set(term, await pronounceTerm(term, dictionary));
        if (this.pronunciations.size > 1000) this.pronunciations.delete(this.pronunciations.keys().next().value!);
      }
      const phones = this.pronunciations.get(term);
      if (phones) spottable.push({ term, phones });
    }
    if (spottable.length === 0) return null;
    this.lib ??= pocketSphinxLib();
    const spotter = await KeywordSpotter.create(this.lib, spottable, {
      hmmDir: `${dir}/en-us`,
      threshold: this.options.kwsThreshold ?? 1e-20,
      extraArgs: this.sharedArgs(),
    });
    return { spotter, dictionary };
  }

  /** Creates decoders ahead of the first sessions so they do not wait for ps_init (they expire like any idle one). */
  async warm(count = 1): Promise<void> {
    for (let n = count - this.idle.length; n > 0; n--) this.keepIdle(await this.newDecoder());
  }

  /** Decoders in the pool now. */
  get idleDecoders(): number {
    return this.idle.length;
  }

  /** Pools a decoder until it is taken or has been idle for decoderIdleMs; frees it now when the pool is full. */
  private keepIdle(decoder: unknown): void {
    if (this.idle.length >= (this.options.poolSize ?? 4)) {
      this.freeDecoders([decoder]);
      return;
    }
    const entry: IdleDecoder = {
      decoder,
      expiry: setTimeout(() => {
        const at = this.idle.indexOf(entry);
        if (at >= 0) this.freeDecoders(this.idle.splice(at, 1).map((e) => e.decoder));
      }, this.options.decoderIdleMs ?? DEFAULT_DECODER_IDLE_MS).unref(),
    };
    this.idle.push(entry);
  }

  private takeIdle(): unknown {
    const entry = this.idle.pop();
    if (entry) clearTimeout(entry.expiry);
    return entry?.decoder;
  }

  private freeDecoders(decoders: unknown[]): void {
    for (const d of decoders) this.lib?.free(d);
    if (decoders.length > 0) trimCHeap();
  }

  async createRecognizer(language: string, options: RecognizerOptions = {}): Promise<SpeechRecognizer> {
    if (!this.languages.has(language)) throw new Error(`no PocketSphinx model for ${language}`);
    const spotting = options.spokenTerms && options.spokenTerms.length > 0 ? this.spotting(options.spokenTerms) : Promise.resolve(null);
    spotting.catch(() => {});
    const decoder = this.takeIdle() ?? (await this.newDecoder());
    // ps_end_utt off the main thread here too: a session released mid-utterance ends it with the final passes
    const release = (d: unknown) => void callAsync(this.lib!.endUtt, d).catch(() => {}).then(() => this.keepIdle(d));
    let spotter;
    try {
      spotter = await spotting;
    } catch (err) {
      release(decoder);
      throw err;
    }
    return new PocketSphinxRecognizer(this.lib!, decoder, release, spotter);
  }

  async close(): Promise<void> {
    const idle = this.idle.splice(0);
    for (const e of idle) clearTimeout(e.expiry);
    this.freeDecoders(idle.map((e) => e.decoder));
  }
}
