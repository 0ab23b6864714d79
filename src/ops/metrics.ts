// Prometheus metrics (prom-client, one registry per service set): counters fed as work happens, gauges read from the
// engines, the store and the voice sessions when scraped.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { TranslationEngine } from '../engines/engine.js';
import type { ApertiumPairStats } from '../engines/apertium/index.js';
import type { BergamotPoolStats } from '../engines/bergamot/index.js';
import type { DocumentStatusValue } from '../store/repositories/document-repository.js';
import type { StoreConnection } from '../store/connection.js';
import type { JobStatsRepository } from '../store/repositories/job-stats-repository.js';
import type { LlmObserver, LlmOperation, LlmOutcome } from '../engines/llm/index.js';
import type { BuildInfo } from './build-info.js';

export interface MetricsSources {
  pool: Pick<StoreConnection, 'poolStats'>;
  jobs: Pick<JobStatsRepository, 'jobStats'>;
  apertium: () => ApertiumPairStats[];
  voiceSessionsOpen: () => number;
  /** The neural engine's pool, or undefined where it is off (TOLK_BERGAMOT_WORKERS=0). */
  bergamot: () => (BergamotPoolStats & { installedModels: number }) | undefined;
  /** Language-model calls waiting for a slot now (0 without a model). */
  llmQueued: () => number;
  /** Post-edits whose rewrite was refused, so the engine's own translation was kept (a fallback). */
  postEditsRefused: () => number;
  build: BuildInfo;
  now?: () => number;
}

/** A text the language model was asked for but whose answer was not used: what was answered instead. */
export type LlmFallback = 'post_edit_draft_kept' | 'rephrase_unchanged' | 'correct_spelling';

const LLM_OPERATIONS: LlmOperation[] = ['translate', 'improve', 'post_edit'];

/** Every status a job can have, so each series exists (at 0) before the first job does. */
const JOB_STATUSES = {
  document: ['queued', 'translating', 'downloading', 'done', 'error'] satisfies DocumentStatusValue[],
  translation_memory: ['awaiting_input', 'processing', 'completed', 'downloaded', 'failed', 'expired'],
};

