// URLs Tolk hands out that work without the API key: the signature in their query is the permission (UrlSigner).
import type { FastifyRequest } from 'fastify';
import { forbidden } from '../lib/errors.js';
import type { UrlSigner } from '../lib/url-signer.js';
import { publicOrigin } from './public-origin.js';
import { queryValue } from './query.js';

/** The absolute URL of `path` (already percent-encoded) signed until `expiresAt`, with `query` before the signature. */
export function signedUrl(signer: UrlSigner, request: FastifyRequest, path: string, expiresAt: number, query = ''): string {
  return `${publicOrigin(request)}${path}?${query ? `${query}&` : ''}${signer.sign(path, expiresAt)}`;
}

/** 403 unless the request's path carries a valid, unexpired signature. */
export function assertSigned(signer: UrlSigner, request: FastifyRequest): void {
  const query = request.query as Record<string, unknown>;
  const path = request.url.split('?')[0]!;
  const check = signer.verify(path, queryValue(query, 'expires'), queryValue(query, 'signature'), Date.now());
  if (check === 'expired') throw forbidden('This URL has expired.');
  if (check !== 'ok') throw forbidden('This URL is not valid: its signature does not match.');
}
