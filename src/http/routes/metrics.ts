// Prometheus metrics: every answered request is counted by route pattern; GET /metrics on the API (admin key) unless
// TOLK_METRICS_PORT gives them a listener of their own (see server.ts).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { errorResponses } from '../schemas/common.js';

const METRICS_RESPONSE = {
  description: 'The metrics in the Prometheus text format.',
  content: { 'text/plain': { schema: { type: 'string' } } },
};

async function metrics(app: FastifyInstance, { services, route }: { services: Services; route: boolean }): Promise<void> {
  app.addHook('onResponse', (request, reply, done) => {
    services.metrics.observeRequest(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  if (!route) return;
  app.get('/metrics', { config: { auth: 'admin' }, schema: { response: { 200: METRICS_RESPONSE, ...errorResponses } } }, async (_request, reply) => {
    const { contentType, body } = await services.metrics.exposition();
    return reply.type(contentType).send(body);
  });
}

export const metricsPlugin = fp(metrics, { name: 'tolk-metrics' });
