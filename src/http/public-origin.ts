// The scheme and host clients reached this server on: the URLs Tolk hands out (voice streaming, signed downloads)
// are built from it. Behind a reverse proxy these come from X-Forwarded-* only when TOLK_TRUST_PROXY trusts it.
import type { FastifyRequest } from 'fastify';

export function publicOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
