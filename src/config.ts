// One schema for the environment: parsed and checked at start, with a message naming every bad variable.
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const Port = Type.Integer({ minimum: 0, maximum: 65535 });
const Positive = Type.Integer({ minimum: 1 });

const EnvSchema = Type.Object({
  TOLK_PORT: Type.Optional(Port),
  TOLK_FREE_PORT: Type.Optional(Port),
  TOLK_HOST: Type.Optional(Type.String({ minLength: 1 })),
  TOLK_DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  TOLK_DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  TOLK_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  TOLK_FREE_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  TOLK_LOG_LEVEL: Type.Optional(Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)))),
  TOLK_RATE_LIMIT_PER_MINUTE: Type.Optional(Positive),
  TOLK_REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  TOLK_ENGINE_TIMEOUT_MS: Type.Optional(Positive),
  TOLK_ENGINE_ROUTES: Type.Optional(Type.String()),
  TOLK_APERTIUM_MODES_DIR: Type.Optional(Type.String({ minLength: 1 })),
  TOLK_APERTIUM_MEMORY_MB: Type.Optional(Positive),
  TOLK_APERTIUM_PIPELINES_PER_PAIR: Type.Optional(Positive),
  TOLK_DEFAULT_SOURCE_LANG: Type.Optional(Type.String({ pattern: '^[a-z]{2,3}$' })),
  TOLK_DETECTOR_LOAD: Type.Optional(Type.Union([Type.Literal('start'), Type.Literal('first-use')])),
  TOLK_APERTIUM_PAIRS: Type.Optional(Type.String({ pattern: '^[a-z0-9-]+(,[a-z0-9-]+)*$' })),
  TOLK_APERTIUM_WARM_PAIRS: Type.Optional(Type.String({ pattern: '^(\\*|[a-z0-9-]+(,[a-z0-9-]+)*)$' })),
  TOLK_DOCUMENT_WORKERS: Type.Optional(Type.Integer({ minimum: 0, maximum: 64 })),
  TOLK_DOCUMENT_RETENTION_HOURS: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  TOLK_DOCUMENT_FORMAT_TIMEOUT_MS: Type.Optional(Positive),
  TOLK_DOCUMENT_STORE: Type.Optional(Type.Union([Type.Literal('disk'), Type.Literal('database')])),
  TOLK_DOCUMENT_LEASE_MS: Type.Optional(Type.Integer({ minimum: 1000 })),
  TOLK_DOCUMENT_MEMORY_MB: Type.Optional(Type.Integer({ minimum: 64 })),
  TOLK_DOCUMENT_PAGE_MEGAPIXELS: Type.Optional(Type.Number({ minimum: 1, maximum: 1000 })),
  TOLK_DOCUMENT_IMAGE_MEGAPIXELS: Type.Optional(Type.Number({ minimum: 1, maximum: 1000 })),
  TOLK_DOCUMENT_OCR_MEGAPIXELS: Type.Optional(Type.Number({ minimum: 1 })),
  TOLK_DOCUMENT_ARCHIVE_ENTRIES: Type.Optional(Positive),
  TOLK_DOCUMENT_UNPACKED_MB: Type.Optional(Positive),
  TOLK_DOCUMENT_PART_MB: Type.Optional(Positive),
  TOLK_DOCUMENT_COMPRESSION_RATIO: Type.Optional(Positive),
  TOLK_LLM_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  TOLK_LLM_MODEL: Type.Optional(Type.String({ minLength: 1 })),
  TOLK_LLM_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  TOLK_LLM_LANGUAGES: Type.Optional(Type.String({ pattern: '^[a-z]{2,3}(-[a-z0-9]+)?(,[a-z]{2,3}(-[a-z0-9]+)?)*$' })),
  TOLK_LLM_TIMEOUT_MS: Type.Optional(Positive),
  TOLK_LLM_CONCURRENCY: Type.Optional(Positive),
  TOLK_LLM_MEMORY_MB: Type.Optional(Positive),
  TOLK_LLM_SLOTS: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
  TOLK_LLM_THREADS: Type.Optional(Type.Integer({ minimum: 0, maximum: 256 })),
  TOLK_LLM_QUEUE_WAIT_MS: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_600_000 })),
  TOLK_LLM_CONTEXT: Type.Optional(Type.Integer({ minimum: 512, maximum: 131072 })),
  TOLK_HUNSPELL_DIR: Type.Optional(Type.String({ minLength: 1 })),
  TOLK_MODELS_DIR: Type.Optional(Type.String({ minLength: 1 })),
  TOLK_BERGAMOT_WORKERS: Type.Optional(Type.Integer({ minimum: 0, maximum: 256 })),
  TOLK_BERGAMOT_MEMORY_MB: Type.Optional(Positive),
  TOLK_MODELS_INDEX_URL: Type.Optional(Type.String({ pattern: '^(https?|file)://' })),
  TOLK_WHISPER_MODELS_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  TOLK_LLM_MODELS_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  TOLK_STT_ENGINE: Type.Optional(Type.Union(['auto', 'pocketsphinx', 'whisper'].map((l) => Type.Literal(l)))),
  TOLK_STT_DECODER_IDLE_SECONDS: Type.Optional(Positive),
  TOLK_HUNSPELL_PROCESSES: Type.Optional(Type.Integer({ minimum: 1, maximum: 32 })),
  TOLK_TRUST_PROXY: Type.Optional(Type.String({ minLength: 1 })),
  TOLK_KEEP_ALIVE_TIMEOUT_MS: Type.Optional(Positive),
  TOLK_HEADERS_TIMEOUT_MS: Type.Optional(Positive),
  TOLK_REQUEST_TIMEOUT_MS: Type.Optional(Positive),
  TOLK_SHUTDOWN_TIMEOUT_MS: Type.Optional(Positive),
  TOLK_METRICS_PORT: Type.Optional(Port),
  TOLK_HTTP_PROCESSES: Type.Optional(Type.String({ pattern: '^(auto|[1-9]|[1-5][0-9]|6[0-4])$' })),
  TOLK_LIBRETRANSLATE: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  TOLK_LIBRETRANSLATE_CORS: Type.Optional(Type.String({ pattern: '^(true|false|https?://[^,\\s]+(,https?://[^,\\s]+)*)$' })),
});
type Env = Static<typeof EnvSchema>;

