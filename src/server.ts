// Runs the API: builds services and app, listens on the paid and free ports, and shuts down gracefully on signals.
import { createServer, type Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp, MAX_HEADER_BYTES, MAX_URI_LENGTH, serverTimeouts } from './app.js';
import { clientErrorHandler } from './http/errors.js';
import type { Config } from './config.js';
import { buildServices } from './services.js';
import type { HttpProcessRole } from './http-processes.js';
import { listenMetrics } from './http/metrics-listener.js';
import { removeInstallLeftovers } from './models/model-paths.js';

/** Shutdown: how long the listeners keep accepting after the signal, and how long the last accepted get to deliver their request. */
const ACCEPT_GRACE_MS = 250;

/**
 * Waits `ms`, then until the event loop has polled for I/O once more: after a loop blocked past the timer, the timer
 * would otherwise run before the connections and requests that arrived meanwhile are taken.
 */
async function settle(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
  await new Promise((r) => setImmediate(r));
}

export interface RunningServer {
  app: FastifyInstance;
  /**
   * Graceful shutdown: readiness turns 503, both listeners stop accepting, document jobs are handed back to the queue,
   * requests in flight finish (cut after TOLK_SHUTDOWN_TIMEOUT_MS), then engines and the store close.
   */
  close(): Promise<void>;
}

export async function startServer(config: Config, role?: HttpProcessRole): Promise<RunningServer> {
  // Buffered asynchronous stdout: lines go out in 8 KiB writes, or every 200 ms when fewer come, instead of one
  // write per request line (a write per line cost ~40 µs of every request: bench:translate profile).
  const destination = pino.destination({ dest: 1, sync: false, minLength: 8 * 1024 });
  const flushTimer = setInterval(() => destination.flush(), 200).unref();
  const logger = pino({ level: config.logLevel }, destination);
  // What a killed `tolk models install` left (staging folders, partial downloads) goes before the engines scan.
  if (!role) {
    const leftovers = await removeInstallLeftovers(config.modelsDir);
    if (leftovers.length > 0) logger.info({ removed: leftovers }, 'removed what interrupted model installs left');
  }
  const services = await buildServices(config, { logger, ...(role ? { walCheckpoints: 'other-process' } : {}) });
  if (role) {
    role.answerMetrics(services.metrics);
    services.metrics.exposeAggregate(role.aggregateMetrics);
  }
  const app = await buildApp({ config, services, loggerInstance: logger });
  await app.listen({ port: config.port, host: config.host });
  // The free-plan API: a second listener on the same app; requests are told apart by local port.
  let freeServer: Server | undefined;
  if (config.freePort !== config.port) {
    freeServer = createServer({ maxHeaderSize: MAX_HEADER_BYTES, ...serverTimeouts(config) }, (req, res) => app.routing(req, res));
    freeServer.on('clientError', clientErrorHandler(MAX_URI_LENGTH));
    await new Promise<void>((resolve, reject) => {
      freeServer!.once('error', reject);
      freeServer!.listen(config.freePort, config.host, () => resolve());
    });
  }
  const metricsServer = config.metricsPort !== undefined && !role ? await listenMetrics(config.metricsPort, config.host, () => services.metrics.exposition(), logger) : undefined;
  // One of several HTTP processes: the primary says "Tolk is listening" once all of them are.
  if (role) logger.info('HTTP process listening');
  else logger.info({ baseUrl: config.baseUrl, freeBaseUrl: config.freeBaseUrl, database: config.databaseUrl.replace(/\/\/[^@]*@/, '//***@') }, 'Tolk is listening');
  let closing: Promise<void> | undefined;
  return {
    app,
    close() {
      closing ??= (async () => {
        const t0 = Date.now();
        services.health.drain();
        const servers = [app.server, ...(freeServer ? [freeServer] : [])];
        // Bounded: connections still busy after the grace period are cut (their requests fail, the rest is kept).
        const cut = setTimeout(() => {
          logger.warn({ afterMs: config.shutdownTimeoutMs }, 'shutdown: cutting connections still busy');
          for (const s of servers) s.closeAllConnections();
        }, config.shutdownTimeoutMs).unref();
        // Document and TMX jobs go back to the queue first (that also frees the event loop of their work).
        const jobsClosed = Promise.all([services.documents.close(), services.memories.close()]);
        // Connections the kernel has queued but Node not yet accepted would be reset when the listener closes; keep
        // accepting a moment (readiness already says 503, so balancers send nothing new), then stop, and leave the
        // last ones accepted a moment to have their request read: Node's http close() drops every connection without
        // a request in progress, which a fresh one still is.
        await settle(ACCEPT_GRACE_MS);
        for (const s of servers) NetServer.prototype.close.call(s);
        await settle(ACCEPT_GRACE_MS);
        logger.info({ connections: await Promise.all(servers.map((s) => new Promise((r) => s.getConnections((_e, n) => r(n))))) }, 'shutdown: listeners closed');
        // Idle keep-alive sockets close now, busy ones after their answer (Fastify answers requests arriving meanwhile
        // with Connection: close).
        await Promise.all([app.close(), ...(freeServer ? [new Promise<void>((r) => freeServer!.close(() => r()))] : []), jobsClosed]);
        clearTimeout(cut);
        if (metricsServer) await new Promise<void>((r) => metricsServer!.close(() => r()));
        // Voice connections were closed (1001) by app.close(); usage charges are flushed by the store's close.
        await services.close();
        logger.info({ ms: Date.now() - t0 }, 'shut down');
        clearInterval(flushTimer);
        destination.flushSync();
      })();
      return closing;
    },
  };
}
