// Prometheus metrics: every answered request is counted by route pattern; GET /metrics on the API (admin key) unless
// TOLK_METRICS_PORT gives them a listener of their own (see server.ts).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';

async function metrics(app: FastifyInstance, { services, route }: { services: Services; route: boolean }): Promise<void> {
  app.addHook('onResponse', async (request, reply) => {
    services.metrics.observeRequest(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000);
  });
  if (!route) return;
  app.get('/metrics', { config: { auth: 'admin' } }, async (_request, reply) => {
    const { contentType, body } = await services.metrics.exposition();
    return reply.type(contentType).send(body);
  });
}

export const metricsPlugin = fp(metrics, { name: 'tolk-metrics' });
