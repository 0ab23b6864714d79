// Usage analytics for an organization's admin: totals per range, per key, per key and day, and per reporting tag,
// read from the ledger's daily rollups. Keys are shown masked (first and last four characters).
import type { Account } from '../accounts/accounts-service.js';
import type { AdminRepository, UsageSumRow } from '../store/repositories/admin-repository.js';
import type { Store } from '../store/store.js';
import { DAY_MS } from '../store/schema.js';
import { parseAnalyticsRange, parseChoice, parsePage, type AnalyticsRange } from './analytics-params.js';

export const GROUP_BY_VALUES = ['', 'key', 'key_and_day'] as const;
export const AGGREGATE_BY_VALUES = ['', 'period', 'day'] as const;
/** Custom-tag report entries per page. */
export const CUSTOM_TAG_PAGE_SIZE = 100;

export interface UsageBreakdown {
  total_characters: number;
  text_translation_characters: number;
  document_translation_characters: number;
  text_improvement_characters: number;
  speech_to_text_minutes: number;
}

export interface CustomTagBreakdown {
  total_characters: number;
  text_translation_characters: number;
  text_improvement_characters: number;
  speech_to_text_minutes: number;
  speech_to_speech_minutes: number;
}

export interface AnalyticsServiceOptions {
  customTagPageSize?: number;
}

/** "abcd****wxyz": the first and last four characters of the secret, as stored for display. */
export function maskKey(keyStart: string, keyEnd: string): string {
  return `${keyStart}****${keyEnd}`;
}

/** Milliseconds as minutes with two decimals (the reference reports e.g. 107.46). */
export function msToMinutes(ms: number): number {
  return Math.round(ms / 600) / 100;
}

/** The report's date-time form: UTC without zone, e.g. 2025-09-29T00:00:00. */
function reportTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/** The usage_date form: the day's UTC midnight with Z. */
function usageDate(day: number): string {
  return `${new Date(day * DAY_MS).toISOString().slice(0, 19)}Z`;
}

function breakdown(rows: readonly UsageSumRow[]): UsageBreakdown {
  let text = 0;
  let document = 0;
  let improvement = 0;
  let speechMs = 0;
  for (const r of rows) {
    text += r.text;
    document += r.document;
    improvement += r.improvement;
    speechMs += r.speechMs;
  }
  return {
    total_characters: text + document + improvement,
    text_translation_characters: text,
    document_translation_characters: document,
    text_improvement_characters: improvement,
    speech_to_text_minutes: msToMinutes(speechMs),
  };
}

export class AnalyticsService {
  private readonly pageSize: number;

  constructor(
    private readonly store: Store,
    private readonly repo: AdminRepository,
    options: AnalyticsServiceOptions = {},
  ) {
    this.pageSize = options.customTagPageSize ?? CUSTOM_TAG_PAGE_SIZE;
  }

  /** GET /v2/admin/analytics: totals for the range, optionally per key or per key and UTC day. */
  async usageReport(account: Account, query: Record<string, unknown>) {
    const range = parseAnalyticsRange(query);
    const groupBy = parseChoice(query, 'group_by', GROUP_BY_VALUES);
    const byDay = groupBy === 'key_and_day';
    const rows = await this.repo.usageSums(account.id, 'key', range.from, range.to, byDay);
    const report: Record<string, unknown> = {
      total_usage: breakdown(rows),
      ...(groupBy ? { group_by: groupBy } : {}),
      start_date: reportTime(range.from),
      end_date: reportTime(range.to),
    };
    if (groupBy) {
      // Every key of the account (admin keys too: they can translate), in creation order.
      const keys = await this.store.repositories.accounts.listKeys(account.id);
      const order = new Map(keys.map((k, i) => [k.id, i]));
      const byId = new Map(keys.map((k) => [k.id, k]));
      const sorted = rows.sort(
        (a, b) => (order.get(a.subject) ?? keys.length) - (order.get(b.subject) ?? keys.length) || (a.day ?? 0) - (b.day ?? 0),
      );
      const items = sorted.map((g) => {
        const key = byId.get(g.subject);
        return {
          api_key: key ? maskKey(key.key_start, key.key_end) : '****',
          api_key_label: key?.label ?? '',
          ...(byDay && g.day !== null ? { usage_date: usageDate(g.day) } : {}),
          usage: breakdown([g]),
        };
      });
      report[byDay ? 'key_and_day_usages' : 'key_usages'] = items;
    }
    return { usage_report: report };
  }

  /** GET /v2/admin/analytics/custom-tags: tagged usage per tag (and UTC day), sorted by tag then day, paginated. */
  async customTagReport(account: Account, query: Record<string, unknown>) {
    const range: AnalyticsRange = parseAnalyticsRange(query);
    const aggregateBy = parseChoice(query, 'aggregate_by', AGGREGATE_BY_VALUES) || 'period';
    const page = parsePage(query);
    const byDay = aggregateBy === 'day';
    const rows = await this.repo.usageSums(account.id, 'tag', range.from, range.to, byDay);
    const groups = rows.sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0) || (a.day ?? 0) - (b.day ?? 0));
    const offset = (page - 1) * this.pageSize;
    const slice = groups.slice(offset, offset + this.pageSize);
    return {
      custom_tag_usage_report: {
        aggregate_by: aggregateBy,
        start_date: reportTime(range.from),
        end_date: reportTime(range.to),
        next_page: offset + this.pageSize < groups.length ? page + 1 : null,
        usage: slice.map((g) => {
          const b = breakdown([g]);
          const tagBreakdown: CustomTagBreakdown = {
            // Characters of every product (documents included); voice minutes are reported apart.
            total_characters: b.total_characters,
            text_translation_characters: b.text_translation_characters,
            text_improvement_characters: b.text_improvement_characters,
            speech_to_text_minutes: b.speech_to_text_minutes,
            speech_to_speech_minutes: 0,
          };
          return { custom_tag: g.subject, ...(byDay && g.day !== null ? { usage_date: usageDate(g.day) } : {}), breakdown: tagBreakdown };
        }),
      },
    };
  }
}
