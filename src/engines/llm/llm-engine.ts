// Translation and text improvement through a language model: batches of numbered segments, every answer checked
// (placeholders, glossary terms), broken segments retried and then repaired one by one, never returned broken.
import {
  EngineError,
  type EngineFeatures,
  type EnginePairInfo,
  type EngineTranslateOptions,
  type LanguagePair,
  type TranslationEngine,
} from '../engine.js';
import { silentLogger, type Logger } from '../../lib/logger.js';
import { ChatClient, type ChatBackend, type ChatMessage, type TokenUsage } from './chat-client.js';
import {
  decodeBatch,
  improveMessages,
  postEditMessages,
  type PostEditPromptInput,
  translateMessages,
  type ImprovePromptInput,
  type TranslatePromptInput,
} from './prompts.js';
import type { AnswerCheckOptions } from './answer-checks.js';
import { segmentProblems, type GlossaryTerm } from './segment-checks.js';
import type { LlmObserver, LlmOperation, LlmOutcome } from './llm-observer.js';

/** Languages served by default (Tolk codes); every ordered pair between different base languages is offered. */
export const DEFAULT_LLM_LANGUAGES = [
  'ar', 'bg', 'cs', 'da', 'de', 'el', 'en', 'en-gb', 'en-us', 'es', 'et', 'fi', 'fr', 'hu', 'id', 'it', 'ja', 'ko',
  'lt', 'lv', 'nb', 'nl', 'pl', 'pt', 'pt-br', 'pt-pt', 'ro', 'ru', 'sk', 'sl', 'sv', 'tr', 'uk', 'zh', 'zh-hans',
];

/** Targets whose grammar marks formal/informal address, so formality more/less means something. */
const FORMALITY_TARGETS = new Set(['de', 'es', 'fr', 'it', 'ja', 'ko', 'nl', 'pl', 'pt', 'pt-br', 'pt-pt', 'ru', 'uk', 'cs', 'sk', 'bg', 'tr', 'el', 'hu', 'ro']);

export interface LlmEngineOptions {
  /** The remote server (OpenAI-compatible) … */
  url?: string;
  model?: string;
  apiKey?: string;
  /** … or another backend, such as a model on this machine (then url, model, apiKey and retries are unused). */
  backend?: ChatBackend;
  /** Offer translation pairs of its own (default true); a local model only improves and post-edits other engines' output. */
  offerPairs?: boolean;
  /** Languages (Tolk codes) to offer; default DEFAULT_LLM_LANGUAGES. */
  languages?: string[];
  /** Time limit of one model call, retries included (ms). */
  timeoutMs?: number;
  /** Extra attempts on 429/5xx/network errors. */
  retries?: number;
  backoffMs?: number;
  /** Model calls in flight at once; more wait in a queue. */
  concurrency?: number;
  /** Waiting calls beyond this are refused as overloaded (529). */
  maxQueue?: number;
  /** Segments per model call. */
  batchSize?: number;
  /** Characters per model call (segments are never split). */
  batchChars?: number;
  logger?: Logger;
}

/** Text improvement for the write service: one output per input text. */
export interface TextImprover {
  readonly name: string;
  /** Tolk codes of the languages it can improve. */
  improveLanguages(): string[];
  improve(texts: string[], input: ImprovePromptInput, signal?: AbortSignal, requester?: string): Promise<string[]>;
}

export function isTextImprover(engine: unknown): engine is TextImprover {
  return typeof (engine as Partial<TextImprover>)?.improve === 'function' && typeof (engine as Partial<TextImprover>).improveLanguages === 'function';
}

const baseOf = (code: string) => code.split('-')[0]!;

type BuildMessages = (texts: string[], reminder?: string) => ChatMessage[];

/** What the answers are checked against besides their texts: glossary terms, and whether they keep the language. */
interface BatchChecks {
  glossary: GlossaryTerm[];
  options: AnswerCheckOptions;
}

/** Room for each text's answer: a rewrite or translation may be longer than its source, never many times longer. */
const answerRoom = (text: string) => Math.ceil(text.length * 2.5) + 40;

/** What the model made of each draft: its text where it passed the checks, else why it was refused. */
export type PostEditResult = { text: string } | { problems: string[] };

/** The model answered, but kept failing the checks: its output is refused (an EngineError 'failed' to callers). */
export class RefusedOutputError extends EngineError {
  constructor(message: string) {
    super('failed', message);
  }
}

/** An engine call's outcome as the observer is told it. */
function outcomeOf(err: unknown, signal: AbortSignal | undefined): LlmOutcome {
  if (err instanceof RefusedOutputError) return 'refused';
  if (signal?.aborted) return 'aborted';
  if (err instanceof EngineError && err.kind !== 'unsupported_pair') return err.kind;
  return 'failed';
}

export class LlmEngine implements TranslationEngine, TextImprover {
  readonly name = 'llm';
  readonly features: EngineFeatures = { context: true, glossary: true, customInstructions: true, styleRules: true };
  private readonly client: ChatBackend;
  private readonly offerPairs: boolean;
  private readonly languages: string[];
  private readonly log: Logger;
  private readonly concurrency: number;
  private readonly maxQueue: number;
  private readonly batchSize: number;
  private readonly batchChars: number;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private pairList: EnginePairInfo[] = [];
  private observer: LlmObserver | undefined;

