// The one interface every machine-translation engine implements; the service layer never sees engine internals.

/** Language codes inside Tolk are lower-case BCP 47: a base ("en", "pt") optionally with a variant ("en-us", "pt-br"). */
export type LangCode = string;

export interface LanguagePair {
  source: LangCode;
  target: LangCode;
}

export interface EnginePairInfo extends LanguagePair {
  /** The engine can honour formality more/less for this pair. */
  formality: boolean;
}

export interface EngineTranslateOptions {
  formality?: 'default' | 'more' | 'less';
  /** Extra context for engines that can use it; never translated or returned. */
  context?: string;
  /** Aborts the work when the client goes away or the request times out. */
  signal?: AbortSignal;
  /** Who asked (an account id): engines that queue work serve requesters in turn, so one cannot starve the others. */
  requester?: string;
  /** Free-text instructions for engines with features.customInstructions (ignored by others). */
  customInstructions?: string[];
  /** Style rules as plain-language instructions, for engines with features.styleRules. */
  styleRules?: string[];
  /** Terms that must appear as given when their source occurs, for engines with features.glossary. */
  glossary?: { source: string; target: string }[];
}

export interface EngineFeatures {
  /** Engine uses the `context` option. */
  context: boolean;
  /** Engine honours `glossary` terms (and verifies them). */
  glossary?: boolean;
  /** Engine follows `customInstructions`. */
  customInstructions?: boolean;
  /** Engine follows `styleRules`. */
  styleRules?: boolean;
}

export interface TranslationEngine {
  /** Stable name used in configuration (e.g. "apertium"). */
  readonly name: string;
  readonly features: EngineFeatures;
  /** Discovers and probes what the engine can do; only pairs that really work are reported afterwards. */
  start(): Promise<void>;
  /** Direct pairs this engine translates (no pivots). */
  pairs(): EnginePairInfo[];
  /**
   * Translates each segment independently; result i is the translation of segments[i].
   * Segments are plain text (no markup); the engine must not return its own annotation marks.
   * Rejects with EngineError on failure.
   */
  translate(pair: LanguagePair, segments: string[], options: EngineTranslateOptions): Promise<string[]>;
  /** For engines whose pairs change while running (models installed or removed): called after each change. */
  onPairsChanged?(listener: () => void): void;
  close(): Promise<void>;
}

export type EngineErrorKind = 'timeout' | 'overloaded' | 'busy' | 'failed' | 'unsupported_pair' | 'unavailable';

/**
 * Engines throw only this; the service layer maps kinds to API errors (timeout → 504, overloaded → 529, busy — the
 * work cannot start in time, come back after retryAfterMs — → 429, unavailable — e.g. a model server that cannot be
 * reached — → 503).
 */
export class EngineError extends Error {
  /** When trying again may succeed (busy), ms. */
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly kind: EngineErrorKind,
    message: string,
    options?: { cause?: unknown; retryAfterMs?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EngineError';
    this.retryAfterMs = options?.retryAfterMs;
  }
}
