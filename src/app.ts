// buildApp: the composition root of the HTTP layer; plugins are registered in an explicit order.
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import type { Config } from './config.js';
import type { Services } from './services.js';
import { newTraceId } from './lib/ids.js';
import { ServiceError } from './lib/errors.js';
import { clientErrorHandler, errorHandler } from './http/errors.js';
import { traceIdPlugin } from './http/plugins/trace-id.js';
import { loggedRequest } from './http/log-redaction.js';
import { authenticationPlugin } from './http/plugins/auth.js';
import { socketsPlugin } from './http/plugins/sockets.js';
import { rateLimitStore } from './http/plugins/rate-limit-store.js';
import { translateRoutes } from './http/routes/translate.js';
import { languageRoutes } from './http/routes/languages.js';
import { usageRoutes } from './http/routes/usage.js';
import { detectRoutes } from './http/routes/detect.js';
import { documentRoutes } from './http/routes/documents.js';
import { writeRoutes } from './http/routes/write.js';
import { glossaryV2Routes } from './http/routes/glossaries-v2.js';
import { glossaryV3Routes } from './http/routes/glossaries-v3.js';
import { styleRuleRoutes } from './http/routes/style-rules.js';
import { translationMemoryRoutes } from './http/routes/translation-memories.js';
import { adminKeyRoutes } from './http/routes/admin-keys.js';
import { adminAnalyticsRoutes } from './http/routes/admin-analytics.js';
import { voiceRoutes } from './http/routes/voice.js';
import { spokenTermsRoutes } from './http/routes/spoken-terms.js';
import { healthRoutes } from './http/routes/health.js';
import { webRoutes } from './http/plugins/web.js';
import { libreTranslateRoutes } from './http/routes/libretranslate.js';
import { metricsPlugin } from './http/routes/metrics.js';
import { openapiPlugin } from './http/openapi.js';
import { buildValidator } from './http/schemas/validator.js';
import { parseFormFields } from './http/form-fields.js';

/** Longest request target accepted before 414 (the reference's gateways use 8 KiB). */
export const MAX_URI_LENGTH = 8 * 1024;
/** Largest request head (request line and headers) Node's parser accepts; beyond it the client error handler answers. */
export const MAX_HEADER_BYTES = 32 * 1024;
/** Default body limit for routes that set none. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * One log line per request: "request completed" (info) carries method, url (secret query values masked), status and
 * time with the trace id; Fastify's separate "incoming request" line is kept at debug level.
 */
class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    // Checked before building the fields: at the default level the line is never written.
    if (this.isLogDisabled(request) || (request.log as { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.('debug') === false) return;
    request.log.debug({ req: loggedRequest(request) }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const fields = { req: loggedRequest(request), res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}

/** Socket timeouts for a Node HTTP server (both listeners use them), from TOLK_*_TIMEOUT_MS. */
export function serverTimeouts(config: Config): { keepAliveTimeout: number; headersTimeout: number; requestTimeout: number } {
  return { keepAliveTimeout: config.timeouts.keepAliveMs, headersTimeout: config.timeouts.headersMs, requestTimeout: config.timeouts.requestMs };
}

export interface BuildAppOptions {
  config: Config;
  services: Services;
  /** Fastify logger options; false silences (tests). Ignored when loggerInstance is given. */
  logger?: FastifyServerOptions['logger'];
  /** A pino logger shared with the services, so every line has the same shape. */
  loggerInstance?: FastifyServerOptions['loggerInstance'];
}

export async function buildApp({ config, services, logger, loggerInstance }: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(loggerInstance ? { loggerInstance } : { logger: logger ?? { level: config.logLevel } }),
    genReqId: () => newTraceId(),
    logController: new RequestLogController({ requestIdLogLabel: 'trace_id' }),
    requestIdHeader: false,
    trustProxy: config.trustProxy,
    bodyLimit: DEFAULT_BODY_LIMIT,
    // Headers may be long (the URI check below answers 414 itself); beyond this Node answers 431.
    routerOptions: { maxParamLength: 500 },
    // During a graceful shutdown a request arriving on an open keep-alive connection is still answered (with
    // Connection: close), not refused with 503: the client sent it before it could know.
    return503OnClosing: false,
    // Fastify's own keep-alive default (72 s) held idle sockets long after a client had gone quiet.
    keepAliveTimeout: config.timeouts.keepAliveMs,
    requestTimeout: config.timeouts.requestMs,
    http: { maxHeaderSize: MAX_HEADER_BYTES, headersTimeout: config.timeouts.headersMs },
    clientErrorHandler: clientErrorHandler(MAX_URI_LENGTH),
    ajv: { customOptions: { allErrors: false, coerceTypes: false } },
    schemaController: { compilersFactory: { buildValidator } },
    // Errors Fastify raises before routing (a malformed percent-encoding in the path) skip the hooks: give them the
    // trace id and the API's error body here.
    frameworkErrors: (error, request, reply) => {
      void reply.header('x-trace-id', request.id);
      errorHandler(error, request, reply);
    },
  });

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ message: `Not found: ${request.method} ${request.url.split('?')[0]}`, code: 'not_found' });
  });

  await app.register(traceIdPlugin);
  await app.register(socketsPlugin);
  // Before every route (metrics included), so its onRoute hook sees them all: the document and app.registeredRoutes.
  await app.register(openapiPlugin, { baseUrl: config.baseUrl, freeBaseUrl: config.freeBaseUrl });
  await app.register(metricsPlugin, { services, route: config.metricsPort === undefined });
  // Bodies are JSON or form-encoded; anything else is 415 rather than a string body.
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', (request, _reply, done) => {
    done(request.url.length > MAX_URI_LENGTH ? new ServiceError('uri_too_long', 'URI too long.') : undefined);
  });
  // Form bodies: repeated keys (text=…&text=…) become arrays, as the reference expects; too many fields are a 400.
  await app.register(formbody, { parser: parseFormFields });
  await app.register(authenticationPlugin, {
    accounts: services.accounts,
    endpoints: { port: config.port, freePort: config.freePort, baseUrl: config.baseUrl, freeBaseUrl: config.freeBaseUrl },
  });
  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler',
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    // Counted once for the cluster (services.rateWindows); an unreachable counter lets requests through rather than
    // failing them all.
    store: rateLimitStore(services.rateWindows, app.log),
    skipOnError: true,
    keyGenerator: (request) => request.auth?.key.id ?? request.ip,
    errorResponseBuilder: (_request, context) =>
      new ServiceError('too_many_requests', 'Too many requests. Please wait and resend your request.', {
        retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
      }),
  });

  await app.register(translateRoutes, { services });
  await app.register(languageRoutes, { services });
  await app.register(usageRoutes, { services });
  await app.register(detectRoutes, { services });
  await app.register(documentRoutes, { services });
  await app.register(writeRoutes, { services });
  await app.register(glossaryV2Routes, { services });
  await app.register(glossaryV3Routes, { services });
  await app.register(styleRuleRoutes, { services });
  await app.register(translationMemoryRoutes, { services });
  await app.register(adminKeyRoutes, { services });
  await app.register(adminAnalyticsRoutes, { services });
  await app.register(voiceRoutes, { services });
  await app.register(spokenTermsRoutes, { services });
  await app.register(healthRoutes, { services });
  await app.register(webRoutes, { services });
  // Unversioned paths (/translate, /detect, /languages…) beside /v2 and /v3: an operator opts in.
  if (config.libreTranslate) await app.register(libreTranslateRoutes, { services, config });
  return app;
}
