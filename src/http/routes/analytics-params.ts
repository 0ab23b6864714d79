// Query parameters of the analytics endpoints: UTC dates (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS), the 366-day cap, and
// the choice parameters with the reference's exact messages.
import { invalid } from '../../lib/errors.js';
import { DAY_MS, type AnalyticsRange } from '../../admin/analytics-service.js';

export const MAX_RANGE_DAYS = 366;

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})Z?)?$/;

function single(query: Record<string, unknown>, name: string): string | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw invalid(`Value for '${name}' not supported. Send the parameter once.`);
  return raw;
}

/** Parses one date parameter as UTC; rejects impossible dates such as 2025-02-30. */
export function parseDate(query: Record<string, unknown>, name: string): number {
  const raw = single(query, name);
  if (raw === undefined || raw.trim() === '') throw invalid(`Parameter '${name}' not specified`);
  const m = DATE.exec(raw.trim());
  const bad = () =>
    invalid(`Value for '${name}' not supported. Use an ISO 8601 date (YYYY-MM-DD) or UTC date and time (YYYY-MM-DDTHH:MM:SS).`);
  if (!m) throw bad();
  const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1).map((v) => v ?? '0') as string[];
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const back = new Date(ms);
  if (
    Number.isNaN(ms) ||
    back.getUTCFullYear() !== Number(y) ||
    back.getUTCMonth() !== Number(mo) - 1 ||
    back.getUTCDate() !== Number(d) ||
    back.getUTCHours() !== Number(h) ||
    back.getUTCMinutes() !== Number(mi) ||
    back.getUTCSeconds() !== Number(s) ||
    ms < 0
  ) {
    throw bad();
  }
  return ms;
}

/** start_date (inclusive) to end_date (exclusive), at most 366 days apart. */
export function parseAnalyticsRange(query: Record<string, unknown>): AnalyticsRange {
  const from = parseDate(query, 'start_date');
  const to = parseDate(query, 'end_date');
  if (to <= from) throw invalid('Bad request. Reason: end_date must be after start_date');
  if (to - from > MAX_RANGE_DAYS * DAY_MS) throw invalid(`Bad request. Reason: Date range cannot exceed ${MAX_RANGE_DAYS} days`);
  return { from, to };
}

/** A choice parameter; absent = ''. The message lists the allowed values as the reference does. */
export function parseChoice<T extends string>(query: Record<string, unknown>, name: string, allowed: readonly T[]): T {
  const raw = query[name];
  const value = raw === undefined ? '' : raw;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalid(`Value for '${name}' not supported. Allowed: ${allowed.map((a) => `'${a}'`).join(', ')}.`);
  }
  return value as T;
}

/** Page number (1 = first); pass a response's next_page to get the following page. */
export function parsePage(query: Record<string, unknown>): number {
  const raw = single(query, 'page');
  if (raw === undefined || raw === '') return 1;
  const n = /^\d{1,9}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw invalid("Value for 'page' not supported. Use a page number of 1 or more, as given in next_page.");
  }
  return n;
}