export interface Config {
  host: string;
  /** Port of the paid-plan API. */
  port: number;
  /** Port of the free-plan API; equal to `port` when one listener serves both plans (no plan check). */
  freePort: number;
  baseUrl: string;
  freeBaseUrl: string;
  dataDir: string;
  databaseUrl: string;
  logLevel: string;
  /** Fastify's trustProxy: true, or the proxies' addresses/CIDRs; X-Forwarded-Proto/-Host then shape the URLs Tolk hands out. */
  trustProxy: boolean | string;
  rateLimitPerMinute: number;
  /** Redis counting the rate limit for every node; unset: the PostgreSQL database, or memory on SQLite (one node). */
  redisUrl: string | undefined;
  engineTimeoutMs: number;
  /** Source language assumed for texts too short or ambiguous to detect (when it can reach the target). */
  defaultSourceLang: string;
  /** When the language detector's thread (~150 MiB) starts: with the first detection (which waits ~1 s for it), or at start. */
  detectorLoad: 'start' | 'first-use';
  /** "en-es=apertium,*=apertium": which engine serves which pair. */
  engineRoutes: { pair: string; engine: string }[];
  /**
   * `pairs`: only these Apertium pairs ("en-es"), default every installed pair; `warmPairs`: started at start ("*":
   * all), the others on first use; `memoryBudgetMb` undefined: the engine's default (from the machine's memory).
   */
  apertium: {
    modesDir: string;
    memoryBudgetMb: number | undefined;
    maxPipelinesPerPair: number | undefined;
    pairs: string[] | undefined;
    warmPairs: string[] | undefined;
  };
  /**
   * Document translation: concurrent jobs per node (0 = none here), hours before undownloaded documents are purged,
   * and the time one job's format work (parsing, rebuilding; in worker threads) may take before it ends in `error`.
   */
  documents: {
    workers: number;
    retentionHours: number;
    formatTimeoutMs: number;
    /** Where uploads and results live (TOLK_DOCUMENT_STORE): the node's disk, or the database every node reads. */
    store: 'disk' | 'database';
    /** How long a job stays with a node that stopped renewing it (died) before another node takes it. */
    leaseMs: number;
    /** Heap of one format thread in MB (TOLK_DOCUMENT_MEMORY_MB): a document needing more ends in `error`. */
    formatMemoryMb: number;
    /** Pixels a job may draw and decode (TOLK_DOCUMENT_*_MEGAPIXELS): bound the memory outside the thread's heap. */
    pixelLimits: { pagePixels: number; imagePixels: number; ocrPixels: number };
    /**
     * Zip-based documents (docx, pptx, xlsx, IDML): entries, bytes unpacked in all and per entry, and the compression
     * ratio of one entry; checked on the declared sizes first and again on the bytes as they are inflated.
     */
    archive: { maxEntries: number; maxTotalBytes: number; maxEntryBytes: number; maxRatio: number };
  };
  /** The language-model engine (OpenAI-compatible Chat Completions), when TOLK_LLM_URL is set. */
  llm:
    | { url: string; model: string; apiKey: string | undefined; languages: string[] | undefined; timeoutMs: number; concurrency: number }
    | undefined;
  /**
   * Without TOLK_LLM_URL: an installed GGUF model (modelsDir/llm, TOLK_LLM_MODEL picks one by name) run in this
   * process under a memory budget, with generation slots shared between accounts.
   */
  localLlm: {
    preferred: string | undefined;
    languages: string[] | undefined;
    memoryBudgetMb: number;
    slots: number;
    /** llama.cpp threads; undefined: what the machine can spare beside the other engines (defaultLlmThreads). */
    threads: number | undefined;
    contextSize: number;
    /** One generation's time limit, from the moment it has a slot. */
    timeoutMs: number;
    /** Longest wait for a slot; a request the queue cannot start within it is refused at once (429). */
    queueWaitMs: number;
  };
  /** Where Hunspell dictionaries (.dic/.aff) for /v2/write/correct are. */
  hunspellDir: string;
  /** Socket timeouts of both listeners: idle keep-alive, complete request head, complete request (body included). */
  timeouts: { keepAliveMs: number; headersMs: number; requestMs: number };
  /** On SIGTERM/SIGINT, requests in flight get this long to finish before their connections are cut. */
  shutdownTimeoutMs: number;
  /** Neural translation models (Firefox Translations/Bergamot, under modelsDir): worker threads (0 = engine off), memory budget, public index. */
  /** `memoryBudgetMb` undefined: the engine's default (a quarter of the machine's memory, 2048–32768 MiB). */
  bergamot: { workers: number | undefined; memoryBudgetMb: number | undefined; indexUrl: string | undefined };
  /** Installed models (TOLK_MODELS_DIR, default DATA_DIR/models); speech recognition models under whisper/. */
  modelsDir: string;
  /** Speech-to-text engine: auto = Whisper when a model is installed, else PocketSphinx. */
  sttEngine: 'auto' | 'pocketsphinx' | 'whisper';
  /** How long an idle PocketSphinx decoder (~95 MiB) is kept for the next voice session, ms. */
  sttDecoderIdleMs: number;
  /** Where `tolk models install whisper-NAME` downloads ggml-NAME.bin from (default: whisper.cpp's Hugging Face repository). */
  whisperModelsUrl: string | undefined;
  /** Where `tolk models install llm-NAME` downloads the curated language models from (default: Hugging Face). */
  llmModelsUrl: string | undefined;
  /** Warm Hunspell checkers per dictionary, shared round-robin between accounts. */
  hunspellProcesses: number;
  /** Port of a separate listener for /metrics (no key); undefined: /metrics on the API, admin key required. */
  metricsPort: number | undefined;
  /**
   * Processes serving HTTP on this node (TOLK_HTTP_PROCESSES; `auto`: defaultHttpProcesses), sharing the listening
   * sockets; above 1 the engines are divided among them and the rate limit is counted in the database.
   */
  httpProcesses: number;
  /**
   * LibreTranslate's API (/translate, /detect, /languages, /translate_file, /frontend/settings) beside the
   * DeepL-style one, for applications that only speak it; off unless TOLK_LIBRETRANSLATE=true.
   */
  libreTranslate: boolean;
  /**
   * Cross-origin calls of LibreTranslate's routes from browsers: `*` (LibreTranslate's own default), none, or the
   * listed origins (TOLK_LIBRETRANSLATE_CORS: true, false or a comma-separated list of origins).
   */
  libreTranslateCors: '*' | 'none' | string[];
}

