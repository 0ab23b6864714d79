// Composition of the services: built once per process (or per test), shared by the HTTP layer and the CLI.
import type { Config } from './config.js';
import { AccountsService } from './accounts/accounts-service.js';
import { UsageService } from './accounts/usage-service.js';
import { AdminRepository } from './store/admin-repository.js';
import { DeveloperKeysService } from './admin/developer-keys-service.js';
import { AnalyticsService } from './admin/analytics-service.js';
import { Store } from './store/store.js';
import { ApertiumEngine } from './engines/apertium/index.js';
import { BergamotEngine } from './engines/bergamot/index.js';
import { LlmEngine, isTextImprover, type TextImprover } from './engines/llm/index.js';
import { Hunspell } from './write/hunspell.js';
import { WriteService } from './write/write-service.js';
import { EngineError, type TranslationEngine } from './engines/engine.js';
import { EngineRouter } from './translate/engine-router.js';
import { TranslateService, type PairRouter, type SourceDetector } from './translate/translate-service.js';
import { DocumentService } from './documents/document-service.js';
import { join } from 'node:path';
import { EldLanguageDetector, type LanguageDetector } from './detect/language-detector.js';
import { ServiceError } from './lib/errors.js';
import { silentLogger, type Logger } from './lib/logger.js';
import { DEFAULT_TARGET_VARIANT, baseLang } from './translate/languages.js';
import { UrlSigner } from './lib/url-signer.js';
import { buildCustomization, type Customization } from './customization/index.js';
import { buildVoiceService, SpokenTermsService, type VoiceService } from './voice/index.js';
import { SpokenTermsRepository } from './store/spoken-terms-repository.js';
import { HealthService } from './ops/health-service.js';
import { Metrics } from './ops/metrics.js';

export interface LanguageCatalogue {
  sources: string[];
  targets: { code: string; formality: boolean }[];
}

export interface Services {
  store: Store;
  accounts: AccountsService;
  usage: UsageService;
  /** Administration: developer keys and usage analytics (admin key required). */
  adminKeys: DeveloperKeysService;
  analytics: AnalyticsService;
  router: EngineRouter;
  detector: LanguageDetector;
  translate: TranslateService;
  /** Document translation: uploads, the job queue and its workers, downloads (issue 7). */
  documents: DocumentService;
  /** Glossaries, style rules and translation memories (issue 6). */
  glossaries: Customization['glossaries'];
  styleRules: Customization['styleRules'];
  memories: Customization['memories'];
  customization: Customization['customization'];
  /** Text improvement (/v2/write/rephrase, /v2/write/correct). */
  write: WriteService;
  /** Voice: realtime transcription, translation and translated speech sessions (issue 9). */
  voice: VoiceService;
  /** Spoken terms collections (/v3/spoken-terms), used by voice sessions. */
  spokenTerms: SpokenTermsService;
  /** Signs the upload and download URLs of jobs, which work without the API key. */
  urlSigner: UrlSigner;
  /** Liveness/readiness for /health (issue 23). */
  health: HealthService;
  /** Prometheus metrics for /metrics (issue 23). */
  metrics: Metrics;
  /** Languages the engines can translate from/to (pivots included), computed once after start. */
  languages(): LanguageCatalogue;
  /** Source languages the detector can recognise (for the auto_detection feature). */
  detectableSources: ReadonlySet<string>;
  close(options?: { dropSchema?: boolean }): Promise<void>;
}

export interface BuildServicesOptions {
  logger?: Logger;
  /** Start translation engines (the CLI's account commands do not need them). */
  engines?: boolean;
  /** Engines to use instead of the configured ones (tests). */
  engineOverride?: TranslationEngine[];
  pgSchema?: string;
  now?: () => number;
}

/** Maps engine failures to API errors: a timeout is 504, a full queue 529, anything else 500. */
function engineErrorToServiceError(err: unknown): unknown {
  if (!(err instanceof EngineError)) return err;
  switch (err.kind) {
    case 'timeout':
      return new ServiceError('engine_timeout', 'The translation engine did not answer in time. Please try again.', {
        retryAfterSeconds: 1,
      });
    case 'overloaded':
      return new ServiceError('overloaded', 'Too many requests: the translation engines are busy. Please try again later.', {
        retryAfterSeconds: 1,
      });
    case 'unsupported_pair':
      return new ServiceError('invalid_request', err.message);
    case 'unavailable':
      return new ServiceError('not_ready', 'The language-model server is not reachable. Please try again later.', {
        retryAfterSeconds: 5,
      });
    default:
      return new ServiceError('internal', 'The translation engine failed. Please try again.');
  }
}

