// The detector as the services hold it: eld and the n-gram model live in a worker thread (detector-worker.ts), started
// by the first detection (or at start with TOLK_DETECTOR_LOAD=start), so neither their ~1 s load nor a detection holds
// the event loop, and a server that never detects does not pay their ~40 MiB.
import { Worker } from 'node:worker_threads';
import { ServiceError } from '../lib/errors.js';
import { DETECTOR_LANGUAGES, outcome as detectionOutcome, type DetectionOutcome, type LanguageDetection } from './language-detector.js';
import type { DetectBatch, DetectorReply } from './detector-worker.js';
import type { LexiconQuestion, LexiconVote } from './lexicon-vote.js';

export interface WorkerLanguageDetectorOptions {
  /** The thread's entry module (detector-worker.js). */
  workerUrl?: URL;
  /** Deadline for the thread to load its tables (~1 s on an idle machine, a few on a loaded one). */
  startTimeoutMs?: number;
  /** Deadline for one batch's answer once the thread is ready (a batch of 50 texts takes milliseconds). */
  detectTimeoutMs?: number;
  /** The installed dictionaries and analysers, asked about short texts the thread is unsure of. */
  lexicons?: LexiconVote;
}

const DEFAULT_START_TIMEOUT_MS = 30_000;

/**
 * The thread's heap. Its tables are typed arrays outside the heap (~30 MiB); what the heap holds is small, and a
 * young generation left at its default (16 MiB semi-spaces) kept ~30 MiB more resident after the load for nothing.
 * A thread that outgrows the old generation's cap (a defect) ends with an error and is replaced, not the server.
 */
const DETECTOR_HEAP_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 256 } as const;
const DEFAULT_DETECT_TIMEOUT_MS = 10_000;

const unavailable = (why: string) =>
  new ServiceError('not_ready', `Language detection is temporarily unavailable (${why}); try again.`, { retryAfterSeconds: 1 });

interface Waiting {
  text: string;
  resolve: (outcome: DetectionOutcome | Promise<DetectionOutcome>) => void;
  reject: (err: Error) => void;
}

/** A batch's answer: per text its outcome and, for an unsure short one, the lexicons' question. */
interface Detected {
  outcomes: DetectionOutcome[];
  questions: Array<LexiconQuestion | undefined>;
}

interface InFlight {
  resolve: (detected: Detected) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** One detector thread: its start, the batches it owes an answer, and its end, which fails them all. */
class DetectorThread {
  readonly ready: Promise<void>;
  dead = false;
  private starting = true;
  private readonly worker: Worker;
  private readonly startTimer: NodeJS.Timeout;
  private readonly pending = new Map<number, InFlight>();
  private nextId = 1;
  private settleReady!: { resolve: () => void; reject: (err: Error) => void };

  constructor(
    url: URL,
    startTimeoutMs: number,
    private readonly onDead: (thread: DetectorThread) => void,
  ) {
    this.ready = new Promise((resolve, reject) => (this.settleReady = { resolve, reject }));
    this.ready.catch(() => {});
    this.worker = new Worker(url, { resourceLimits: DETECTOR_HEAP_LIMITS });
    this.startTimer = setTimeout(() => this.fail(unavailable(`the detector did not load within ${startTimeoutMs / 1000} s`)), startTimeoutMs);
    this.worker.on('message', (reply: DetectorReply) => this.settle(reply));
    this.worker.on('error', (err) => this.fail(unavailable(`the detector's thread failed: ${err.message}`)));
    this.worker.on('exit', (code) => this.fail(unavailable(`the detector's thread exited with code ${code}`)));
  }

