// GET /v2/admin/analytics and /v2/admin/analytics/custom-tags: an organization's usage by key, day and reporting tag.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { authOf } from '../plugins/auth.js';
import { errorResponses, handlerChecked } from '../schemas/common.js';
import {
  AGGREGATE_BY_VALUES, GROUP_BY_VALUES, type CustomTagReport as TagReport, type UsageBreakdown, type UsageReport as Report,
} from '../../admin/analytics-service.js';
import { MAX_RANGE_DAYS, parseAnalyticsRange, parseChoice, parsePage } from './analytics-params.js';

// Queries are checked by analytics-params.ts (the reference's messages).
const choice = (values: readonly string[], description: string) =>
  Type.Optional(Type.Union(values.filter((v) => v !== '').map((v) => Type.Literal(v)), { description }));
const range = {
  start_date: Type.String({ description: `First day of the report (ISO 8601 date or time); at most ${MAX_RANGE_DAYS} days before end_date.` }),
  end_date: Type.String({ description: 'End of the report (ISO 8601 date or time).' }),
};
const ReportQuery = handlerChecked({ ...range, group_by: choice(GROUP_BY_VALUES, 'Break the usage down by key, or by key and day.') });
const TagReportQuery = handlerChecked({
  ...range,
  aggregate_by: choice(AGGREGATE_BY_VALUES, 'One total per tag for the period (default) or per day.'),
  page: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'Page to fetch, from next_page of the previous one.' })),
});

const Usage = Type.Object({
  total_characters: Type.Integer(),
  text_translation_characters: Type.Integer(),
  document_translation_characters: Type.Integer(),
  text_improvement_characters: Type.Integer(),
  speech_to_text_minutes: Type.Number(),
});

const KeyUsage = Type.Object({
  api_key: Type.String(),
  api_key_label: Type.String(),
  usage_date: Type.Optional(Type.String()),
  usage: Usage,
});

const UsageReport = Type.Object({
  usage_report: Type.Object({
    total_usage: Usage,
    group_by: Type.Optional(Type.String()),
    start_date: Type.String(),
    end_date: Type.String(),
    key_usages: Type.Optional(Type.Array(KeyUsage)),
    key_and_day_usages: Type.Optional(Type.Array(KeyUsage)),
  }),
});

const CustomTagReport = Type.Object({
  custom_tag_usage_report: Type.Object({
    aggregate_by: Type.String(),
    start_date: Type.String(),
    end_date: Type.String(),
    next_page: Type.Union([Type.Integer(), Type.Null()]),
    usage: Type.Array(
      Type.Object({
        custom_tag: Type.String(),
        usage_date: Type.Optional(Type.String()),
        breakdown: Type.Object({
          total_characters: Type.Integer(),
          text_translation_characters: Type.Integer(),
          text_improvement_characters: Type.Integer(),
          speech_to_text_minutes: Type.Number(),
          speech_to_speech_minutes: Type.Number(),
        }),
      }),
    ),
  }),
});

/** Milliseconds as minutes with two decimals (the reference reports e.g. 107.46). */
export function msToMinutes(ms: number): number {
  return Math.round(ms / 600) / 100;
}

/** The report's date-time form: UTC without zone, e.g. 2025-09-29T00:00:00. */
const reportTime = (ms: number) => new Date(ms).toISOString().slice(0, 19);
/** The usage_date form: the day's UTC midnight with Z. */
const usageDate = (day: Date | undefined) => (day === undefined ? {} : { usage_date: `${day.toISOString().slice(0, 19)}Z` });

const usageWire = (u: UsageBreakdown) => ({
  total_characters: u.textTranslationCharacters + u.documentTranslationCharacters + u.textImprovementCharacters,
  text_translation_characters: u.textTranslationCharacters,
  document_translation_characters: u.documentTranslationCharacters,
  text_improvement_characters: u.textImprovementCharacters,
  speech_to_text_minutes: msToMinutes(u.speechToTextMs),
});

function reportWire(r: Report) {
  return {
    usage_report: {
      total_usage: usageWire(r.total),
      ...(r.groupBy ? { group_by: r.groupBy } : {}),
      start_date: reportTime(r.range.from),
      end_date: reportTime(r.range.to),
      ...(r.keys
        ? {
            [r.groupBy === 'key_and_day' ? 'key_and_day_usages' : 'key_usages']: r.keys.map((k) => ({
              api_key: k.maskedKey,
              api_key_label: k.label,
              ...usageDate(k.day),
              usage: usageWire(k.usage),
            })),
          }
        : {}),
    },
  };
}

function tagReportWire(r: TagReport) {
  return {
    custom_tag_usage_report: {
      aggregate_by: r.aggregateBy,
      start_date: reportTime(r.range.from),
      end_date: reportTime(r.range.to),
      next_page: r.nextPage,
      usage: r.usage.map((g) => {
        const u = usageWire(g.usage);
        // Characters of every product (documents included); voice minutes are reported apart.
        const breakdown = {
          total_characters: u.total_characters,
          text_translation_characters: u.text_translation_characters,
          text_improvement_characters: u.text_improvement_characters,
          speech_to_text_minutes: u.speech_to_text_minutes,
          speech_to_speech_minutes: 0,
        };
        return { custom_tag: g.tag, ...usageDate(g.day), breakdown };
      }),
    },
  };
}

export async function adminAnalyticsRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const config = { auth: 'admin' as const };
  app.get('/v2/admin/analytics', { config, schema: { querystring: ReportQuery, response: { 200: UsageReport, ...errorResponses } } }, async (request) => {
    const query = request.query as Record<string, unknown>;
    const range = parseAnalyticsRange(query);
    return reportWire(await services.analytics.usageReport(authOf(request).account, range, parseChoice(query, 'group_by', GROUP_BY_VALUES)));
  });
  app.get(
    '/v2/admin/analytics/custom-tags',
    { config, schema: { querystring: TagReportQuery, response: { 200: CustomTagReport, ...errorResponses } } },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      const range = parseAnalyticsRange(query);
      const aggregateBy = parseChoice(query, 'aggregate_by', AGGREGATE_BY_VALUES) || 'period';
      return tagReportWire(await services.analytics.customTagReport(authOf(request).account, range, aggregateBy, parsePage(query)));
    },
  );
}