/** How a document job this node ran ended. */
export type DocumentJobOutcome = 'done' | 'error';

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly latency: Histogram<'route' | 'method'>;
  /** Bounded: route patterns (or "unmatched") × methods × statuses. */
  private readonly requestSeries = new Map<string, { count: { inc(): void }; latency: { observe(value: number): void } }>();
  private readonly characters: Counter<'engine' | 'pair'>;
  private readonly documentJobs: Counter<'outcome'>;
  private readonly fallbacks: Record<Exclude<LlmFallback, 'post_edit_draft_kept'>, number> = { rephrase_unchanged: 0, correct_spelling: 0 };
  private readonly libreRequests: Counter<'route' | 'outcome'>;
  /** Told by the language-model engines what each call did. */
  readonly languageModel: LlmObserver;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    const now = sources.now ?? Date.now;
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({ name: 'tolk_http_requests_total', help: 'HTTP requests answered, by route, method and status.', labelNames: ['route', 'method', 'status'], registers });
    this.latency = new Histogram({
      name: 'tolk_http_request_duration_seconds',
      help: 'Time from request to response, by route and method.',
      labelNames: ['route', 'method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.characters = new Counter({ name: 'tolk_translated_characters_total', help: 'Characters (code points) sent to an engine, by engine and language pair.', labelNames: ['engine', 'pair'], registers });
    const apertiumGauge = (name: string, help: string, value: (s: ApertiumPairStats) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['pair'],
        registers,
        collect() {
          this.reset();
          for (const s of sources.apertium()) this.set({ pair: s.pair }, value(s));
        },
      });
    apertiumGauge('tolk_engine_queue_depth', 'Apertium requests with blocks waiting for a pipeline, by pair.', (s) => s.queued);
    apertiumGauge('tolk_engine_in_flight', 'Apertium blocks (a sentence or up to 1 KiB each) in a pipeline now, by pair.', (s) => s.inFlight);
    apertiumGauge('tolk_apertium_pipelines', 'Running Apertium pipelines, by pair.', (s) => s.pipelines);
    apertiumGauge('tolk_apertium_pipelines_resident_bytes', 'Resident memory of the running Apertium pipelines, by pair.', (s) => s.rssMb * 2 ** 20);
    new Counter({
      name: 'tolk_apertium_pipeline_restarts_total',
      help: 'Apertium pipelines that died unexpectedly (crash, deadline) and were replaced, by pair.',
      labelNames: ['pair'],
      registers,
      collect() {
        this.reset();
        for (const s of sources.apertium()) this.inc({ pair: s.pair }, s.restarts);
      },
    });
    // One store query per scrape for both job gauges: the first collect starts it, the second reuses it.
    let jobStats: ReturnType<MetricsSources['jobs']['jobStats']> = Promise.resolve([]);
    new Gauge({
      name: 'tolk_jobs',
      help: 'Document and translation-memory jobs in the store, by kind and status.',
      labelNames: ['kind', 'status'],
      registers,
      // read from the store, so every HTTP process of a node reports the same figure (aggregated: not summed)
      aggregator: 'max',
      async collect() {
        jobStats = sources.jobs.jobStats();
        const stats = await jobStats;
        this.reset();
        for (const [kind, statuses] of Object.entries(JOB_STATUSES)) for (const status of statuses) this.set({ kind, status }, 0);
        for (const s of stats) this.set({ kind: s.kind, status: s.status }, s.count);
      },
    });
    this.documentJobs = new Counter({
      name: 'tolk_document_jobs_total',
      help: 'Document jobs this node ran to their end, by outcome (done: translated; error: failed, with a message for the client).',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['done', 'error'] satisfies DocumentJobOutcome[]) this.documentJobs.inc({ outcome }, 0);
    const bergamotGauge = (
      name: string,
      help: string,
      labelNames: string[],
      set: (g: Gauge, s: BergamotPoolStats & { installedModels: number }) => void,
      aggregator: 'sum' | 'max' = 'sum',
    ) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        aggregator,
        collect() {
          const stats = sources.bergamot();
          if (!stats) return;
          this.reset();
          set(this, stats);
        },
      });
    bergamotGauge('tolk_bergamot_workers', 'Neural engine (Bergamot) worker threads, by state (running: started; busy: translating now).', ['state'], (g, s) => {
      g.set({ state: 'running' }, s.workers);
      g.set({ state: 'busy' }, s.busyWorkers);
    });
    bergamotGauge('tolk_bergamot_queue_depth', 'Neural engine requests waiting for a worker.', [], (g, s) => g.set(s.queuedRequests));
    bergamotGauge('tolk_bergamot_models', 'Neural models, by state (installed: in TOLK_MODELS_DIR; loaded: held by at least one worker).', ['state'], (g, s) => {
      g.set({ state: 'installed' }, s.installedModels);
      g.set({ state: 'loaded' }, new Set(s.loadedModels).size);
      // installed: one directory every HTTP process reads; loaded: the most any one of them holds
    }, 'max');
    bergamotGauge('tolk_bergamot_model_copies', 'Workers holding each loaded neural model, by pair.', ['pair'], (g, s) => {
      const copies = new Map<string, number>();
      for (const pair of s.loadedModels) copies.set(pair, (copies.get(pair) ?? 0) + 1);
      for (const [pair, n] of copies) g.set({ pair }, n);
    });
    new Gauge({
      name: 'tolk_jobs_oldest_age_seconds',
      help: 'Age of the oldest job of each kind and status.',
      labelNames: ['kind', 'status'],
      registers,
      aggregator: 'max',
      async collect() {
        const stats = await jobStats;
        this.reset();
        for (const s of stats) this.set({ kind: s.kind, status: s.status }, Math.max(0, (now() - s.oldest) / 1000));
      },
    });
    new Gauge({
      name: 'tolk_voice_sessions_open',
      help: 'Voice sessions open (connected or reconnectable).',
      registers,
      collect() {
        this.set(sources.voiceSessionsOpen());
      },
    });
    new Gauge({
      name: 'tolk_build_info',
      help: 'Always 1: the running version of Tolk, the Node.js version, and the git commit where known.',
      labelNames: ['version', 'node', 'commit'],
      registers,
      aggregator: 'first',
    }).set({ version: sources.build.version, node: sources.build.node, ...(sources.build.commit ? { commit: sources.build.commit } : {}) }, 1);
    this.languageModel = this.languageModelMetrics(sources, registers);
    const fallbacks = this.fallbacks;
    new Counter({
      name: 'tolk_llm_fallbacks_total',
      help: "Texts answered without the language model's output, by kind (post_edit_draft_kept: the engine's translation, the rewrite refused; rephrase_unchanged: the texts as sent; correct_spelling: the spelling checker's correction).",
      labelNames: ['kind'],
      registers,
      collect() {
        // post-edits are counted where they happen (PostEditCounts), the others by llmFallback()
        this.reset();
        this.inc({ kind: 'post_edit_draft_kept' }, sources.postEditsRefused());
        for (const [kind, n] of Object.entries(fallbacks)) this.inc({ kind }, n);
      },
    });
    this.libreRequests = new Counter({
      name: 'tolk_libretranslate_requests_total',
      help: "LibreTranslate API requests (TOLK_LIBRETRANSLATE), by route and outcome: ok, or the error's code (invalid_request, unauthorized, quota_exceeded, too_many_requests, …), finer than the few statuses LibreTranslate answers with.",
      labelNames: ['route', 'outcome'],
      registers,
    });
    new Gauge({
      name: 'tolk_db_pool_connections',
      help: 'Database pool connections by state (total, idle, and requests waiting for one).',
      labelNames: ['state'],
      registers,
      collect() {
        const p = sources.pool.poolStats();
        this.set({ state: 'total' }, p.total);
        this.set({ state: 'idle' }, p.idle);
        this.set({ state: 'waiting' }, p.waiting);
      },
    });
  }

  /** One answered request; `route` is the route pattern (never the raw URL, to keep the label set bounded). */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    // the series of a route, method and status found once: prom-client hashes the label object on every call
    const key = `${route} ${method} ${status}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      series = { count: this.requests.labels(route, method, String(status)), latency: this.latency.labels(route, method) };
      this.requestSeries.set(key, series);
    }
    series.count.inc();
    series.latency.observe(seconds);
  }

  documentJobEnded(outcome: DocumentJobOutcome): void {
    this.documentJobs.inc({ outcome });
  }

  llmFallback(kind: Exclude<LlmFallback, 'post_edit_draft_kept'>, texts: number): void {
    this.fallbacks[kind] += texts;
  }

  /** One LibreTranslate request answered; `route` is the route pattern, `outcome` "ok" or a bounded error code. */
  libreTranslateRequest(route: string, outcome: string): void {
    this.libreRequests.inc({ route, outcome });
  }

  /** The language model's families, and the observer its engines tell. */
  private languageModelMetrics(sources: MetricsSources, registers: Registry[]): LlmObserver {
    const requests = new Counter({
      name: 'tolk_llm_requests_total',
      help: "Language-model engine calls, by operation (translate, improve: rephrase and correct, post_edit) and outcome (ok; refused: the model's output failed the checks and was not used; timeout, overloaded, unavailable, failed, aborted).",
      labelNames: ['operation', 'outcome'],
      registers,
    });
    for (const operation of LLM_OPERATIONS) for (const outcome of ['ok', 'refused'] satisfies LlmOutcome[]) requests.inc({ operation, outcome }, 0);
    const tokens = new Counter({
      name: 'tolk_llm_tokens_total',
      help: 'Tokens of language-model calls, by direction (input: prompts read; output: answers written), where the model counts them.',
      labelNames: ['direction'],
      registers,
    });
    for (const direction of ['input', 'output']) tokens.inc({ direction }, 0);
    const wait = new Histogram({
      name: 'tolk_llm_queue_wait_seconds',
      help: 'Time a language-model call waited for a slot before it ran.',
      buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    new Gauge({
      name: 'tolk_llm_queue_length',
      help: 'Language-model calls waiting for a slot now.',
      registers,
      collect() {
        this.set(sources.llmQueued());
      },
    });
    return {
      request: (operation, outcome) => requests.inc({ operation, outcome }),
      tokens: (input, output) => {
        tokens.inc({ direction: 'input' }, input);
        tokens.inc({ direction: 'output' }, output);
      },
      waited: (seconds) => wait.observe(seconds),
    };
  }

  /** Wraps an engine so every successful call counts its input characters under the engine's name and the pair. */
  meter<E extends TranslationEngine>(engine: E): E {
    const characters = this.characters;
    // Built once, not on every property read: the proxy is on every translation's path.
    const translate: TranslationEngine['translate'] = async (pair, segments, options) => {
      const out = await engine.translate(pair, segments, options);
      characters.inc({ engine: engine.name, pair: `${pair.source}-${pair.target}` }, segments.reduce((n, s) => n + codePoints(s), 0));
      return out;
    };
    return new Proxy(engine, {
      get(target, prop, receiver) {
        if (prop === 'translate') return translate;
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  /** Where the exposition comes from instead of this registry: the primary's aggregate of every HTTP process. */
  private aggregate: (() => Promise<string>) | undefined;

  /** Several HTTP processes on one node: the exposition is theirs summed (gauges read from the store: their maximum). */
  exposeAggregate(aggregate: () => Promise<string>): void {
    this.aggregate = aggregate;
  }

  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await (this.aggregate?.() ?? this.registry.metrics()) };
  }
}
