// The listener of TOLK_METRICS_PORT: GET /metrics alone, without a key (the single process's metrics, or the primary's
// aggregate of several HTTP processes).
import { createServer, type Server } from 'node:http';
import type { Logger } from '../lib/logger.js';

/** Metrics on a listener of their own (no key: bind TOLK_HOST to an address only the scraper reaches). */
export async function listenMetrics(
  port: number,
  host: string,
  exposition: () => Promise<{ contentType: string; body: string }>,
  logger: Logger,
): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: only GET /metrics here\n');
      return;
    }
    exposition().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      (err: unknown) => {
        logger.error({ err }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
