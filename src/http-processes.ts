// Several HTTP processes on one node (TOLK_HTTP_PROCESSES > 1), with node:cluster. The primary migrates the store
// before any process opens it, checkpoints the SQLite WAL, picks the ports, forks the processes (which share the
// listening sockets and run startServer each, with their share of the engines), restarts one that dies, serves the
// metrics of all of them aggregated, and on SIGTERM/SIGINT drains them all before it exits.
import cluster, { type Worker } from 'node:cluster';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import pino from 'pino';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { loadConfig, type Config } from './config.js';
import { Store } from './store/store.js';
import { DEFAULTS as APERTIUM_DEFAULTS } from './engines/apertium/engine-options.js';
import { defaultMemoryBudgetMb } from './engines/bergamot/index.js';
import { removeInstallLeftovers } from './models/model-paths.js';
import type { Metrics } from './ops/metrics.js';
import { listenMetrics } from './http/metrics-listener.js';

/**
 * One of several HTTP processes of a node (http-processes.ts): the primary serves TOLK_METRICS_PORT, checkpoints the
 * SQLite WAL and removes what interrupted model installs left, for all of them.
 */
export interface HttpProcessRole {
  /** This process's metrics, which the primary asks for to aggregate them. */
  answerMetrics(metrics: Metrics): void;
  /** The metrics of every HTTP process, aggregated by the primary (what /metrics answers). */
  aggregateMetrics(): Promise<string>;
}

type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

/** What the processes tell each other over the cluster's IPC channel. */
type Message =
  | { tolk: 'ready' }
  | { tolk: 'metrics-json'; id: number }
  | { tolk: 'metrics-text'; id: number }
  | { tolk: 'reply'; id: number; value?: unknown; error?: string };

const isMessage = (m: unknown): m is Message => typeof m === 'object' && m !== null && typeof (m as { tolk?: unknown }).tolk === 'string';

/** How long a process gets to answer the metrics question; a scrape fails rather than report part of the node. */
const METRICS_ANSWER_MS = 5_000;
/** A process that dies is replaced after this, doubled for each one that died within RESTART_STABLE_MS of its start. */
const RESTART_DELAY_MS = 500;
const RESTART_MAX_DELAY_MS = 30_000;
const RESTART_STABLE_MS = 10_000;
/** Beyond TOLK_SHUTDOWN_TIMEOUT_MS, how long the primary waits for its processes to close their engines and store. */
const CLOSE_MARGIN_MS = 15_000;

/** Questions sent over an IPC channel, each settled by the reply carrying its id. */
class Questions {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void; timer: NodeJS.Timeout }>();

  ask<T>(send: (m: Message) => void, question: (id: number) => Message): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`an HTTP process did not answer within ${METRICS_ANSWER_MS} ms`));
      }, METRICS_ANSWER_MS).unref();
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      send(question(id));
    });
  }

  settle(reply: Extract<Message, { tolk: 'reply' }>): void {
    const entry = this.pending.get(reply.id);
    if (!entry) return;
    this.pending.delete(reply.id);
    clearTimeout(entry.timer);
    if (reply.error !== undefined) entry.reject(new Error(reply.error));
    else entry.resolve(reply.value);
  }
}

function answer(send: (m: Message) => void, id: number, work: Promise<unknown>): void {
  work.then(
    (value) => send({ tolk: 'reply', id, value }),
    (err: unknown) => send({ tolk: 'reply', id, error: (err as Error).message ?? String(err) }),
  );
}

/**
 * One process's share of the engines: what one process would start, divided among them (pipelines and workers per
 * process rounded up, memory budgets divided), so the node as a whole stays near the single process's footprint.
 */
export function processShare(config: Config): Config {
  const n = config.httpProcesses;
  const share = (total: number) => Math.max(1, Math.ceil(total / n));
  return {
    ...config,
    apertium: {
      ...config.apertium,
      maxPipelinesPerPair: share(config.apertium.maxPipelinesPerPair ?? APERTIUM_DEFAULTS.maxPipelinesPerPair),
      memoryBudgetMb: Math.max(256, Math.floor((config.apertium.memoryBudgetMb ?? APERTIUM_DEFAULTS.memoryBudgetMb) / n)),
    },
    bergamot: {
      ...config.bergamot,
      workers: config.bergamot.workers === 0 ? 0 : share(config.bergamot.workers ?? availableParallelism()),
      // never below what one base-memory direction needs (~530 MiB), or no process could load a model at all
      memoryBudgetMb: Math.max(1024, Math.floor((config.bergamot.memoryBudgetMb ?? defaultMemoryBudgetMb()) / n)),
    },
    documents: { ...config.documents, workers: config.documents.workers === 0 ? 0 : share(config.documents.workers) },
    hunspellProcesses: share(config.hunspellProcesses),
  };
}

/** In a forked HTTP process: its part in the node (metrics answered to and asked of the primary, readiness). */
export function httpProcessRole(): HttpProcessRole & { ready(): void } {
  const questions = new Questions();
  const send = (m: Message) => process.send?.(m);
  let metrics: Metrics | undefined;
  process.on('message', (m: unknown) => {
    if (!isMessage(m)) return;
    if (m.tolk === 'reply') questions.settle(m);
    else if (m.tolk === 'metrics-json') {
      answer(send, m.id, metrics ? metrics.registry.getMetricsAsJSON() : Promise.reject(new Error('HTTP process still starting')));
    }
  });
  return {
    answerMetrics: (m) => (metrics = m),
    aggregateMetrics: () => questions.ask<string>(send, (id) => ({ tolk: 'metrics-text', id })),
    ready: () => send({ tolk: 'ready' }),
  };
}

