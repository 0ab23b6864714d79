// Every response carries X-Trace-ID (the request id that also tags every log line of the request).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

async function traceId(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-trace-id', request.id);
  });
}

export const traceIdPlugin = fp(traceId, { name: 'tolk-trace-id' });
