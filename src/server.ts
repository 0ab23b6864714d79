// Runs the API: builds services and app, listens on the paid and free ports, and closes gracefully on signals.
import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp, MAX_HEADER_BYTES, MAX_URI_LENGTH, serverTimeouts } from './app.js';
import { clientErrorHandler } from './http/errors.js';
import type { Config } from './config.js';
import { buildServices } from './services.js';

export interface RunningServer {
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function startServer(config: Config): Promise<RunningServer> {
  // Buffered asynchronous stdout: lines go out in 8 KiB writes, or every 200 ms when fewer come, instead of one
  // write per request line (a write per line cost ~40 µs of every request: bench:translate profile).
  const destination = pino.destination({ dest: 1, sync: false, minLength: 8 * 1024 });
  const flushTimer = setInterval(() => destination.flush(), 200).unref();
  const logger = pino({ level: config.logLevel }, destination);
  const services = await buildServices(config, { logger });
  const app = await buildApp({ config, services, loggerInstance: logger });
  app.addHook('onClose', async () => services.close());
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
  logger.info({ baseUrl: config.baseUrl, freeBaseUrl: config.freeBaseUrl, database: config.databaseUrl.replace(/\/\/[^@]*@/, '//***@') }, 'Tolk is listening');
  let closing: Promise<void> | undefined;
  return {
    app,
    close() {
      closing ??= (async () => {
        if (freeServer) await new Promise<void>((r) => freeServer!.close(() => r()));
        await app.close();
        clearInterval(flushTimer);
        destination.flushSync();
      })();
      return closing;
    },
  };
}