/** A port the kernel picks (TOLK_PORT=0), fixed here so that every process listens on the same one. */
async function pickPort(host: string): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, host, () => resolve());
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

/** Runs the primary of a node with several HTTP processes; returns once they all run (signals stop it). */
export async function runHttpProcesses(config: Config): Promise<void> {
  const logger = pino({ level: config.logLevel });
  const leftovers = await removeInstallLeftovers(config.modelsDir);
  if (leftovers.length > 0) logger.info({ removed: leftovers }, 'removed what interrupted model installs left');
  // Migrations run here, once, before any process opens the store. On SQLite the primary keeps its connection: its
  // thread checkpoints the WAL for every process (theirs only append), and, closed last, it removes the WAL.
  const store = await Store.open({ url: config.databaseUrl, backgroundCheckpoints: true });
  if (store.dialect === 'postgres') await store.close();
  const port = config.port === 0 ? await pickPort(config.host) : config.port;
  const freePort = config.freePort === config.port ? port : config.freePort === 0 ? await pickPort(config.host) : config.freePort;
  const env = { TOLK_PORT: String(port), TOLK_FREE_PORT: String(freePort) };

  const questions = new Questions();
  const workers = new Set<Worker>();
  const ready = new Set<Worker>();
  let stopping: Promise<void> | undefined;
  let restartDelay = RESTART_DELAY_MS;
  let startup: { resolve(): void; reject(err: Error): void } | undefined;
  const started = new Promise<void>((resolve, reject) => (startup = { resolve, reject }));

  /** Every process's metrics, summed (gauges read from the store: their maximum; see ops/metrics.ts). */
  const aggregate = async (): Promise<{ contentType: string; body: string }> => {
    const each = await Promise.all([...ready].map((w) => questions.ask<MetricsJson>((m) => w.send(m), (id) => ({ tolk: 'metrics-json', id }))));
    const registry = AggregatorRegistry.aggregate(each);
    return { contentType: registry.contentType, body: await registry.metrics() };
  };

  const fork = (): void => {
    const worker = cluster.fork(env);
    const forkedAt = Date.now();
    workers.add(worker);
    worker.on('message', (m: unknown) => {
      if (!isMessage(m)) return;
      if (m.tolk === 'reply') questions.settle(m);
      else if (m.tolk === 'metrics-text') answer((r) => worker.send(r), m.id, aggregate().then((a) => a.body));
      else if (m.tolk === 'ready') {
        ready.add(worker);
        if (ready.size === config.httpProcesses) startup?.resolve();
      }
    });
    worker.on('exit', (code, signal) => {
      const wasReady = ready.delete(worker);
      workers.delete(worker);
      if (stopping) return;
      // one that could not start (port taken, bad engine) has said why on stderr: the node does not start
      if (startup && !wasReady) {
        startup.reject(new Error(`an HTTP process could not start (exit code ${code ?? signal})`));
        return;
      }
      restartDelay = Date.now() - forkedAt < RESTART_STABLE_MS ? Math.min(RESTART_MAX_DELAY_MS, restartDelay * 2) : RESTART_DELAY_MS;
      logger.error({ httpProcess: worker.process.pid, code, signal, restartInMs: restartDelay }, 'HTTP process died; starting another');
      setTimeout(() => {
        if (!stopping) fork();
      }, restartDelay).unref();
    });
  };

  let metricsServer: Awaited<ReturnType<typeof listenMetrics>> | undefined;
  const stop = (reason: string, exitCode: number): Promise<void> =>
    (stopping ??= (async () => {
      logger.info({ reason, processes: workers.size }, 'shutting down');
      const exited = [...workers].map((w) => new Promise<number>((r) => (w.isDead() ? r(w.process.exitCode ?? 1) : w.once('exit', (code) => r(code ?? 1)))));
      // each process drains as a single one would (readiness 503, listeners closed, requests finished, jobs returned)
      for (const w of workers) w.process.kill('SIGTERM');
      const killAfter = setTimeout(() => {
        logger.warn('shutdown: killing HTTP processes still running');
        for (const w of workers) w.process.kill('SIGKILL');
      }, config.shutdownTimeoutMs + CLOSE_MARGIN_MS);
      const codes = await Promise.all(exited);
      clearTimeout(killAfter);
      if (metricsServer) await new Promise((r) => metricsServer!.close(r));
      if (store.dialect === 'sqlite') await store.close();
      logger.info('shut down');
      process.exit(exitCode || (codes.every((c) => c === 0) ? 0 : 1));
    })());
  process.on('SIGTERM', () => void stop('SIGTERM', 0));
  process.on('SIGINT', () => void stop('SIGINT', 0));

  for (let i = 0; i < config.httpProcesses; i++) fork();
  try {
    await started;
  } catch (err) {
    logger.error({ err }, 'Tolk did not start');
    await stop('start failed', 1);
    return;
  }
  startup = undefined;
  if (config.metricsPort !== undefined) {
    metricsServer = await listenMetrics(config.metricsPort, config.host, aggregate, logger);
  }
  const served = loadConfig({ ...process.env, ...env });
  logger.info(
    { baseUrl: served.baseUrl, freeBaseUrl: served.freeBaseUrl, processes: config.httpProcesses, database: config.databaseUrl.replace(/\/\/[^@]*@/, '//***@') },
    'Tolk is listening',
  );
}