  /** Detects the texts in the thread; past the deadline the thread is taken as wedged and ended. */
  async detect(texts: string[], timeoutMs: number): Promise<Detected> {
    await this.ready;
    if (this.dead) throw unavailable("the detector's thread has ended");
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => this.fail(new ServiceError('engine_timeout', `Language detection did not answer within ${timeoutMs / 1000} s.`)),
        timeoutMs,
      );
      this.pending.set(id, { resolve, reject, timer });
      this.holdProcess();
      this.worker.postMessage({ id, texts } satisfies DetectBatch);
    });
  }

  /** Ends the thread: whatever it still owed fails with `reason`. */
  fail(reason: Error): void {
    if (this.dead) return;
    this.dead = true;
    clearTimeout(this.startTimer);
    this.settleReady.reject(reason);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(reason);
    }
    this.pending.clear();
    void this.worker.terminate();
    this.onDead(this);
  }

  private settle(reply: DetectorReply): void {
    if ('ready' in reply) {
      if (!reply.ready) return this.fail(unavailable(`the detector did not load: ${reply.message}`));
      clearTimeout(this.startTimer);
      this.starting = false;
      this.settleReady.resolve();
    } else {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      clearTimeout(p.timer);
      // an exception inside the detector is a defect: a plain error, logged and answered as a 500
      if ('outcomes' in reply) p.resolve(reply);
      else p.reject(new Error(`language detection failed: ${reply.message}`));
    }
    this.holdProcess();
  }

  /** The idle thread does not keep the process alive; one that owes an answer does. */
  private holdProcess(): void {
    if (this.starting || this.pending.size > 0) this.worker.ref();
    else this.worker.unref();
  }
}

/**
 * Detections asked for in the same tick (the texts of one request: the routes and the translation plan ask for
 * them together) go to the thread as one message. A thread that crashes, exits or misses a deadline fails the
 * detections it owed with a 503/504 and is replaced by the next detection.
 */
export class WorkerLanguageDetector implements LanguageDetection {
  readonly languages = DETECTOR_LANGUAGES;
  private thread: DetectorThread | undefined;
  private queued: Waiting[] = [];
  private closed = false;
  private readonly workerUrl: URL;
  private readonly startTimeoutMs: number;
  private readonly detectTimeoutMs: number;
  private readonly lexicons: LexiconVote | undefined;

  constructor(options: WorkerLanguageDetectorOptions = {}) {
    this.workerUrl = options.workerUrl ?? new URL('./detector-worker.js', import.meta.url);
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    this.detectTimeoutMs = options.detectTimeoutMs ?? DEFAULT_DETECT_TIMEOUT_MS;
    this.lexicons = options.lexicons;
  }

  /** True while a detector thread is running or starting. */
  get started(): boolean {
    return this.thread !== undefined;
  }

  detect(text: string): Promise<DetectionOutcome> {
    if (this.closed) return Promise.reject(unavailable('the server is shutting down'));
    return new Promise((resolve, reject) => {
      if (this.queued.length === 0) queueMicrotask(() => void this.flush());
      this.queued.push({ text, resolve, reject });
    });
  }

  /** Starts the thread now and waits for its tables (TOLK_DETECTOR_LOAD=start, before the server listens). */
  async preload(): Promise<void> {
    await this.running().ready;
  }

  /** Ends the thread (server shutdown); later detections are refused. */
  close(): void {
    this.closed = true;
    this.lexicons?.stop();
    this.thread?.fail(unavailable('the server is shutting down'));
  }

  private running(): DetectorThread {
    if (!this.thread) this.lexicons?.warm();
    this.thread ??= new DetectorThread(this.workerUrl, this.startTimeoutMs, (ended) => {
      if (this.thread === ended) this.thread = undefined;
    });
    return this.thread;
  }

  /** An unsure short text's outcome after the lexicons' vote: the language they decide, or as the thread said. */
  private async withLexicons(outcome: DetectionOutcome, question: LexiconQuestion | undefined): Promise<DetectionOutcome> {
    if (!question || !this.lexicons) return outcome;
    const language = await this.lexicons.decide(question);
    // at the success line: the lexicons settle the language, not how sure the vote was
    return language === undefined ? outcome : { ...detectionOutcome(language, 0.5, false), decidedBy: 'lexicons' };
  }

  private async flush(): Promise<void> {
    const batch = this.queued;
    this.queued = [];
    try {
      const { outcomes, questions } = await this.running().detect(
        batch.map((w) => w.text),
        this.detectTimeoutMs,
      );
      batch.forEach((w, i) => w.resolve(this.withLexicons(outcomes[i]!, questions[i])));
    } catch (err) {
      for (const w of batch) w.reject(err as Error);
    }
  }
}