  constructor(options: LlmEngineOptions) {
    this.offerPairs = options.offerPairs ?? true;
    this.client =
      options.backend ??
      new ChatClient({
      url: options.url ?? '',
      model: options.model ?? '',
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      timeoutMs: options.timeoutMs ?? 60_000,
      ...(options.retries !== undefined ? { retries: options.retries } : {}),
      ...(options.backoffMs !== undefined ? { backoffMs: options.backoffMs } : {}),
    });
    this.languages = [...new Set((options.languages ?? DEFAULT_LLM_LANGUAGES).map((l) => l.toLowerCase()))];
    this.log = options.logger ?? silentLogger;
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.maxQueue = options.maxQueue ?? 64;
    this.batchSize = Math.max(1, options.batchSize ?? 20);
    this.batchChars = Math.max(100, options.batchChars ?? 4000);
  }

  /** No network at start: a model server that is down must not stop Tolk; requests then get 503. */
  async start(): Promise<void> {
    if (!this.offerPairs) return;
    const pairs: EnginePairInfo[] = [];
    const sources = [...new Set(this.languages.map(baseOf))];
    for (const source of sources) {
      for (const target of this.languages) {
        if (baseOf(target) === source) continue;
        pairs.push({ source, target, formality: FORMALITY_TARGETS.has(target) || FORMALITY_TARGETS.has(baseOf(target)) });
      }
    }
    this.pairList = pairs;
  }

  pairs(): EnginePairInfo[] {
    return this.pairList;
  }

  improveLanguages(): string[] {
    return this.client.available() ? [...this.languages] : [];
  }

  /** A model can answer now (a local one is installed). */
  available(): boolean {
    return this.client.available();
  }

  async close(): Promise<void> {}

  /** Tells `observer` every call's outcome, tokens and wait (the metrics). */
  observe(observer: LlmObserver): void {
    this.observer = observer;
  }

  /** Model calls waiting for a slot now: in this engine's queue and in the backend's. */
  queued(): number {
    return this.waiting.length + (this.client.queued?.() ?? 0);
  }

  /** Runs one engine call, telling the observer how it ended; `refused` says whether a result was refused. */
  private async observed<T>(operation: LlmOperation, signal: AbortSignal | undefined, work: () => Promise<T>, refused?: (result: T) => boolean): Promise<T> {
    let result: T;
    try {
      result = await work();
    } catch (err) {
      this.observer?.request(operation, outcomeOf(err, signal));
      throw err;
    }
    this.observer?.request(operation, refused?.(result) ? 'refused' : 'ok');
    return result;
  }

  async translate(pair: LanguagePair, segments: string[], options: EngineTranslateOptions): Promise<string[]> {
    const source = pair.source.toLowerCase();
    const target = pair.target.toLowerCase();
    if (!this.pairList.some((p) => p.source === source && p.target === target)) {
      throw new EngineError('unsupported_pair', `the language model is not configured for ${source}-${target}`);
    }
    const input: TranslatePromptInput = { source, target };
    if (options.formality) input.formality = options.formality;
    if (options.context) input.context = options.context;
    if (options.customInstructions?.length) input.customInstructions = options.customInstructions;
    if (options.styleRules?.length) input.styleRules = options.styleRules;
    if (options.glossary?.length) input.glossary = options.glossary;
    const glossary = options.glossary ?? [];
    return this.observed('translate', options.signal, () =>
      this.run(segments, { glossary, options: {} }, options.signal, options.requester, (texts, reminder) => {
        // Only the glossary terms that occur in this batch go into the prompt (long glossaries stay cheap).
        const relevant = glossary.filter((g) => texts.some((t) => t.toLowerCase().includes(g.source.toLowerCase())));
        return translateMessages({ ...input, glossary: relevant }, texts, reminder);
      }),
    );
  }

  async improve(texts: string[], input: ImprovePromptInput, signal?: AbortSignal, requester?: string): Promise<string[]> {
    // a rewrite in the same language shares words with its text; a rephrase into another language need not
    const checks: BatchChecks = { glossary: [], options: { sameLanguage: input.from === undefined } };
    return this.observed('improve', signal, () => this.run(texts, checks, signal, requester, (batch, reminder) => improveMessages(input, batch, reminder)));
  }

  /**
   * Rewrites another engine's translations under an instruction (register, custom instructions, style rules), one
   * model call per batch and no repairs: a draft whose rewrite fails the checks keeps the engine's text, so the
   * caller gets each result or the reasons it was refused.
   */
  async postEdit(drafts: string[], input: PostEditPromptInput, signal?: AbortSignal, requester?: string): Promise<PostEditResult[]> {
    return this.observed('post_edit', signal, () => this.postEditBatches(drafts, input, signal, requester), (results) => results.some((r) => 'problems' in r));
  }

