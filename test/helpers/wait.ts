// Waiting for a condition instead of for a fixed time. The deadline is generous on purpose: it only ends a test that
// hung, so a slow or loaded machine never fails a test that would have passed.
import { setTimeout as sleep } from 'node:timers/promises';
import { availableParallelism, loadavg } from 'node:os';

/**
 * How much slower than idle this machine runs now: its load per core when the suite starts, between 1 and 5. A suite
 * run beside other work (CI on a shared machine, a benchmark) gets proportionally longer deadlines.
 */
export const LOAD_FACTOR = Math.min(5, Math.max(1, (loadavg()[0] ?? 0) / availableParallelism()));

/** Long enough for any condition a test waits for on a loaded machine (scaled by the load at start). */
export const HUNG_TEST_MS = Math.round(60_000 * LOAD_FACTOR);

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/** Polls `probe` until it returns a truthy value and returns that; fails naming `what` once `timeoutMs` has passed. */
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs = HUNG_TEST_MS): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (let interval = 5; ; interval = Math.min(interval * 2, 100)) {
    const value = await probe();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(interval);
  }
}

/**
 * Awaits an event-driven promise with the hung-test deadline. Its timer also keeps the process alive while the code
 * under test only has unref'd timers pending (an idle timeout, say).
 */
export async function withDeadline<T>(what: string, promise: Promise<T>, timeoutMs = HUNG_TEST_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