export class ConfigError extends Error {}

/**
 * `TOLK_HTTP_PROCESSES=auto`: one HTTP process per four cores, one below four. Each process needs about a core for its
 * own share of a request and the engines the rest (an Apertium pipeline keeps about two cores busy); on 2 cores a second
 * process measured no faster than one (docs/benchmarks.md, "HTTP processes") and costs a copy of the detector.
 */
export function defaultHttpProcesses(cores = availableParallelism()): number {
  return cores < 4 ? 1 : Math.min(16, Math.floor(cores / 4));
}

function parseRoutes(raw: string | undefined): Config['engineRoutes'] {
  if (!raw) return [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = /^(\*|[a-z]{2,3}(?:-[a-z0-9]+)*)=([a-z0-9_-]+)$/i.exec(entry);
      if (!m) throw new ConfigError(`TOLK_ENGINE_ROUTES: cannot read '${entry}' (expected e.g. en-es=apertium or *=apertium)`);
      return { pair: m[1]!.toLowerCase(), engine: m[2]!.toLowerCase() };
    });
}

/** A union of literals says which values it allows ("Expected union value" alone does not). */
function describeError(schema: TSchema, message: string): string {
  const allowed = (schema.anyOf as TSchema[] | undefined)?.map((s) => s.const as unknown);
  return allowed?.every((v) => typeof v === 'string') ? `must be one of ${allowed.join(', ')}` : message;
}

