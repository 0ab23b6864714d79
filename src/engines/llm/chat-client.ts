// A minimal client for OpenAI-compatible Chat Completions (Ollama, vLLM, llama.cpp, hosted providers) over Node's
// fetch: per-attempt time limit, retries with backoff on 429/5xx/network errors, failures as EngineError kinds.
import { EngineError } from '../engine.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatClientOptions {
  /** Base URL of the API, e.g. http://127.0.0.1:11434/v1 (a trailing /chat/completions is accepted too). */
  url: string;
  model: string;
  apiKey?: string;
  /** Time limit of the whole call, retries included (ms). */
  timeoutMs: number;
  /** Extra attempts after the first on 429/5xx/network errors. Default 2. */
  retries?: number;
  /** First backoff (ms), doubled per retry with jitter; a Retry-After header wins when shorter than the time left. */
  backoffMs?: number;
  /** Injected for tests of the backoff; default setTimeout. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface ChatOptions {
  signal?: AbortSignal;
  temperature?: number;
  /** Ask for a JSON object answer (response_format json_object); servers that lack it ignore the field. */
  json?: boolean;
  /** Who asked (an account): a local model serves accounts in turn. */
  requester?: string;
  /** The answer is {"1": …, "2": …} with at most these characters per text: a local model is held to it by a grammar. */
  answer?: { maxChars: number[] };
  /** Most tokens to generate (local model). */
  maxTokens?: number;
  /** Called as tokens are generated (local model), with their count. */
  onTokens?: (count: number) => void;
  /** Called once the backend starts on the call: a slot taken (local model), the request sent (server). */
  onStart?: () => void;
  /** Called once the answer is in, with the tokens read and written where the backend counts them. */
  onUsage?: (usage: TokenUsage) => void;
}

/** Tokens of one model call: the prompt read, the answer written. */
export interface TokenUsage {
  input: number;
  output: number;
}

/** Where chats are answered: a remote OpenAI-compatible server (ChatClient) or a model on this machine. */
export interface ChatBackend {
  /** The model's name. */
  readonly model: string;
  /** False while no model can answer (a local model not installed). */
  available(): boolean;
  complete(messages: ChatMessage[], options?: ChatOptions): Promise<string>;
  /** Calls waiting for a slot of the backend's own (a local model's generation slots). */
  queued?(): number;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function completionsUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`;
}

/** Why one attempt failed; `retry` says whether another attempt may help. */
interface AttemptFailure {
  kind: 'overloaded' | 'unavailable' | 'failed';
  retry: boolean;
  retryAfterMs?: number;
  message: string;
}

export class ChatClient implements ChatBackend {
  private readonly endpoint: string;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly sleep: NonNullable<ChatClientOptions['sleep']>;

  constructor(private readonly options: ChatClientOptions) {
    this.endpoint = completionsUrl(options.url);
    this.retries = Math.max(0, options.retries ?? 2);
    this.backoffMs = options.backoffMs ?? 250;
    this.sleep = options.sleep ?? defaultSleep;
  }

  get model(): string {
    return this.options.model;
  }

  /** Always: a server that is down answers 503 per request rather than hiding the features. */
  available(): boolean {
    return true;
  }

  /** The assistant's answer text; throws EngineError timeout|overloaded|unavailable|failed. */
  async complete(messages: ChatMessage[], options: ChatOptions = {}): Promise<string> {
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
    let last: AttemptFailure | undefined;
    options.onStart?.();
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0 && last) {
        const backoff = this.backoffMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5);
        try {
          await this.sleep(Math.min(last.retryAfterMs ?? backoff, 10_000), signal);
        } catch {
          throw this.abortError(deadline, options.signal);
        }
      }
      const outcome = await this.attempt(messages, options, signal).catch((err: unknown) => {
        if (signal.aborted) throw this.abortError(deadline, options.signal, err);
        throw err;
      });
      if (typeof outcome === 'string') return outcome;
      last = outcome;
      if (!outcome.retry) break;
    }
    throw new EngineError(last!.kind, last!.message);
  }

  private abortError(deadline: AbortSignal, caller: AbortSignal | undefined, cause?: unknown): EngineError {
    if (deadline.aborted || !caller?.aborted) {
      return new EngineError('timeout', `language model did not answer within ${this.options.timeoutMs} ms`, { cause });
    }
    return new EngineError('failed', 'request aborted', { cause });
  }

  private async attempt(messages: ChatMessage[], options: ChatOptions, signal: AbortSignal): Promise<string | AttemptFailure> {
    const body: Record<string, unknown> = { model: this.options.model, messages, stream: false, temperature: options.temperature ?? 0 };
    if (options.json) body.response_format = { type: 'json_object' };
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let response: Response;
    try {
      response = await fetch(this.endpoint, { method: 'POST', headers, body: JSON.stringify(body), signal });
    } catch (err) {
      if (signal.aborted) throw err;
      // Connection refused, DNS failure, reset: the model server is down or unreachable.
      return { kind: 'unavailable', retry: true, message: `language model server unreachable: ${(err as Error).message}` };
    }
    const text = await response.text();
    if (response.status === 429 || response.status === 503 || response.status === 529) {
      const retryAfter = Number(response.headers.get('retry-after'));
      return {
        kind: 'overloaded',
        retry: true,
        ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
        message: `language model server busy (HTTP ${response.status})`,
      };
    }
    if (response.status >= 500) return { kind: 'unavailable', retry: true, message: `language model server error (HTTP ${response.status})` };
    if (!response.ok) {
      // 4xx other than 429: a configuration problem (model name, key); retrying does not help.
      return { kind: 'failed', retry: false, message: `language model server refused the request (HTTP ${response.status}): ${text.slice(0, 200)}` };
    }
    let content: unknown;
    let usage: { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined;
    try {
      const parsed = JSON.parse(text) as { choices?: { message?: { content?: unknown } }[]; usage?: typeof usage };
      content = parsed.choices?.[0]?.message?.content;
      usage = parsed.usage;
    } catch {
      return { kind: 'failed', retry: true, message: 'language model server sent a body that is not JSON' };
    }
    // OpenAI's usage object, which most compatible servers send too
    if (typeof usage?.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number') {
      options.onUsage?.({ input: usage.prompt_tokens, output: usage.completion_tokens });
    }
    if (typeof content !== 'string') return { kind: 'failed', retry: true, message: 'language model answer has no message content' };
    return content;
  }
}