function buildCatalogue(router: EngineRouter): LanguageCatalogue {
  const pairs = router.pairs();
  const sources = [...new Set(pairs.map((p) => p.source))].sort();
  const targets = new Map<string, boolean>();
  for (const p of pairs) targets.set(p.target, (targets.get(p.target) ?? false) || p.formality);
  // A bare target with variants the engines lack is still requestable through its default variant name, and English
  // through both (EN-US routes to a plain English engine as EN-GB does; the clients ask for EN-US).
  for (const [base, variant] of Object.entries(DEFAULT_TARGET_VARIANT)) {
    for (const v of base === 'en' ? [variant, 'en-us'] : [variant]) {
      if (targets.has(base) && !targets.has(v)) targets.set(v, targets.get(base)!);
    }
  }
  return { sources, targets: [...targets].sort(([a], [b]) => a.localeCompare(b)).map(([code, formality]) => ({ code, formality })) };
}

export async function buildServices(config: Config, options: BuildServicesOptions = {}): Promise<Services> {
  const logger = options.logger ?? silentLogger;
  const store = await Store.open({
    url: config.databaseUrl,
    backgroundCheckpoints: true,
    ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
  });
  const accounts = new AccountsService(store, options.now ? { now: options.now } : {});
  const usage = new UsageService(store, accounts);
  const adminRepository = new AdminRepository(store);
  const adminKeys = new DeveloperKeysService(store, accounts, adminRepository);
  const analytics = new AnalyticsService(store, adminRepository);
  let pairsChanged = () => {};
  const engines: TranslationEngine[] =
    options.engineOverride ??
    (options.engines === false
      ? []
      : [
          // First: where a neural model and Apertium both serve a pair, the neural model wins (TOLK_ENGINE_ROUTES decides otherwise).
          ...(config.bergamot.workers === 0
            ? []
            : [
                new BergamotEngine({
                  modelsDir: config.modelsDir,
                  memoryBudgetMb: config.bergamot.memoryBudgetMb,
                  requestTimeoutMs: config.engineTimeoutMs,
                  ...(config.bergamot.workers ? { workers: config.bergamot.workers } : {}),
                  logger,
                }),
              ]),
          new ApertiumEngine({
            modesDir: config.apertium.modesDir,
            memoryBudgetMb: config.apertium.memoryBudgetMb,
            maxPipelinesPerPair: config.apertium.maxPipelinesPerPair,
            requestTimeoutMs: config.engineTimeoutMs,
            ...(config.apertium.pairs ? { pairs: config.apertium.pairs } : {}),
            ...(config.apertium.warmPairs ? { warmPairs: config.apertium.warmPairs } : {}),
            // A pair found broken on its first request leaves the routes and the language lists.
            onPairsChanged: () => pairsChanged(),
            logger,
          }),
          // After Apertium: by default each pair goes to the first engine that has it; TOLK_ENGINE_ROUTES decides otherwise.
          ...(config.llm
            ? [
                new LlmEngine({
                  url: config.llm.url,
                  model: config.llm.model,
                  ...(config.llm.apiKey ? { apiKey: config.llm.apiKey } : {}),
                  ...(config.llm.languages ? { languages: config.llm.languages } : {}),
                  timeoutMs: config.llm.timeoutMs,
                  concurrency: config.llm.concurrency,
                  logger,
                }),
              ]
            : []),
        ]);
  try {
    await Promise.all(engines.map((e) => e.start()));
  } catch (err) {
    await Promise.all(engines.map((e) => e.close().catch(() => {})));
    await store.close();
    throw err;
  }
  const apertium = engines.find((e): e is ApertiumEngine => e instanceof ApertiumEngine);
  let voiceSessionsOpen = () => 0;
  const metrics = new Metrics({ store, apertium: () => apertium?.stats() ?? [], voiceSessionsOpen: () => voiceSessionsOpen() });
  // The router sees metered engines: every engine call counts its characters by engine and pair.
  const router = new EngineRouter(engines.map((e) => metrics.meter(e)), { routing: config.engineRoutes, logger, defaultVariants: DEFAULT_TARGET_VARIANT });
  const detector = await EldLanguageDetector.create();
  let catalogue = buildCatalogue(router);
  const detectableSources = new Set<string>();
  const refreshLanguages = () => {
    detectableSources.clear();
    for (const s of catalogue.sources) if (detector.languages.has(s)) detectableSources.add(s);
  };
  // Pairs found working on first use (Apertium) or models installed/removed while running (Bergamot) change what
  // can be translated: routes and the language lists follow.
  pairsChanged = () => {
    router.refresh();
    catalogue = buildCatalogue(router);
    refreshLanguages();
  };
  for (const engine of engines) engine.onPairsChanged?.(() => pairsChanged());
  refreshLanguages();
  const hunspell = new Hunspell({ dictionaryDir: config.hunspellDir, processes: config.hunspellProcesses, logger, timeoutMs: config.engineTimeoutMs });
  const write = new WriteService({
    improver: engines.find((e) => isTextImprover(e)) as (TranslationEngine & TextImprover) | undefined,
    dictionaries: hunspell,
    detector: { detect: (text) => detector.detect(text).language },
    logger,
    mapEngineError: engineErrorToServiceError,
    timeoutMs: config.engineTimeoutMs,
  });

  const pairRouter: PairRouter = {
    canTranslate: (source, target) => router.resolve(source, target) !== null,
    supportsFormality: (source, target) => router.resolve(source, target)?.formality ?? false,
    capabilities: (source, target) => router.capabilities(source, target),
    translate: async (source, target, segments, opts) => {
      try {
        return await router.translate(source, target, segments, opts);
      } catch (err) {
        throw engineErrorToServiceError(err);
      }
    },
  };
  const canTranslate = (source: string, target: string) =>
    router.resolve(source, target) !== null || router.resolve(source, baseLang(target)) !== null;
  const sourceDetector: SourceDetector = {
    detectSource(text, target) {
      const outcome = detector.detect(text);
      const guess = outcome.rawLanguage;
      // The detector calibrates short texts itself, so /v3/detect/language and translation agree.
      if (outcome.status === 'success' || outcome.status === 'unsupported_language') return guess;
      if (outcome.status === 'no_language_detected' || guess === undefined) return undefined;
      // Too short or ambiguous to decide (single words): the configured default source wins when it can be
      // translated to the target, as short greetings and labels are mostly in it; else the detector's best guess.
      const fallback = config.defaultSourceLang;
      if (fallback && baseLang(target) !== fallback && canTranslate(fallback, target)) return fallback;
      return guess;
    },
  };
  const customization = await buildCustomization(store, { dataDir: config.dataDir, logger, ...(options.now ? { now: options.now } : {}) });
  const translate = new TranslateService({ router: pairRouter, detector: sourceDetector, logger, customization: customization.customization });
  const documents = new DocumentService({
    store,
    accounts,
    usage,
    translate,
    dir: join(config.dataDir, 'documents'),
    workers: options.engines === false ? 0 : config.documents.workers,
    retentionMs: config.documents.retentionHours * 3_600_000,
    formatTimeoutMs: config.documents.formatTimeoutMs,
    logger,
    ...(options.now ? { now: options.now } : {}),
  });
  await documents.start();
  const spokenTerms = new SpokenTermsService(new SpokenTermsRepository(store.db), options.now);
  const voice = buildVoiceService({
    usage,
    router: pairRouter,
    spokenTerms,
    customization: customization.customization,
    stt: { engine: config.sttEngine, modelsDir: config.modelsDir },
    logger,
  });
  voiceSessionsOpen = () => voice.sessions.size;
  const health = new HealthService({
    store,
    engines,
    warmPairs: () => (apertium ? apertium.stats().filter((p) => p.pipelines > 0).map((p) => p.pair).sort() : []),
  });
  return {
    ...customization,
    store,
    accounts,
    usage,
    adminKeys,
    analytics,
    router,
    detector,
    translate,
    documents,
    write,
    voice,
    spokenTerms,
    urlSigner: new UrlSigner(await store.serverSecret('url_signing')),
    health,
    metrics,
    languages: () => catalogue,
    detectableSources,
    async close(closeOptions = {}) {
      await documents.close();
      await customization.memories.idle();
      await Promise.all(engines.map((e) => e.close().catch((err) => logger.error({ err }, 'engine close failed'))));
      hunspell.close();
      await voice.close();
      await store.close(closeOptions);
    },
  };
}
