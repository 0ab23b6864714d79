// The one error registry: domain error codes → HTTP statuses, and Fastify's own errors → the API's error bodies.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, invalid, unsupportedValue, type ErrorCode } from '../lib/errors.js';
import { newTraceId } from '../lib/ids.js';

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  invalid_request: 400,
  feature_not_available: 400,
  forbidden: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  header_too_large: 431,
  too_many_requests: 429,
  quota_exceeded: 456,
  internal: 500,
  not_ready: 503,
  engine_timeout: 504,
  overloaded: 529,
};

const RETRYABLE_DEFAULT_AFTER_S = 1;

export interface ErrorBody {
  message: string;
  code?: string;
  detail?: string;
}

/**
 * A route schema's failure worded as the hand-written parsers word theirs, naming the parameter: a missing one is
 * "Parameter 'x' not specified", a wrong one "Value for 'x' not supported." (schemas whose parser words it otherwise
 * only document; see schemas/validator.ts).
 */
function validationError(err: FastifyError): ServiceError {
  const first = err.validation?.[0];
  const missing = (first?.params as { missingProperty?: unknown } | undefined)?.missingProperty;
  if (typeof missing === 'string') return invalid(`Parameter '${missing}' not specified`);
  const name = first?.instancePath.split('/')[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
  return name ? unsupportedValue(name) : invalid(`Bad request. ${err.message}`);
}

/** Maps Fastify's framework errors (body parsing, limits, schema validation) to domain errors. */
function fromFastifyError(err: FastifyError): ServiceError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ServiceError('payload_too_large', 'Request body too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ServiceError('unsupported_media_type', 'Unsupported Content-Type.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new ServiceError('invalid_request', 'Bad request. The request body could not be read.');
    case 'FST_ERR_BAD_URL':
      return new ServiceError('invalid_request', 'Bad request. The URL path is not validly percent-encoded.');
    case 'FST_ERR_VALIDATION':
      return validationError(err);
  }
  if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) {
    return new ServiceError('invalid_request', 'Bad request. The JSON body could not be parsed.');
  }
  if (err.statusCode === 413) return new ServiceError('payload_too_large', 'Request body too large.');
  if (err.statusCode === 415) return new ServiceError('unsupported_media_type', 'Unsupported Content-Type.');
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return new ServiceError('invalid_request', `Bad request. ${err.message}`);
  }
  return undefined;
}

/** Any error a route or hook raised as the domain error it stands for; undefined for internal failures (500). */
export function serviceErrorOf(err: FastifyError | ServiceError | Error): ServiceError | undefined {
  return err instanceof ServiceError ? err : fromFastifyError(err as FastifyError);
}

/** Sets Retry-After on the statuses a client should retry after a pause. */
export function setRetryAfter(reply: FastifyReply, status: number, error: ServiceError): void {
  if (status === 429 || status === 529 || status === 503 || status === 504) {
    reply.header('retry-after', String(error.details?.retryAfterSeconds ?? RETRYABLE_DEFAULT_AFTER_S));
  }
}

export function errorHandler(err: FastifyError | ServiceError | Error, request: FastifyRequest, reply: FastifyReply): void {
  const serviceError = serviceErrorOf(err);
  if (!serviceError) {
    // Never echo internals on a 5xx; the trace id ties the log line to the response.
    request.log.error({ err }, 'unhandled error');
    void reply.status(500).send({ message: 'Internal server error', code: 'internal' } satisfies ErrorBody);
    return;
  }
  const status = STATUS_BY_CODE[serviceError.code];
  if (status >= 500) request.log.warn({ err: serviceError }, serviceError.message);
  setRetryAfter(reply, status, serviceError);
  const body: ErrorBody = { message: serviceError.message, code: serviceError.code };
  if (serviceError.details?.detail) body.detail = serviceError.details.detail;
  void reply.status(status).send(body);
}

/**
 * Requests Node's HTTP parser rejects before Fastify sees them (a head over the size limit, a malformed request line, a
 * timeout) get the API's error body and a trace id too, written straight to the socket, which is then closed.
 */
export function clientErrorHandler(maxUriLength: number) {
  return (err: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    let error: ServiceError;
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') error = new ServiceError('request_timeout', 'Request timeout.');
    else if (err.code === 'HPE_HEADER_OVERFLOW') {
      // the request line alone over the URI limit is a long URI, not long headers
      const head = Buffer.isBuffer(err.rawPacket) ? err.rawPacket.subarray(0, maxUriLength + 64).toString('latin1') : '';
      const lineEnd = head.indexOf('\r\n');
      error =
        lineEnd === -1 || lineEnd > maxUriLength
          ? new ServiceError('uri_too_long', 'URI too long.')
          : new ServiceError('header_too_large', 'Request header fields too large.');
    } else error = new ServiceError('invalid_request', 'Bad request. The HTTP request could not be parsed.');
    const status = STATUS_BY_CODE[error.code];
    const body = JSON.stringify({ message: error.message, code: error.code } satisfies ErrorBody);
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nX-Trace-ID: ${newTraceId()}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