  private async postEditBatches(drafts: string[], input: PostEditPromptInput, signal: AbortSignal | undefined, requester: string | undefined): Promise<PostEditResult[]> {
    const out: PostEditResult[] = drafts.map((d) => ({ text: d }));
    for (const batch of this.batches(drafts)) {
      const texts = batch.map((b) => b.s);
      let decoded: (string | undefined)[];
      try {
        const answer = await this.call(postEditMessages(input, texts), texts, signal, requester);
        decoded = decodeBatch(answer, texts.length);
      } catch (err) {
        if (err instanceof EngineError && err.kind !== 'failed') throw err;
        if (signal?.aborted) throw err;
        const reason = `unreadable answer: ${(err as Error).message}`;
        batch.forEach((b) => (out[b.i] = { problems: [reason] }));
        continue;
      }
      batch.forEach((b, k) => {
        const problems = segmentProblems(b.s, decoded[k], [], { sameLanguage: true });
        out[b.i] = problems.length === 0 ? { text: decoded[k]! } : { problems };
      });
    }
    return out;
  }

  /** Blank segments pass through; the rest go out in batches, concurrently up to the concurrency limit. */
  private async run(segments: string[], checks: BatchChecks, signal: AbortSignal | undefined, requester: string | undefined, build: BuildMessages): Promise<string[]> {
    const out = segments.slice();
    await Promise.all(
      this.batches(segments).map(async (batch) => {
        const results = await this.runBatch(batch.map((b) => b.s), checks, signal, requester, build);
        batch.forEach((b, k) => (out[b.i] = results[k]!));
      }),
    );
    return out;
  }

  /** Non-blank segments with their positions, in batches of at most batchSize segments and batchChars characters. */
  private batches(segments: string[]): { s: string; i: number }[][] {
    const todo = segments.map((s, i) => ({ s, i })).filter(({ s }) => s.trim() !== '');
    const batches: (typeof todo)[] = [];
    let current: typeof todo = [];
    let chars = 0;
    for (const item of todo) {
      if (current.length > 0 && (current.length >= this.batchSize || chars + item.s.length > this.batchChars)) {
        batches.push(current);
        current = [];
        chars = 0;
      }
      current.push(item);
      chars += item.s.length;
    }
    if (current.length) batches.push(current);
    return batches;
  }

  /**
   * One batch: ask; on an unreadable answer ask again; then each segment still wrong (lost placeholder, missing
   * glossary term, missing key) is repaired alone with a reminder of what was wrong, twice at most.
   */
  private async runBatch(
    texts: string[],
    { glossary, options }: BatchChecks,
    signal: AbortSignal | undefined,
    requester: string | undefined,
    build: BuildMessages,
  ): Promise<string[]> {
    let outputs: (string | undefined)[] = new Array(texts.length).fill(undefined);
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await this.call(build(texts), texts, signal, requester);
      try {
        const decoded = decodeBatch(answer, texts.length);
        outputs = decoded;
      } catch (err) {
        this.log.warn({ err: (err as Error).message, attempt }, 'language model answer unreadable; asking again');
        continue;
      }
      // readable: segments still broken are repaired alone below rather than re-asking for the whole batch
      break;
    }
    const final: string[] = [];
    for (const [k, text] of texts.entries()) {
      let output = outputs[k];
      let problems = segmentProblems(text, output, glossary, options);
      for (let repair = 0; problems.length > 0 && repair < 2; repair++) {
        this.log.warn({ problems, repair }, 'language model answer broke a segment; repairing it alone');
        const reminder = `Your previous answer for this text was wrong: ${problems.join('; ')}. Correct that.`;
        try {
          output = decodeBatch(await this.call(build([text], reminder), [text], signal, requester), 1)[0];
        } catch (err) {
          if (err instanceof EngineError) throw err;
          output = undefined;
        }
        problems = segmentProblems(text, output, glossary, options);
      }
      if (problems.length > 0) {
        throw new RefusedOutputError(`language model kept breaking a segment: ${problems.join('; ')}`);
      }
      final.push(output!);
    }
    return final;
  }

  /** One model call under the concurrency limit; a full queue is refused at once (overloaded → 529). */
  private async call(messages: ChatMessage[], texts: string[], signal: AbortSignal | undefined, requester: string | undefined): Promise<string> {
    const queuedAt = performance.now();
    let waited = false;
    // the wait ends when the backend starts on the call (a local model's slot taken), or when it is handed the call
    const started = () => {
      if (waited) return;
      waited = true;
      this.observer?.waited((performance.now() - queuedAt) / 1000);
    };
    if (this.inFlight >= this.concurrency) {
      if (this.waiting.length >= this.maxQueue) throw new EngineError('overloaded', 'too many language-model requests waiting');
      // the finishing call hands its slot over, so inFlight never exceeds the limit
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.inFlight++;
    }
    try {
      return await this.client.complete(messages, {
        json: true,
        answer: { maxChars: texts.map(answerRoom) },
        ...(signal ? { signal } : {}),
        ...(requester !== undefined ? { requester } : {}),
        ...(this.observer ? { onStart: started, onUsage: (u: TokenUsage) => this.observer?.tokens(u.input, u.output) } : {}),
      });
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight--;
    }
  }
}
