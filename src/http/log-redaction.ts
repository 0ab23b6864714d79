// What a request log line may say about the request: its URL with secret-bearing query values masked (a key sent
// the deprecated way, `?auth_key=…`, a signed URL's signature, a document key), and never its headers.
import type { FastifyRequest } from 'fastify';

/** Query parameter names whose values are secrets; identifiers (`key_id`, `glossary_id`) are not. */
const SECRET_NAME = /(?:^|[_-])(?:auth|key|token|secret|signature|password|passwd|credentials?|api[_-]?key)(?:$|[_-])/i;
const IDENTIFIER = /[_-]id$/i;

export const REDACTED = '[redacted]';

export function isSecretParameter(name: string): boolean {
  return SECRET_NAME.test(name) && !IDENTIFIER.test(name);
}

/** The URL with the value of every secret-bearing query parameter replaced (linear in the URL's length). */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const parts = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    let name = rawName;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch {
      // an undecodable name is judged as written
    }
    return eq !== -1 && isSecretParameter(name) ? `${rawName}=${REDACTED}` : pair;
  });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

/** The request as Fastify's `req` log serializer reads it, minus anything secret. */
export function loggedRequest(request: FastifyRequest): object {
  return {
    method: request.method,
    url: redactUrl(request.url),
    headers: { 'accept-version': request.headers['accept-version'] },
    host: request.host,
    ip: request.ip,
    socket: request.socket,
  };
}
