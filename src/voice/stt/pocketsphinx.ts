// CMU PocketSphinx (Debian's libpocketsphinx3 + pocketsphinx-en-us) driven in-process through koffi: decoding runs
// on koffi's worker threads (async calls), decoders are pooled because ps_init takes ~300 ms.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import type { RecognizedSegment, RecognizerEvent, SpeechRecognizer, SpeechToTextEngine } from './engine.js';
import { STT_SAMPLE_RATE } from './engine.js';

const require = createRequire(import.meta.url);

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
  /** More decoder arguments, e.g. ['-cmn', 'live']. */
  extraArgs?: string[];
}

type Fn = ((...args: unknown[]) => unknown) & { async(...args: unknown[]): void };

interface Lib {
  /** ps_init on a worker thread: it loads the model (~300 ms) and must not stall other streams. */
  init(argv: string[]): Promise<unknown>;
  startStream: Fn;
  startUtt: Fn;
  endUtt: Fn;
  processRaw: Fn;
  getHyp: Fn;
  inSpeech: Fn;
  segIter: Fn;
  segNext: Fn;
  segWord: Fn;
  segFrames: Fn;
  free: Fn;
}

const DEFAULT_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
/** Samples per decoder call: 100 ms, which is also the partial-result cadence. */
const BLOCK = STT_SAMPLE_RATE / 10;

function loadLib(): Lib {
  const koffi = require('koffi') as {
    load(name: string): { func(signature: string): Fn };
    out(type: unknown): unknown;
    pointer(type: string): unknown;
  };
  const sb = koffi.load('libsphinxbase.so.3');
  const ps = koffi.load('libpocketsphinx.so.3');
  const parse = sb.func('void* cmd_ln_parse_r(void*, void*, int, const char**, int)');
  const args = ps.func('void* ps_args()');
  const init = ps.func('void* ps_init(void*)');
  return {
    init: (argv) => callAsync(init, parse(null, args(), argv.length, argv, 1)),
    startStream: ps.func('int ps_start_stream(void*)'),
    startUtt: ps.func('int ps_start_utt(void*)'),
    endUtt: ps.func('int ps_end_utt(void*)'),
    processRaw: ps.func('int ps_process_raw(void*, const int16_t*, size_t, int, int)'),
    getHyp: ps.func('const char* ps_get_hyp(void*, _Out_ int32_t*)'),
    inSpeech: ps.func('uint8_t ps_get_in_speech(void*)'),
    segIter: ps.func('void* ps_seg_iter(void*)'),
    segNext: ps.func('void* ps_seg_next(void*)'),
    segWord: ps.func('const char* ps_seg_word(void*)'),
    segFrames: ps.func('void ps_seg_frames(void*, _Out_ int*, _Out_ int*)'),
    free: ps.func('int ps_free(void*)'),
  };
}

function callAsync(fn: Fn, ...args: unknown[]): Promise<unknown> {
  return new Promise((resolve, reject) => fn.async(...args, (err: unknown, res: unknown) => (err ? reject(err) : resolve(res))));
}

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

  constructor(
    private readonly lib: Lib,
    private readonly decoder: unknown,
    private readonly onRelease: (decoder: unknown) => void,
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
      this.inflight = callAsync(this.lib.processRaw, this.decoder, joined.subarray(offset, offset + BLOCK), BLOCK, 0, 0);
      await this.inflight;
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
        const final = this.conclude();
        if (final) events.push({ kind: 'final', segment: final });
        this.lib.startUtt(this.decoder);
      }
    }
    this.pending = joined.slice(offset);
    return events;
  }

  async finish(): Promise<RecognizerEvent[]> {
    if (this.released) return [];
    if (this.pending.length > 0) {
      await callAsync(this.lib.processRaw, this.decoder, this.pending, this.pending.length, 0, 0);
      this.samplesIn += this.pending.length;
      this.pending = new Int16Array(0);
    }
    const final = this.conclude();
    this.lib.startUtt(this.decoder);
    return final ? [{ kind: 'final', segment: final }] : [];
  }

  release(): void {
    if (this.released) return;
    this.released = true;
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

  /** Ends the utterance; word times come from the segment iterator (10 ms frames counted from the stream start). */
  private conclude(): RecognizedSegment | null {
    this.lib.endUtt(this.decoder);
    this.uttStartSample = this.samplesIn;
    this.inSpeech = false;
    this.lastPartial = '';
    const words: string[] = [];
    let first = -1;
    let last = -1;
    for (let seg = this.lib.segIter(this.decoder); seg; seg = this.lib.segNext(seg)) {
      const word = cleanWord(String(this.lib.segWord(seg)));
      if (!word) continue;
      const sf = [0];
      const ef = [0];
      this.lib.segFrames(seg, sf, ef);
      if (first < 0) first = sf[0]!;
      last = ef[0]!;
      words.push(word);
    }
    if (words.length === 0) return null;
    return { text: words.join(' '), startMs: first * 10, endMs: (last + 1) * 10 };
  }
}

export class PocketSphinxEngine implements SpeechToTextEngine {
  readonly name = 'pocketsphinx';
  readonly languages: ReadonlySet<string>;
  private lib: Lib | null = null;
  private readonly idle: unknown[] = [];

  constructor(private readonly options: PocketSphinxOptions = {}) {
    this.languages = new Set(PocketSphinxEngine.available(options.modelDir) ? ['en'] : []);
  }

  /** Whether Debian's library and English model are installed. */
  static available(modelDir = DEFAULT_MODEL_DIR): boolean {
    return existsSync(`${modelDir}/en-us/mdef`) && ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib'].some((d) => existsSync(`${d}/libpocketsphinx.so.3`));
  }

  private async newDecoder(): Promise<unknown> {
    this.lib ??= loadLib();
    const dir = this.options.modelDir ?? DEFAULT_MODEL_DIR;
    const decoder = await this.lib.init([
      '-hmm', `${dir}/en-us`,
      '-lm', `${dir}/en-us.lm.bin`,
      '-dict', `${dir}/cmudict-en-us.dict`,
      '-vad_postspeech', String(this.options.postSpeechFrames ?? 30),
      '-vad_threshold', String(this.options.vadThreshold ?? 3.0),
      '-logfn', '/dev/null',
      ...(this.options.extraArgs ?? []),
    ]);
    if (!decoder) throw new Error('PocketSphinx failed to initialise');
    return decoder;
  }

  /** Creates decoders ahead of the first sessions so they do not wait for ps_init. */
  async warm(count = 1): Promise<void> {
    while (this.idle.length < count) this.idle.push(await this.newDecoder());
  }

  async createRecognizer(language: string): Promise<SpeechRecognizer> {
    if (!this.languages.has(language)) throw new Error(`no PocketSphinx model for ${language}`);
    const decoder = this.idle.pop() ?? (await this.newDecoder());
    return new PocketSphinxRecognizer(this.lib!, decoder, (d) => {
      this.lib!.endUtt(d);
      if (this.idle.length < (this.options.poolSize ?? 4)) this.idle.push(d);
      else this.lib!.free(d);
    });
  }

  async close(): Promise<void> {
    for (const d of this.idle.splice(0)) this.lib?.free(d);
  }
}
