// The language model on this machine: an installed GGUF file run by llama.cpp (node-llama-cpp) in this process. The
// model is loaded on first use, when its estimated memory (weights plus the context's cache) fits the budget, and
// unloaded after a quiet while; generation runs on llama.cpp's own threads, so the event loop only sees tokens
// arrive. A fixed number of generation slots (the context's sequences) is shared fairly between accounts; a request
// the queue cannot start in time is refused at once, and a generation's deadline starts when it has its slot; a
// client that leaves stops its generation. The directory is watched: a model installed or removed while the server runs
// is used or dropped without a restart.
import { readdir, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import type { ChatHistoryItem, Llama, LlamaContext, LlamaModel, ChatWrapper } from 'node-llama-cpp';
import { DirectoryWatch } from '../../lib/dir-watch.js';
import { silentLogger, type Logger } from '../../lib/logger.js';
import { EngineError } from '../engine.js';
import type { ChatBackend, ChatMessage, ChatOptions } from './chat-client.js';
import { FairSlots } from './fair-slots.js';

export interface LocalModelOptions {
  /** Directory of installed GGUF files (TOLK_MODELS_DIR/llm). */
  dir: string;
  /** File name (without .gguf) to use when several are installed; default: the first by name. */
  preferred?: string;
  /** Most memory the loaded model and its context may take (estimated before loading), MB. */
  memoryBudgetMb: number;
  /** Tokens of context per generation slot; default 4096. */
  contextSize?: number;
  /** Generations at once (context sequences); default 1. */
  slots?: number;
  /** CPU threads for llama.cpp; 0 = as many as the machine has. Default: defaultLlmThreads(). */
  threads?: number;
  /** Time limit of one generation from the moment it has a slot, a first load included (ms). */
  timeoutMs: number;
  /** Longest wait for a slot (ms): a request the queue cannot start within it is refused at once as busy. Default 60 s; 0 = never wait. */
  maxWaitMs?: number;
  /** Waiting requests per account beyond this are refused as busy. Default 16. */
  maxWaitingPerRequester?: number;
  /** Unload after this long unused (ms); default 10 minutes, 0 = never. */
  idleUnloadMs?: number;
  /** Re-scan the directory this often even without a change event (ms); default 30 s. */
  rescanIntervalMs?: number;
  logger?: Logger;
}

export interface LocalModelStats {
  /** The installed file in use (undefined: none installed). */
  file: string | undefined;
  loaded: boolean;
  /** Generations finished (each one is a model call). */
  generations: number;
  /** Tokens generated in all. */
  generatedTokens: number;
  /** Time from a generation's start (slot taken, model loaded) to its first token, last generation (ms). */
  lastFirstTokenMs: number | undefined;
  /** Estimated memory of the loaded model and its context (bytes). */
  estimatedBytes: number | undefined;
}

interface Loaded {
  file: string;
  model: LlamaModel;
  context: LlamaContext;
  chatWrapper: ChatWrapper;
  estimatedBytes: number;
}

type NodeLlamaCpp = typeof import('node-llama-cpp');

const MB = 1048576;

/** One llama.cpp runtime per process (it is costly to start and holds no model): every LocalLanguageModel shares it. */
let runtime: Promise<Llama> | undefined;

/** A model's name: its file name without .gguf and without the part number of a split model. */
const modelNameOf = (file: string) => file.replace(/-\d{5}-of-\d{5}\.gguf$/, '').replace(/\.gguf$/, '');

/**
 * llama.cpp's threads when none are configured: half the cores, and never all of them, at least one. llama.cpp on
 * every core starves the rest of the server (Apertium's pipeline stages, Bergamot's workers, the HTTP event loop):
 * on a busy 2-core machine a rephrase took 240 s with both cores, 26 s with one.
 */
export function defaultLlmThreads(cores = availableParallelism()): number {
  return Math.max(1, Math.min(cores - 1, Math.ceil(cores / 2)));
}

/** Where installed GGUF models are: TOLK_MODELS_DIR/llm (beside Bergamot's directions and whisper/). */
export const llmModelsDir = (modelsDir: string) => join(modelsDir, 'llm');

/**
 * How chats are written for the model: its own Jinja chat template, rendered as it is. node-llama-cpp's
 * resolveChatWrapper would pick a specialised wrapper instead, but by comparing the template against each of them,
 * synchronously: over a second on the event loop at every load (measured on the test model), against tens of ms.
 */
function chatWrapperOf(lib: NodeLlamaCpp, model: LlamaModel): ChatWrapper {
  const template = model.fileInfo.metadata.tokenizer?.chat_template;
  if (typeof template === 'string') {
    try {
      return new lib.JinjaTemplateChatWrapper({ template, tokenizer: model.tokenizer });
    } catch {
      // a template node-llama-cpp cannot render: the wrapper it would choose from the model's name and architecture
    }
  }
  return lib.resolveChatWrapper(model, { noJinja: true });
}

export class LocalLanguageModel implements ChatBackend {
  private readonly log: Logger;
  private readonly watch: DirectoryWatch;
  /** The generation slots and their queue. */
  readonly slots: FairSlots;
  private readonly listeners: (() => void)[] = [];
  private file: string | undefined;
  private stamp = '';
  private loading: Promise<Loaded> | undefined;
  private lib: NodeLlamaCpp | undefined;
  private busy = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private counters = { generations: 0, generatedTokens: 0, lastFirstTokenMs: undefined as number | undefined, estimatedBytes: undefined as number | undefined };

  constructor(private readonly opts: LocalModelOptions) {
    this.log = opts.logger ?? silentLogger;
    this.slots = new FairSlots({ slots: opts.slots ?? 1, maxWaitingPerRequester: opts.maxWaitingPerRequester ?? 16, maxWaitMs: opts.maxWaitMs ?? 60_000 });
    this.watch = new DirectoryWatch(opts.dir, () => this.rescan(), { intervalMs: opts.rescanIntervalMs ?? 30_000, logger: this.log, what: 'language models' });
  }

  /** The model's name as requests and logs show it: its file name without .gguf. */
  get model(): string {
    return this.file ? modelNameOf(basename(this.file)) : '';
  }

  available(): boolean {
    return this.file !== undefined && !this.closed;
  }

  /** Called after a model is installed, replaced or removed. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  async start(): Promise<void> {
    await this.watch.rescan();
    this.watch.start();
  }

  queued(): number {
    return this.slots.waiting;
  }

  stats(): LocalModelStats {
    return { file: this.file, loaded: this.loading !== undefined, ...this.counters };
  }

  /** The installed file to use: the preferred name, else the first by name; a changed file is loaded afresh. */
  private async rescan(): Promise<void> {
    let names: string[];
    try {
      // a model split in parts is loaded from its first part (llama.cpp finds the others)
      names = (await readdir(this.opts.dir)).filter((n) => n.endsWith('.gguf') && !n.startsWith('.') && !/-(?!00001)\d{5}-of-\d{5}\.gguf$/.test(n)).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      names = [];
    }
    const name = names.find((n) => modelNameOf(n) === this.opts.preferred) ?? names[0];
    const file = name === undefined ? undefined : join(this.opts.dir, name);
    const info = file ? await stat(file).catch(() => undefined) : undefined;
    const stamp = info ? `${file}|${info.size}|${info.mtimeMs}` : '';
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    this.file = info ? file : undefined;
    this.log.info({ model: this.file ?? null }, this.file ? 'language model found' : 'no language model installed');
    this.unload();
    for (const listener of this.listeners) listener();
  }

  /** Drops the loaded model (replaced, removed, idle); generations still running on it finish first. */
  private unload(): void {
    const loading = this.loading;
    this.loading = undefined;
    this.counters.estimatedBytes = undefined;
    clearTimeout(this.idleTimer);
    if (!loading) return;
    const dispose = async () => {
      const loaded = await loading.catch(() => undefined);
      if (!loaded) return;
      // a generation still on it has its slot: wait for the slots to be free before disposing
      while (this.busy > 0 && this.loading === undefined) await new Promise((r) => setTimeout(r, 50));
      await loaded.context.dispose();
      await loaded.model.dispose();
    };
    void dispose().catch((err) => this.log.warn({ err }, 'unloading the language model failed'));
  }

  private async library(): Promise<NodeLlamaCpp> {
    // imported on first use: a server without a model never loads the native library
    this.lib ??= await import('node-llama-cpp');
    return this.lib;
  }

  private async load(file: string): Promise<Loaded> {
    const lib = await this.library();
    runtime ??= lib.getLlama({
      // the prebuilt CPU binary from npm; never a download or a compile at run time
      gpu: false,
      build: 'never',
      logLevel: lib.LlamaLogLevel.error,
    });
    const llama = await runtime;
    const contextSize = this.opts.contextSize ?? 4096;
    const sequences = this.opts.slots ?? 1;
    const insights = await lib.GgufInsights.from(await lib.readGgufFileInfo(file), llama);
    const trainedContext = insights.trainContextSize ?? contextSize;
    const perSequence = Math.min(contextSize, trainedContext);
    const estimatedBytes =
      (await insights.estimateModelResourceRequirementsV2({ gpuLayers: 0 })).cpuRam +
      (await insights.estimateContextResourceRequirementsV2({ contextSize: perSequence * sequences, modelGpuLayers: 0, sequences })).cpuRam;
    if (estimatedBytes > this.opts.memoryBudgetMb * MB) {
      throw new EngineError(
        'unavailable',
        `language model ${basename(file)} needs about ${Math.ceil(estimatedBytes / MB)} MB, over the memory budget of ${this.opts.memoryBudgetMb} MB (TOLK_LLM_MEMORY_MB)`,
      );
    }
    const started = Date.now();
    const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
    try {
      const context = await model.createContext({ contextSize: perSequence * sequences, sequences, threads: this.opts.threads ?? defaultLlmThreads() });
      const chatWrapper = chatWrapperOf(lib, model);
      this.counters.estimatedBytes = estimatedBytes;
      this.log.info({ model: basename(file), ms: Date.now() - started, estimatedMb: Math.ceil(estimatedBytes / MB), chat: chatWrapper.wrapperName }, 'language model loaded');
      return { file, model, context, chatWrapper, estimatedBytes };
    } catch (err) {
      await model.dispose();
      throw err;
    }
  }

  /** The loaded model, loading it once for all callers; a failed load is tried again by the next request. */
  private loaded(): Promise<Loaded> {
    const file = this.file;
    if (!file) return Promise.reject(new EngineError('unavailable', 'no language model is installed (tolk models install llm-NAME)'));
    if (!this.loading) {
      const loading = this.load(file);
      this.loading = loading;
      loading.catch(() => {
        if (this.loading === loading) this.loading = undefined;
      });
    }
    return this.loading;
  }

  async complete(messages: ChatMessage[], options: ChatOptions = {}): Promise<string> {
    if (!this.available()) throw new EngineError('unavailable', 'no language model is installed (tolk models install llm-NAME)');
    // busy (429 with a time to come back) at once when the queue cannot start it in time; the deadline starts with the slot
    const release = await this.slots.acquire(options.requester ?? '', options.signal);
    const deadline = AbortSignal.timeout(this.opts.timeoutMs);
    const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
    options.onStart?.();
    this.busy++;
    clearTimeout(this.idleTimer);
    try {
      return await this.generate(messages, options, signal);
    } catch (err) {
      if (deadline.aborted) throw new EngineError('timeout', `language model did not answer within ${this.opts.timeoutMs} ms`, { cause: err });
      if (options.signal?.aborted) throw new EngineError('failed', 'request aborted', { cause: err });
      if (err instanceof EngineError) throw err;
      throw new EngineError('failed', `language model failed: ${(err as Error).message}`, { cause: err });
    } finally {
      this.busy--;
      release();
      this.armIdleUnload();
    }
  }

  private armIdleUnload(): void {
    const idleMs = this.opts.idleUnloadMs ?? 600_000;
    if (idleMs <= 0 || this.busy > 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.busy === 0 && this.loading) {
        this.log.info({ model: this.model }, 'language model unused: unloaded');
        this.unload();
      }
    }, idleMs);
    this.idleTimer.unref();
  }

  private async generate(messages: ChatMessage[], options: ChatOptions, signal: AbortSignal): Promise<string> {
    const loaded = await this.loaded();
    const lib = await this.library();
    const llama = await runtime!;
    const sequence = loaded.context.getSequence();
    const started = Date.now();
    let firstTokenMs: number | undefined;
    let tokens = 0;
    try {
      const chat = new lib.LlamaChat({ contextSequence: sequence, chatWrapper: loaded.chatWrapper });
      // An answer of numbered texts is held to that shape by a grammar: a small model cannot wander off into prose,
      // and each text's length is bounded, which bounds the generation.
      const grammar = options.answer
        ? await llama.createGrammarForJsonSchema({
            type: 'object',
            properties: Object.fromEntries(options.answer.maxChars.map((max, i) => [String(i + 1), { type: 'string' as const, maxLength: max }])),
            required: options.answer.maxChars.map((_, i) => String(i + 1)),
          } as const)
        : undefined;
      const history: ChatHistoryItem[] = messages.map((m) =>
        m.role === 'assistant' ? { type: 'model', response: [m.content] } : { type: m.role, text: m.content },
      );
      history.push({ type: 'model', response: [] });
      // a numbered answer needs at most a token per character allowed, twice over for scripts split into bytes
      const maxTokens = options.maxTokens ?? (options.answer ? options.answer.maxChars.reduce((n, c) => n + 2 * c + 8, 32) : 2048);
      const response = await chat.generateResponse(history, {
        ...(grammar ? { grammar } : {}),
        maxTokens,
        temperature: options.temperature ?? 0,
        signal,
        onToken: (chunk) => {
          tokens += chunk.length;
          firstTokenMs ??= Date.now() - started;
          if (options.onTokens) options.onTokens(chunk.length);
        },
      });
      chat.dispose({ disposeSequence: false });
      if (response.metadata.stopReason === 'maxTokens' && grammar) {
        throw new EngineError('failed', `language model answer cut off at ${maxTokens} tokens`);
      }
      return response.response;
    } finally {
      this.counters.generations++;
      this.counters.generatedTokens += tokens;
      this.counters.lastFirstTokenMs = firstTokenMs;
      options.onUsage?.({ input: sequence.tokenMeter.usedInputTokens, output: tokens });
      sequence.dispose();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.watch.close();
    this.slots.rejectAll(new EngineError('unavailable', 'the language model is shutting down'));
    const loading = this.loading;
    this.loading = undefined;
    clearTimeout(this.idleTimer);
    const loaded = await loading?.catch(() => undefined);
    await loaded?.context.dispose();
    await loaded?.model.dispose();
  }
}
