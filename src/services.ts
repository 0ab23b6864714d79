// Composition of the services: built once per process (or per test), shared by the HTTP layer and the CLI.
import type { Config } from './config.js';
import { AccountsService } from './accounts/accounts-service.js';
import { UsageService } from './accounts/usage-service.js';
import { DeveloperKeysService } from './admin/developer-keys-service.js';
import { AnalyticsService } from './admin/analytics-service.js';
import { Store } from './store/store.js';
import { ApertiumEngine } from './engines/apertium/index.js';
import { BergamotEngine } from './engines/bergamot/index.js';
import { LlmEngine, LocalLanguageModel, PostEditedEngine, isTextImprover, llmModelsDir, type PostEditCounts, type TextImprover } from './engines/llm/index.js';
import { Hunspell } from './write/hunspell.js';
import { WriteService } from './write/write-service.js';
import type { TranslationEngine } from './engines/engine.js';
import { EngineRouter } from './translate/engine-router.js';
import { TranslationCore } from './translate/translation-core.js';
import type { LanguageCatalogue } from './translate/language-catalogue.js';
import { DocumentFormats } from './documents/formats/index.js';
import { DocumentService, type DocumentServiceOptions } from './documents/document-service.js';
import { createDocumentStore } from './documents/document-files.js';
import { dirname, join } from 'node:path';
import { DETECTION_LANGUAGES, DETECTOR_LANGUAGES, type LanguageDetection } from './detect/language-detector.js';
import { hunspellLexicon, LexiconVote } from './detect/lexicon-vote.js';
import { MorphAnalysers } from './engines/apertium/morph-analysers.js';
import { WorkerLanguageDetector } from './detect/worker-language-detector.js';
import { silentLogger, type Logger } from './lib/logger.js';
import { DEFAULT_TARGET_VARIANT } from './translate/languages.js';
import { UrlSigner } from './lib/url-signer.js';
import { buildCustomization, memoryFileNaming, type Customization } from './customization/index.js';
import { DatabaseByteStore } from './store/byte-store.js';
import { DiskByteStore } from './store/disk-byte-store.js';
import { buildVoiceService, SpokenTermsService, type VoiceService } from './voice/index.js';
import { HealthService } from './ops/health-service.js';
import { Metrics } from './ops/metrics.js';
import { buildInfo } from './ops/build-info.js';
import { DatabaseRateWindows, MemoryRateWindows, RedisRateWindows, SqliteRateWindows, type RateWindows } from './store/rate-windows.js';

export type { LanguageCatalogue } from './translate/language-catalogue.js';

export interface Services {
  store: Store;
  accounts: AccountsService;
  usage: UsageService;
  /** Administration: developer keys and usage analytics (admin key required). */
  adminKeys: DeveloperKeysService;
  analytics: AnalyticsService;
  router: EngineRouter;
  detector: LanguageDetection;
  /** The translation core: text translation for routes, prepared translations for documents and voice. */
  translate: TranslationCore;
  /** Document translation: uploads, the job queue and its workers, downloads (issue 7). */
  documents: DocumentService;
  /** Glossaries, style rules and translation memories (issue 6). */
  glossaries: Customization['glossaries'];
  styleRules: Customization['styleRules'];
  memories: Customization['memories'];
  customization: Customization['customization'];
  /** Text improvement (/v2/write/rephrase, /v2/write/correct). */
  write: WriteService;
  /** The GGUF model on this machine (without TOLK_LLM_URL) and what became of its post-edits; undefined otherwise. */
  languageModel: { model: LocalLanguageModel; postEdits: PostEditCounts } | undefined;
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
  /** Where the per-key request rate is counted: Redis, the database, or memory (SQLite, one process). */
  rateWindows: RateWindows;
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
  /** Document queue timing: how long a status request waits for its job, how often idle workers poll (tests). */
  documents?: Pick<DocumentServiceOptions, 'statusWaitMs' | 'pollIntervalMs'>;
  /** SQLite: 'other-process' when another process of this node checkpoints the WAL (several HTTP processes). */
  walCheckpoints?: 'here' | 'other-process';
}

/**
 * Counts the rate limit once for the cluster: Redis when configured, else a PostgreSQL database all nodes share, else
 * the SQLite file when several HTTP processes serve this node, else memory (one process).
 */
async function rateWindowsFor(config: Config, store: Store, pgSchema: string | undefined): Promise<RateWindows> {
  // Schemas sharing a database (tests, tenants) keep their own counts in a shared Redis too.
  if (config.redisUrl) return RedisRateWindows.connect(config.redisUrl, { prefix: `tolk:rate:${pgSchema ? `${pgSchema}:` : ''}` });
  if (store.dialect === 'postgres') return new DatabaseRateWindows(store.db);
  return config.httpProcesses > 1 && store.connection.sqlite ? new SqliteRateWindows(store.connection.sqlite) : new MemoryRateWindows();
}

