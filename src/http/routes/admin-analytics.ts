// GET /v2/admin/analytics and /v2/admin/analytics/custom-tags: an organization's usage by key, day and reporting tag.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { authOf } from '../plugins/auth.js';
import { errorResponses, handlerChecked } from '../schemas/common.js';
import { AGGREGATE_BY_VALUES, GROUP_BY_VALUES } from '../../admin/analytics-service.js';
import { MAX_RANGE_DAYS } from '../../admin/analytics-params.js';

// Queries are checked by src/admin/analytics-params.ts (the reference's messages).
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

export async function adminAnalyticsRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const config = { auth: 'admin' as const };
  app.get('/v2/admin/analytics', { config, schema: { querystring: ReportQuery, response: { 200: UsageReport, ...errorResponses } } }, async (request) =>
    services.analytics.usageReport(authOf(request).account, request.query as Record<string, unknown>),
  );
  app.get(
    '/v2/admin/analytics/custom-tags',
    { config, schema: { querystring: TagReportQuery, response: { 200: CustomTagReport, ...errorResponses } } },
    async (request) => services.analytics.customTagReport(authOf(request).account, request.query as Record<string, unknown>),
  );
}
