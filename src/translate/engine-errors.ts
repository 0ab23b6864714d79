// The one mapping of engine failures to API errors, for translation and text improvement alike.
import { EngineError } from '../engines/engine.js';
import { ServiceError } from '../lib/errors.js';

/** Maps engine failures to API errors: a timeout is 504, a full queue 529, anything else 500; other errors pass. */
export function engineErrorToServiceError(err: unknown): unknown {
  if (!(err instanceof EngineError)) return err;
  switch (err.kind) {
    case 'timeout':
      return new ServiceError('engine_timeout', 'The translation engine did not answer in time. Please try again.', {
        retryAfterSeconds: 1,
      });
    case 'overloaded':
      return new ServiceError('overloaded', 'Too many requests: the translation engines are busy. Please try again later.', {
        retryAfterSeconds: 1,
      });
    case 'unsupported_pair':
      return new ServiceError('invalid_request', err.message);
    case 'unavailable':
      return new ServiceError('not_ready', 'The language-model server is not reachable. Please try again later.', {
        retryAfterSeconds: 5,
      });
    default:
      return new ServiceError('internal', 'The translation engine failed. Please try again.');
  }
}