export async function buildServices(config: Config, options: BuildServicesOptions = {}): Promise<Services> {
  const logger = options.logger ?? silentLogger;
  const store = await Store.open({
    url: config.databaseUrl,
    backgroundCheckpoints: options.walCheckpoints === 'other-process' ? 'other-process' : true,
    ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
  });
  let rateWindows: RateWindows;
  try {
    rateWindows = await rateWindowsFor(config, store, options.pgSchema);
  } catch (err) {
    await store.close();
    throw err;
  }
  const repositories = store.repositories;
  const accounts = new AccountsService(repositories.accounts, store.changes, options.now ? { now: options.now } : {});
  const usage = new UsageService(repositories.usage, accounts);
  const adminKeys = new DeveloperKeysService(repositories.accounts, accounts, repositories.admin);
  const analytics = new AnalyticsService(repositories.accounts, repositories.admin);
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
                  requestTimeoutMs: config.engineTimeoutMs,
                  ...(config.bergamot.workers ? { workers: config.bergamot.workers } : {}),
                  ...(config.bergamot.memoryBudgetMb ? { memoryBudgetMb: config.bergamot.memoryBudgetMb } : {}),
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
  // Without a model server: a GGUF model installed on this machine, when there is one (found again when installed).
  const remoteImprover = engines.find((e) => isTextImprover(e)) as (TranslationEngine & TextImprover) | undefined;
  const localModel =
    remoteImprover || options.engines === false
      ? undefined
      : new LocalLanguageModel({
          dir: llmModelsDir(config.modelsDir),
          ...(config.localLlm.preferred ? { preferred: config.localLlm.preferred } : {}),
          memoryBudgetMb: config.localLlm.memoryBudgetMb,
          slots: config.localLlm.slots,
          ...(config.localLlm.threads !== undefined ? { threads: config.localLlm.threads } : {}),
          contextSize: config.localLlm.contextSize,
          timeoutMs: config.localLlm.timeoutMs,
          maxWaitMs: config.localLlm.queueWaitMs,
          logger,
        });
  const localEditor = localModel
    ? new LlmEngine({
        backend: localModel,
        offerPairs: false,
        ...(config.localLlm.languages ? { languages: config.localLlm.languages } : {}),
        // no FIFO queue in front: the local model's slots serve accounts in turn (and bound each account's queue)
        concurrency: Number.MAX_SAFE_INTEGER,
        // smaller batches than for a model server: prompt and answer share the context of one generation slot
        batchChars: 1200,
        logger,
      })
    : undefined;
  try {
    await Promise.all([...engines.map((e) => e.start()), localModel?.start()]);
  } catch (err) {
    await localModel?.close().catch(() => {});
    await Promise.all(engines.map((e) => e.close().catch(() => {})));
    await rateWindows.close();
    await store.close();
    throw err;
  }
  const apertium = engines.find((e): e is ApertiumEngine => e instanceof ApertiumEngine);
  let voiceSessionsOpen = () => 0;
  const bergamot = engines.find((e): e is BergamotEngine => e instanceof BergamotEngine);
  const metrics = new Metrics({
    pool: store.connection,
    jobs: store.repositories.jobStats,
    apertium: () => apertium?.stats() ?? [],
    bergamot: () => bergamot?.stats(),
    voiceSessionsOpen: () => voiceSessionsOpen(),
    llmQueued: () => languageModels.reduce((n, e) => n + e.queued(), 0),
    postEditsRefused: () => postEdits.refused,
    build: buildInfo(),
  });
  // the language-model engines (a model server's, the local model's editor) tell the metrics what each call did
  const languageModels = [...engines, localEditor].filter((e): e is LlmEngine => e instanceof LlmEngine);
  for (const engine of languageModels) engine.observe(metrics.languageModel);
  // The router sees metered engines: every engine call counts its characters by engine and pair.
  // With a local model, engines that cannot follow formality or custom instructions get them through a post-edit.
  const postEdits: PostEditCounts = { used: 0, refused: 0 };
  const routed = localEditor ? engines.map((e) => new PostEditedEngine(e, localEditor, postEdits, logger)) : engines;
  const router = new EngineRouter(routed.map((e) => metrics.meter(e)), { routing: config.engineRoutes, logger, defaultVariants: DEFAULT_TARGET_VARIANT });
  // The detector's thread holds ~40 MiB: by default it starts with the first detection (which waits ~1 s for it, the
  // event loop free meanwhile), so a server whose requests all name their source never pays it; `start` loads it here.
  const hunspell = new Hunspell({ dictionaryDir: config.hunspellDir, processes: config.hunspellProcesses, logger, timeoutMs: config.engineTimeoutMs });
  // short texts the detector is unsure of are decided by the installed dictionaries and analysers where they can
  const analysers = new MorphAnalysers({ apertiumDir: dirname(config.apertium.modesDir), timeoutMs: config.engineTimeoutMs });
  const lexicons = new LexiconVote([hunspellLexicon(hunspell), analysers], DETECTOR_LANGUAGES, new Set(DETECTION_LANGUAGES), config.engineTimeoutMs);
  const detector = new WorkerLanguageDetector({ lexicons });
  if (config.detectorLoad === 'start') await detector.preload();
  const now = options.now ?? Date.now;
  const urlSigningSecret = await repositories.serverSecrets.serverSecret('url_signing');
  const customization = await buildCustomization(repositories, {
    logger,
    // TOLK_DOCUMENT_STORE decides for translation-memory job files too: this node's disk or the database
    memoryFiles:
      config.documents.store === 'database'
        ? new DatabaseByteStore(store.db, now)
        : new DiskByteStore(join(config.dataDir, 'translation-memories'), memoryFileNaming),
    // the job files' keys derive from the server's own secret (HKDF with their own label, so no key is shared)
    memoryFileSecret: urlSigningSecret,
    leaseMs: config.documents.leaseMs,
    ...(options.now ? { now: options.now } : {}),
  });
  const translate = new TranslationCore({
    router,
    detector,
    usage,
    customization: customization.customization,
    defaultSourceLang: config.defaultSourceLang,
    logger,
  });
  // Pairs found working on first use (Apertium) or models installed/removed while running (Bergamot) change what
  // can be translated: routes and the language lists follow.
  pairsChanged = () => translate.languages.refresh();
  for (const engine of engines) engine.onPairsChanged?.(() => pairsChanged());
  // a model installed or removed turns formality on or off for the register targets
  localModel?.onChange(() => pairsChanged());
  const write = new WriteService({
    improver: remoteImprover ?? localEditor,
    dictionaries: hunspell,
    // A word the lexicons place in another language may be a typo of this one ("Helo" is Norwegian too): correction
    // does not refuse a text on the lexicons' word alone.
    detector: {
      detect: async (text) => {
        const outcome = await detector.detect(text);
        return outcome.decidedBy === 'lexicons' ? undefined : outcome.language;
      },
    },
    logger,
    usage,
    timeoutMs: config.engineTimeoutMs,
    onFallback: (kind, texts) => metrics.llmFallback(kind, texts),
  });

  const documents = new DocumentService({
    repository: repositories.documents,
    files: createDocumentStore(config.documents.store, store.db, repositories.serverSecrets, join(config.dataDir, 'documents'), now),
    keys: repositories.accounts,
    // names, limits and output types here; extraction and OCR run in the format threads, which build their own
    formats: new DocumentFormats(),
    accounts,
    usage,
    translate,
    workers: options.engines === false ? 0 : config.documents.workers,
    retentionMs: config.documents.retentionHours * 3_600_000,
    formatTimeoutMs: config.documents.formatTimeoutMs,
    formatMemoryMb: config.documents.formatMemoryMb,
    pixelLimits: config.documents.pixelLimits,
    archiveLimits: config.documents.archive,
    leaseMs: config.documents.leaseMs,
    onJobEnded: (outcome) => metrics.documentJobEnded(outcome),
    logger,
    ...(options.now ? { now: options.now } : {}),
    ...options.documents,
  });
  await documents.start();
  const spokenTerms = new SpokenTermsService(store.repositories.spokenTerms, options.now);
  const voice = buildVoiceService({
    usage,
    translation: translate,
    spokenTerms,
    stt: { engine: config.sttEngine, modelsDir: config.modelsDir, decoderIdleMs: config.sttDecoderIdleMs },
    sessionStore: { repository: store.repositories.voiceSessions, changes: store.changes },
    keyContext: (keyId) => accounts.contextForKey(keyId),
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
    languageModel: localModel ? { model: localModel, postEdits } : undefined,
    voice,
    spokenTerms,
    urlSigner: new UrlSigner(urlSigningSecret),
    health,
    metrics,
    rateWindows,
    languages: () => translate.languages.catalogue(),
    detectableSources: translate.languages.detectableSources,
    async close(closeOptions = {}) {
      await documents.close();
      await customization.memories.close();
      await Promise.all(engines.map((e) => e.close().catch((err) => logger.error({ err }, 'engine close failed'))));
      await localModel?.close().catch((err) => logger.error({ err }, 'language model close failed'));
      hunspell.close();
      analysers.close();
      detector.close();
      await voice.close();
      await rateWindows.close();
      await store.close(closeOptions);
    },
  };
}
