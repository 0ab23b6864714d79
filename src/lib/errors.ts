// Domain errors: services throw these with a stable snake_case code; only src/http/errors.ts maps codes to HTTP statuses.

export type ErrorCode =
  | 'invalid_request' // 400
  | 'feature_not_available' // 400: a parameter whose feature this server does not provide (yet)
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'request_timeout' // 408: the request did not arrive in time (HTTP parser)
  | 'conflict' // 409
  | 'payload_too_large' // 413
  | 'uri_too_long' // 414
  | 'unsupported_media_type' // 415
  | 'header_too_large' // 431: request head beyond the parser's limit
  | 'too_many_requests' // 429
  | 'quota_exceeded' // 456
  | 'internal' // 500
  | 'not_ready' // 503
  | 'engine_timeout' // 504
  | 'overloaded'; // 529

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: { retryAfterSeconds?: number; detail?: string },
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export const invalid = (message: string) => new ServiceError('invalid_request', message);
export const unsupportedValue = (name: string) => new ServiceError('invalid_request', `Value for '${name}' not supported.`);
export const forbidden = (message: string) => new ServiceError('forbidden', message);
export const notFound = (message: string) => new ServiceError('not_found', message);
