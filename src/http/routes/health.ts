// GET /health/live and /health/ready: for load balancers and orchestrators; no key, no rate limit, not logged per poll.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';

const Live = Type.Object({ status: Type.Literal('ok') });

const Ready = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
  reasons: Type.Array(Type.String()),
  database: Type.Object({ reachable: Type.Boolean(), pending_migrations: Type.Array(Type.String()) }),
  engines: Type.Array(Type.Object({ name: Type.String(), pairs: Type.Integer() })),
  warm_pairs: Type.Array(Type.String(), { description: 'Apertium pairs with a running pipeline; the others start on first use.' }),
});

// A poll a second would otherwise write a log line a second and count against the caller's address.
const POLL = { auth: 'none' as const, rateLimit: false as const };

export async function healthRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  app.get('/health/live', { config: POLL, logLevel: 'warn', schema: { response: { 200: Live } } }, async () => ({ status: 'ok' as const }));

  app.get('/health/ready', { config: POLL, logLevel: 'warn', schema: { response: { 200: Ready, 503: Ready } } }, async (_request, reply) => {
    const r = await services.health.readiness();
    return reply.status(r.ready ? 200 : 503).send({
      status: r.ready ? 'ready' : 'not_ready',
      reasons: r.reasons,
      database: { reachable: r.database.reachable, pending_migrations: r.database.pendingMigrations },
      engines: r.engines,
      warm_pairs: r.warmPairs,
    });
  });
}
