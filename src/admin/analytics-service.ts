// Usage analytics for an organization's admin: totals per range, per key, per key and day, and per reporting tag,
// read from the ledger's daily rollups. Keys are shown masked (first and last four characters).
import type { Account } from '../accounts/accounts-service.js';
import type { AdminRepository, UsageSumRow } from '../store/repositories/admin-repository.js';
import type { AccountsRepository } from '../store/repositories/accounts-repository.js';
import { DAY_MS } from '../store/schema.js';

export const GROUP_BY_VALUES = ['', 'key', 'key_and_day'] as const;
export const AGGREGATE_BY_VALUES = ['', 'period', 'day'] as const;
export type GroupBy = (typeof GROUP_BY_VALUES)[number];
export type AggregateBy = Exclude<(typeof AGGREGATE_BY_VALUES)[number], ''>;
/** Custom-tag report entries per page. */
export const CUSTOM_TAG_PAGE_SIZE = 100;

/** A half-open range [from, to) in epoch milliseconds. */
export interface AnalyticsRange {
  from: number;
  to: number;
}

/** Billed units per product. */
export interface UsageBreakdown {
  textTranslationCharacters: number;
  documentTranslationCharacters: number;
  textImprovementCharacters: number;
  speechToTextMs: number;
}

export interface KeyUsage {
  /** Masked (see maskKey); `****` for a key that no longer exists. */
  maskedKey: string;
  label: string;
  /** The UTC day, when broken down by day. */
  day?: Date;
  usage: UsageBreakdown;
}

export interface UsageReport {
  range: AnalyticsRange;
  groupBy: GroupBy;
  total: UsageBreakdown;
  /** Per key (and day) when grouped, keys in creation order. */
  keys?: KeyUsage[];
}

export interface TagUsage {
  tag: string;
  day?: Date;
  usage: UsageBreakdown;
}

export interface CustomTagReport {
  range: AnalyticsRange;
  aggregateBy: AggregateBy;
  usage: TagUsage[];
  /** The page after this one, or null on the last. */
  nextPage: number | null;
}

export interface AnalyticsServiceOptions {
  customTagPageSize?: number;
}

/** "abcd****wxyz": the first and last four characters of the secret, as stored for display. */
export function maskKey(keyStart: string, keyEnd: string): string {
  return `${keyStart}****${keyEnd}`;
}

export { DAY_MS };

const dayOf = (day: number | null) => (day === null ? {} : { day: new Date(day * DAY_MS) });

function breakdown(rows: readonly UsageSumRow[]): UsageBreakdown {
  const out: UsageBreakdown = { textTranslationCharacters: 0, documentTranslationCharacters: 0, textImprovementCharacters: 0, speechToTextMs: 0 };
  for (const r of rows) {
    out.textTranslationCharacters += r.text;
    out.documentTranslationCharacters += r.document;
    out.textImprovementCharacters += r.improvement;
    out.speechToTextMs += r.speechMs;
  }
  return out;
}

export class AnalyticsService {
  private readonly pageSize: number;

  constructor(
    private readonly keys: AccountsRepository,
    private readonly repo: AdminRepository,
    options: AnalyticsServiceOptions = {},
  ) {
    this.pageSize = options.customTagPageSize ?? CUSTOM_TAG_PAGE_SIZE;
  }

  /** Totals for the range, optionally per key or per key and UTC day. */
  async usageReport(account: Account, range: AnalyticsRange, groupBy: GroupBy): Promise<UsageReport> {
    const byDay = groupBy === 'key_and_day';
    const rows = await this.repo.usageSums(account.id, 'key', range.from, range.to, byDay);
    const report: UsageReport = { range, groupBy, total: breakdown(rows) };
    if (groupBy) {
      // Every key of the account (admin keys too: they can translate), in creation order.
      const keys = await this.keys.listKeys(account.id);
      const order = new Map(keys.map((k, i) => [k.id, i]));
      const byId = new Map(keys.map((k) => [k.id, k]));
      const sorted = rows.sort(
        (a, b) => (order.get(a.subject) ?? keys.length) - (order.get(b.subject) ?? keys.length) || (a.day ?? 0) - (b.day ?? 0),
      );
      report.keys = sorted.map((g) => {
        const key = byId.get(g.subject);
        return {
          maskedKey: key ? maskKey(key.key_start, key.key_end) : '****',
          label: key?.label ?? '',
          ...(byDay ? dayOf(g.day) : {}),
          usage: breakdown([g]),
        };
      });
    }
    return report;
  }

  /** Tagged usage per tag (and UTC day), sorted by tag then day; `page` from 1. */
  async customTagReport(account: Account, range: AnalyticsRange, aggregateBy: AggregateBy, page: number): Promise<CustomTagReport> {
    const byDay = aggregateBy === 'day';
    const rows = await this.repo.usageSums(account.id, 'tag', range.from, range.to, byDay);
    const groups = rows.sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0) || (a.day ?? 0) - (b.day ?? 0));
    const offset = (page - 1) * this.pageSize;
    const slice = groups.slice(offset, offset + this.pageSize);
    return {
      range,
      aggregateBy,
      usage: slice.map((g) => ({ tag: g.subject, ...(byDay ? dayOf(g.day) : {}), usage: breakdown([g]) })),
      nextPage: offset + this.pageSize < groups.length ? page + 1 : null,
    };
  }
}