/** Reads the environment; throws ConfigError listing every invalid variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const relevant: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) if (env[key] !== undefined && env[key] !== '') relevant[key] = env[key];
  // TypeBox's Convert truncates '1.5' to 1 for an integer; a setting written as a fraction is refused instead.
  const fractions = Object.keys(relevant).filter(
    (key) => (EnvSchema.properties as Record<string, TSchema>)[key]!.type === 'integer' && !/^\s*-?\d+\s*$/.test(String(relevant[key])),
  );
  const converted = Value.Convert(EnvSchema, { ...relevant }); // a copy: Convert may change what it is given
  const errors = [...Value.Errors(EnvSchema, converted)];
  if (errors.length > 0 || fractions.length > 0) {
    const lines = [
      ...fractions.map((key) => `${key}=${JSON.stringify(relevant[key])}: Expected integer`),
      ...errors.map((e) => `${e.path.slice(1)}=${JSON.stringify(relevant[e.path.slice(1)])}: ${describeError(e.schema, e.message)}`),
    ];
    throw new ConfigError(`Invalid configuration:\n  ${[...new Set(lines)].join('\n  ')}`);
  }
  const e = converted as Env;
  const timeouts = {
    keepAliveMs: e.TOLK_KEEP_ALIVE_TIMEOUT_MS ?? 5_000,
    headersMs: e.TOLK_HEADERS_TIMEOUT_MS ?? 20_000,
    requestMs: e.TOLK_REQUEST_TIMEOUT_MS ?? 300_000,
  };
  // Node refuses a head deadline beyond the request deadline; say so with the variables' names.
  if (timeouts.headersMs > timeouts.requestMs) {
    throw new ConfigError('Invalid configuration:\n  TOLK_HEADERS_TIMEOUT_MS must not exceed TOLK_REQUEST_TIMEOUT_MS');
  }
  const unpackedMb = e.TOLK_DOCUMENT_UNPACKED_MB ?? 512;
  const partMb = e.TOLK_DOCUMENT_PART_MB ?? 100;
  if (partMb > unpackedMb) throw new ConfigError('Invalid configuration:\n  TOLK_DOCUMENT_PART_MB must not exceed TOLK_DOCUMENT_UNPACKED_MB');
  if (e.TOLK_LLM_URL && !e.TOLK_LLM_MODEL) throw new ConfigError('Invalid configuration:\n  TOLK_LLM_MODEL must be set with TOLK_LLM_URL');
  const host = e.TOLK_HOST ?? '127.0.0.1';
  const port = e.TOLK_PORT ?? 8080;
  const freePort = e.TOLK_FREE_PORT ?? (port === 0 ? 0 : port + 1);
  const dataDir = resolve(e.TOLK_DATA_DIR ?? './data');
  const databaseUrl = e.TOLK_DATABASE_URL ?? resolve(dataDir, 'tolk.db');
  const automatic = e.TOLK_HTTP_PROCESSES === undefined || e.TOLK_HTTP_PROCESSES === 'auto';
  // each process would open a database of its own in memory: one process there
  const httpProcesses = automatic ? (databaseUrl === ':memory:' ? 1 : defaultHttpProcesses()) : Number(e.TOLK_HTTP_PROCESSES);
  if (httpProcesses > 1 && databaseUrl === ':memory:') throw new ConfigError('Invalid configuration:\n  TOLK_HTTP_PROCESSES above 1 needs a database file or PostgreSQL, not TOLK_DATABASE_URL=:memory:');
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    host,
    port,
    freePort,
    baseUrl: e.TOLK_BASE_URL ?? `http://${urlHost}:${port}`,
    freeBaseUrl: e.TOLK_FREE_BASE_URL ?? `http://${urlHost}:${freePort}`,
    dataDir,
    databaseUrl,
    logLevel: e.TOLK_LOG_LEVEL ?? 'info',
    trustProxy: e.TOLK_TRUST_PROXY === undefined || e.TOLK_TRUST_PROXY === 'false' ? false : e.TOLK_TRUST_PROXY === 'true' ? true : e.TOLK_TRUST_PROXY,
    rateLimitPerMinute: e.TOLK_RATE_LIMIT_PER_MINUTE ?? 120_000,
    redisUrl: e.TOLK_REDIS_URL,
    engineTimeoutMs: e.TOLK_ENGINE_TIMEOUT_MS ?? 10_000,
    engineRoutes: parseRoutes(e.TOLK_ENGINE_ROUTES),
    defaultSourceLang: e.TOLK_DEFAULT_SOURCE_LANG ?? 'en',
    detectorLoad: e.TOLK_DETECTOR_LOAD ?? 'first-use',
    apertium: {
      modesDir: e.TOLK_APERTIUM_MODES_DIR ?? '/usr/share/apertium/modes',
      memoryBudgetMb: e.TOLK_APERTIUM_MEMORY_MB,
      maxPipelinesPerPair: e.TOLK_APERTIUM_PIPELINES_PER_PAIR,
      pairs: e.TOLK_APERTIUM_PAIRS?.split(','),
      warmPairs: e.TOLK_APERTIUM_WARM_PAIRS?.split(','),
    },
    documents: {
      workers: e.TOLK_DOCUMENT_WORKERS ?? 2,
      retentionHours: e.TOLK_DOCUMENT_RETENTION_HOURS ?? 24,
      formatTimeoutMs: e.TOLK_DOCUMENT_FORMAT_TIMEOUT_MS ?? 120_000,
      // PostgreSQL means several nodes may share the queue: files go where all of them can read them
      store: e.TOLK_DOCUMENT_STORE ?? (/^postgres(ql)?:\/\//.test(databaseUrl) ? 'database' : 'disk'),
      leaseMs: e.TOLK_DOCUMENT_LEASE_MS ?? 30_000,
      formatMemoryMb: e.TOLK_DOCUMENT_MEMORY_MB ?? 1024,
      pixelLimits: {
        pagePixels: Math.round((e.TOLK_DOCUMENT_PAGE_MEGAPIXELS ?? 25) * 1_000_000),
        imagePixels: Math.round((e.TOLK_DOCUMENT_IMAGE_MEGAPIXELS ?? 25) * 1_000_000),
        ocrPixels: Math.round((e.TOLK_DOCUMENT_OCR_MEGAPIXELS ?? 400) * 1_000_000),
      },
      archive: {
        maxEntries: e.TOLK_DOCUMENT_ARCHIVE_ENTRIES ?? 10_000,
        maxTotalBytes: unpackedMb * 1024 * 1024,
        maxEntryBytes: partMb * 1024 * 1024,
        maxRatio: e.TOLK_DOCUMENT_COMPRESSION_RATIO ?? 100,
      },
    },
    llm: e.TOLK_LLM_URL
      ? {
          url: e.TOLK_LLM_URL,
          model: e.TOLK_LLM_MODEL!,
          apiKey: e.TOLK_LLM_API_KEY,
          languages: e.TOLK_LLM_LANGUAGES?.split(','),
          timeoutMs: e.TOLK_LLM_TIMEOUT_MS ?? 60_000,
          concurrency: e.TOLK_LLM_CONCURRENCY ?? 4,
        }
      : undefined,
    localLlm: {
      preferred: e.TOLK_LLM_MODEL,
      languages: e.TOLK_LLM_LANGUAGES?.split(','),
      memoryBudgetMb: e.TOLK_LLM_MEMORY_MB ?? 8192,
      slots: e.TOLK_LLM_SLOTS ?? 1,
      threads: e.TOLK_LLM_THREADS,
      contextSize: e.TOLK_LLM_CONTEXT ?? 4096,
      timeoutMs: e.TOLK_LLM_TIMEOUT_MS ?? 120_000,
      queueWaitMs: e.TOLK_LLM_QUEUE_WAIT_MS ?? 60_000,
    },
    hunspellDir: e.TOLK_HUNSPELL_DIR ?? '/usr/share/hunspell',
    timeouts,
    shutdownTimeoutMs: e.TOLK_SHUTDOWN_TIMEOUT_MS ?? 25_000,
    bergamot: {
      workers: e.TOLK_BERGAMOT_WORKERS,
      memoryBudgetMb: e.TOLK_BERGAMOT_MEMORY_MB,
      indexUrl: e.TOLK_MODELS_INDEX_URL,
    },
    modelsDir: resolve(e.TOLK_MODELS_DIR ?? resolve(dataDir, 'models')),
    sttEngine: (e.TOLK_STT_ENGINE ?? 'auto') as 'auto' | 'pocketsphinx' | 'whisper',
    sttDecoderIdleMs: (e.TOLK_STT_DECODER_IDLE_SECONDS ?? 30) * 1000,
    whisperModelsUrl: e.TOLK_WHISPER_MODELS_URL,
    llmModelsUrl: e.TOLK_LLM_MODELS_URL,
    hunspellProcesses: e.TOLK_HUNSPELL_PROCESSES ?? 2,
    metricsPort: e.TOLK_METRICS_PORT,
    httpProcesses,
    libreTranslate: e.TOLK_LIBRETRANSLATE === 'true',
    libreTranslateCors:
      e.TOLK_LIBRETRANSLATE_CORS === undefined || e.TOLK_LIBRETRANSLATE_CORS === 'true' ? '*' : e.TOLK_LIBRETRANSLATE_CORS === 'false' ? 'none' : e.TOLK_LIBRETRANSLATE_CORS.split(','),
  };
}

