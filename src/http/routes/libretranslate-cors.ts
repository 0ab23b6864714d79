// Cross-origin access to LibreTranslate's routes (TOLK_LIBRETRANSLATE_CORS): LibreTranslate sends the same CORS headers
// on every answer of its API, so browser applications call it from their own pages.
import type { FastifyInstance } from 'fastify';

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
