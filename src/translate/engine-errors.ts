// The one mapping of engine failures to API errors, for translation and text improvement alike.
import { EngineError } from '../engines/engine.js';
import { ServiceError } from '../lib/errors.js';

/**
 * Maps engine failures to API errors: a timeout is 504, a full queue 529, work that cannot start in time 429 with
 * the engine's estimate as Retry-After, anything else 500; other errors pass. `engine` names what failed in the
 * messages ("the language model" for text improvement).
 */
export function engineErrorToServiceError(err: unknown, engine = 'the translation engine'): unknown {
  const Engine = engine.charAt(0).toUpperCase() + engine.slice(1);
  if (!(err instanceof EngineError)) return err;
  switch (err.kind) {
    case 'timeout':
      return new ServiceError('engine_timeout', `${Engine} did not answer in time. Please try again.`, {
        retryAfterSeconds: 1,
      });
    case 'overloaded':
      return new ServiceError('overloaded', `Too many requests: ${engine} is busy. Please try again later.`, {
        retryAfterSeconds: 1,
      });
    case 'busy':
      // only the language model's queue says busy, whichever engine's request it was serving
      return new ServiceError('too_many_requests', 'Too many requests: the language model is busy. Please try again later.', {
        retryAfterSeconds: Math.max(1, Math.ceil((err.retryAfterMs ?? 1000) / 1000)),
      });
    case 'unsupported_pair':
      return new ServiceError('invalid_request', err.message);
    case 'unavailable':
      return new ServiceError('not_ready', 'The language-model server is not reachable. Please try again later.', {
        retryAfterSeconds: 5,
      });
    default:
      return new ServiceError('internal', `${Engine} failed. Please try again.`);
  }
}
