// Authentication: `Authorization: Service-Auth-Key <key>` (alias `DeepL-Auth-Key`), legacy auth_key refused,
// admin-only routes, and the free/paid base URL check.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden } from '../../lib/errors.js';
import type { AccountsService, AuthContext } from '../../accounts/accounts-service.js';
import { SCOPES, scopeAllows, type Scope } from '../../admin/scopes.js';

export type RouteAuth = 'none' | 'key' | 'admin';

// Endpoint groups a developer key can be limited to (issue: administration); defined beside the admin service.
export { SCOPES, type Scope };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; default 'key'. */
    auth?: RouteAuth;
    /** The endpoint group a scoped developer key needs; unset = not scopable (admin, voice). */
    scope?: Scope;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

export interface AuthPluginOptions {
  accounts: AccountsService;
  /** Paid and free API endpoints; when the ports are equal and the hosts too, both plans share one endpoint. */
  endpoints: { port: number; freePort: number; baseUrl: string; freeBaseUrl: string };
}

const SCHEME = /^\s*(?:Service-Auth-Key|DeepL-Auth-Key)\s+(\S+)\s*$/i;

/** Which plan's endpoint a request reached: by local port when the two differ, else by Host header. */
function endpointPlanOf(opts: AuthPluginOptions['endpoints']): (request: FastifyRequest) => 'free' | 'pro' | 'any' {
  const paidHost = new URL(opts.baseUrl).host;
  const freeHost = new URL(opts.freeBaseUrl).host;
  if (paidHost === freeHost && opts.port === opts.freePort) return () => 'any';
  return (request) => {
    const localPort = request.socket?.localPort;
    if (opts.port !== opts.freePort && localPort !== undefined) {
      if (localPort === opts.freePort) return 'free';
      if (localPort === opts.port) return 'pro';
    }
    const host = (request.headers.host ?? '').toLowerCase();
    if (host === freeHost) return 'free';
    if (host === paidHost) return 'pro';
    return 'any';
  };
}

function hasLegacyAuthKey(request: FastifyRequest): boolean {
  const query = request.query as Record<string, unknown> | undefined;
  const body = request.body as Record<string, unknown> | undefined;
  return (
    (typeof query === 'object' && query !== null && 'auth_key' in query) ||
    (typeof body === 'object' && body !== null && !Buffer.isBuffer(body) && 'auth_key' in body)
  );
}

async function authPlugin(app: FastifyInstance, opts: AuthPluginOptions): Promise<void> {
  app.decorateRequest('auth', null);
  const endpointPlan = endpointPlanOf(opts.endpoints);
  // preValidation: the body is parsed by now, so a legacy auth_key in a form body is seen too.
  app.addHook('preValidation', async (request) => {
    const mode = request.routeOptions.config?.auth ?? 'key';
    if (mode === 'none' || request.is404) return;
    const header = request.headers.authorization;
    if (header === undefined) {
      if (hasLegacyAuthKey(request)) {
        throw forbidden(
          "Authentication via the 'auth_key' parameter is no longer supported. Send the key in the header 'Authorization: Service-Auth-Key <key>'.",
        );
      }
      throw forbidden("Authorization failed. Please supply a valid key in the header 'Authorization: Service-Auth-Key <key>'.");
    }
    const m = SCHEME.exec(header);
    if (!m) throw forbidden("Authorization failed. Use the header format 'Authorization: Service-Auth-Key <key>'.");
    const ctx = await opts.accounts.authenticate(m[1]!);
    if (!ctx) throw forbidden('Authorization failed. The key is unknown or has been deactivated.');
    const plan = endpointPlan(request);
    if (plan === 'pro' && ctx.account.plan === 'free') {
      throw forbidden(`Wrong endpoint. Free-plan keys must use ${opts.endpoints.freeBaseUrl}`);
    }
    if (plan === 'free' && ctx.account.plan === 'pro') {
      throw forbidden(`Wrong endpoint. Paid-plan keys must use ${opts.endpoints.baseUrl}`);
    }
    if (mode === 'admin' && ctx.key.kind !== 'admin') throw forbidden('Forbidden. This endpoint requires an admin key.');
    const scope = request.routeOptions.config?.scope;
    if (!scopeAllows(ctx.key.scopes, scope)) {
      throw forbidden(`Forbidden. This key is not allowed to use this endpoint: its scopes do not include '${scope}'.`);
    }
    request.auth = ctx;
  });
}

export const authenticationPlugin = fp(authPlugin, { name: 'tolk-auth' });

/** The authenticated context of a route that requires auth (the hook guarantees it is set). */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw forbidden('Authorization failed.');
  return request.auth;
}
