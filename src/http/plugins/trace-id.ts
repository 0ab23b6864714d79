// Every response carries X-Trace-ID (the request id that also tags every log line of the request).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

async function traceId(app: FastifyInstance): Promise<void> {
  // Callback style: an async hook costs a promise on every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-trace-id', request.id);
    done();
  });
}

export const traceIdPlugin = fp(traceId, { name: 'tolk-trace-id' });
