// @fastify/rate-limit's store interface over the services' rate windows (memory, database or Redis), so the limit is
// counted once for every node of a cluster.
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../../services.js';

type WindowHit = Awaited<ReturnType<Services['rateWindows']['hit']>>;
type IncrCallback = (err: Error | null, result?: { current: number; ttl: number }) => void;

/** How often a failing counter is logged at most (the limiter lets requests through meanwhile). */
const FAILURE_LOG_INTERVAL_MS = 10_000;

/** The store class @fastify/rate-limit instantiates, bound to one app's counter and logger. */
export function rateLimitStore(windows: Services['rateWindows'], log: FastifyBaseLogger) {
  let lastFailureLog = 0;
  return class SharedRateLimitStore {
    incr(bucket: string, cb: IncrCallback, timeWindow: number): void {
      const counted = (hit: WindowHit) => cb(null, { current: hit.count, ttl: hit.resetInMs });
      const failed = (err: Error) => {
        if (Date.now() - lastFailureLog > FAILURE_LOG_INTERVAL_MS) {
          lastFailureLog = Date.now();
          log.warn({ err, counter: windows.kind }, 'rate limit counter failed; requests pass unlimited meanwhile');
        }
        cb(err);
      };
      let hit: WindowHit | Promise<WindowHit>;
      try {
        hit = windows.hit(bucket, timeWindow);
      } catch (err) {
        return failed(err as Error);
      }
      if (hit instanceof Promise) hit.then(counted, failed);
      else counted(hit);
    }

    // Route-level limits would count in the same buckets; none are configured (health opts out entirely).
    child(): SharedRateLimitStore {
      return this;
    }
  };
}
