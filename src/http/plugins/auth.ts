// Authentication: `Authorization: Service-Auth-Key <key>` (alias `DeepL-Auth-Key`), legacy auth_key refused,
// admin-only routes, and the free/paid base URL check.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden, type ServiceError } from '../../lib/errors.js';
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
    /**
     * LibreTranslate's way: the key may also come as `api_key` in the query or the body, and then wins over the
     * header. A multipart body is read by the handler, so without a key in the header or query such a request reaches
     * it unauthenticated, and the handler calls `app.admitKey` with the body's key before doing anything.
     */
    apiKeyParam?: boolean;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyInstance {
    /** Authenticates `key` for `request` with every check of the hook (plan endpoint, admin, scope); throws 403. */
    admitKey(request: FastifyRequest, key: string | undefined): Promise<void>;
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

/** LibreTranslate's `api_key` from the query or a parsed body; undefined when absent or empty. */
function apiKeyParamOf(request: FastifyRequest): string | undefined {
  const query = request.query as Record<string, unknown> | undefined;
  const body = request.body as Record<string, unknown> | undefined;
  const fromQuery = typeof query === 'object' && query !== null ? query.api_key : undefined;
  const fromBody = typeof body === 'object' && body !== null && !Buffer.isBuffer(body) ? body.api_key : undefined;
  for (const v of [fromQuery, fromBody]) if (typeof v === 'string' && v !== '') return v;
  return undefined;
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
  /** The checks after the key is known: the endpoint's plan, admin-only routes, the key's scopes. */
  const admit = (request: FastifyRequest, mode: RouteAuth, ctx: AuthContext): ServiceError | undefined => {
    const plan = endpointPlan(request);
    if (plan === 'pro' && ctx.account.plan === 'free') return forbidden(`Wrong endpoint. Free-plan keys must use ${opts.endpoints.freeBaseUrl}`);
    if (plan === 'free' && ctx.account.plan === 'pro') return forbidden(`Wrong endpoint. Paid-plan keys must use ${opts.endpoints.baseUrl}`);
    if (mode === 'admin' && ctx.key.kind !== 'admin') return forbidden('Forbidden. This endpoint requires an admin key.');
    const scope = request.routeOptions.config?.scope;
    if (!scopeAllows(ctx.key.scopes, scope)) {
      return forbidden(`Forbidden. This key is not allowed to use this endpoint: its scopes do not include '${scope}'.`);
    }
    request.auth = ctx;
    return undefined;
  };
  const unknownKey = () => forbidden('Authorization failed. The key is unknown or has been deactivated.');
  const missingApiKey = () =>
    forbidden("Authorization failed. Please supply a valid key as 'api_key' or in the header 'Authorization: Service-Auth-Key <key>'.");
  const authenticate = (request: FastifyRequest, mode: RouteAuth, key: string, done: (err?: Error) => void) => {
    const cached = opts.accounts.cachedAuth(key);
    if (cached) return done(admit(request, mode, cached));
    opts.accounts.authenticate(key).then((ctx) => done(ctx ? admit(request, mode, ctx) : unknownKey()), done);
  };
  app.decorate('admitKey', (request: FastifyRequest, key: string | undefined) => {
    if (key === undefined || key === '') return Promise.reject(missingApiKey());
    return new Promise<void>((resolve, reject) => authenticate(request, 'key', key, (err) => (err ? reject(err) : resolve())));
  });
  // preValidation: the body is parsed by now, so a legacy auth_key in a form body is seen too. Callback style: a key
  // verified moments ago is admitted without a promise (the hook runs on every request).
  app.addHook('preValidation', (request, _reply, done) => {
    const mode = request.routeOptions.config?.auth ?? 'key';
    if (mode === 'none' || request.is404) return done();
    const header = request.headers.authorization;
    if (request.routeOptions.config?.apiKeyParam) {
      // an api_key given is what the client means (an Authorization header may be a proxy's own)
      const key = apiKeyParamOf(request);
      if (key !== undefined) return authenticate(request, mode, key, done);
      if (header === undefined) {
        // a multipart body's api_key is read by the handler (admitKey)
        const multipart = String(request.headers['content-type'] ?? '').trimStart().toLowerCase().startsWith('multipart/');
        return done(multipart ? undefined : missingApiKey());
      }
    }
    if (header === undefined) {
      if (hasLegacyAuthKey(request)) {
        return done(
          forbidden(
            "Authentication via the 'auth_key' parameter is no longer supported. Send the key in the header 'Authorization: Service-Auth-Key <key>'.",
          ),
        );
      }
      return done(forbidden("Authorization failed. Please supply a valid key in the header 'Authorization: Service-Auth-Key <key>'."));
    }
    const m = SCHEME.exec(header);
    if (!m) return done(forbidden("Authorization failed. Use the header format 'Authorization: Service-Auth-Key <key>'."));
    authenticate(request, mode, m[1]!, done);
  });
}

export const authenticationPlugin = fp(authPlugin, { name: 'tolk-auth' });

/** The authenticated context of a route that requires auth (the hook guarantees it is set). */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw forbidden('Authorization failed.');
  return request.auth;
}
