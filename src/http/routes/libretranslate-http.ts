// LibreTranslate's HTTP conventions for its routes: its few statuses and `{"error"}` bodies, and cross-origin access
// (TOLK_LIBRETRANSLATE_CORS: LibreTranslate sends the same CORS headers on every answer, so browser applications call
// it from their own pages).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../../lib/errors.js';
import { STATUS_BY_CODE, serviceErrorOf, setRetryAfter } from '../errors.js';

/** Tolk's statuses in LibreTranslate's few: a spent quota is 403 as Mastodon and Pleroma read it, overload 429. */
function libreStatus(code: ErrorCode): number {
  const status = STATUS_BY_CODE[code];
  if (code === 'quota_exceeded') return 403;
  if (status === 429 || status === 529) return 429;
  if (status === 403 || status === 404) return status;
  return status < 500 ? 400 : 500;
}

/** The error code each failed request was answered for, for the metrics (LibreTranslate's statuses fold several). */
export const failedWith = new WeakMap<FastifyRequest, string>();

export function libreErrorHandler(err: Error, request: FastifyRequest, reply: FastifyReply): void {
  const error = serviceErrorOf(err);
  failedWith.set(request, error?.code ?? 'internal');
  if (!error) {
    // Never echo internals; the trace id ties the log line to the response.
    request.log.error({ err }, 'unhandled error');
    void reply.status(500).send({ error: 'Internal server error' });
    return;
  }
  const status = STATUS_BY_CODE[error.code];
  if (status >= 500) request.log.warn({ err: error }, error.message);
  setRetryAfter(reply, status, error);
  const libre = libreStatus(error.code);
  void reply.status(libre).send({ error: libre === 429 ? `Slowdown: ${error.message}` : error.message });
}


/** LibreTranslate's paths, for the preflight answers. */
const LIBRE_PATHS = ['/translate', '/detect', '/languages', '/translate_file', '/download_file/:document_id/:filename', '/frontend/settings', '/spec', '/health', '/suggest'];

/**
 * Browsers may call these routes from any page, as LibreTranslate allows (its headers, a preflight answered 200), or
 * only from the configured origins. Errors carry the headers too, so a page can read why it was refused.
 */
export function allowCrossOrigin(app: FastifyInstance, allowed: '*' | string[]): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const origin = request.headers.origin;
    if (allowed === '*') reply.header('access-control-allow-origin', '*');
    else {
      reply.header('vary', 'Origin');
      if (origin === undefined || !allowed.includes(origin)) return payload;
      reply.header('access-control-allow-origin', origin);
    }
    reply
      .header('access-control-allow-headers', 'Authorization, Content-Type')
      .header('access-control-expose-headers', 'Authorization')
      .header('access-control-allow-methods', 'GET, POST')
      .header('access-control-allow-credentials', 'true')
      .header('access-control-max-age', String(20 * 24 * 3600));
    return payload;
  });
  for (const path of LIBRE_PATHS) {
    app.options(path, { config: { auth: 'none' }, schema: { hide: true } }, async (_request, reply) => reply.status(200).header('allow', 'GET, POST, OPTIONS').send());
  }
}
