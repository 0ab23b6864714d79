// POST /v2/translate: parse the body into a job, hand it to the translation core (plan → customize → quota → engine
// → charge), reply in the wire shape.
import type { FastifyInstance } from 'fastify';
import { parseReportingTag } from '../../accounts/reporting-tag.js';
import { parseTranslateRequest, translationSpecOf } from '../requests/translate-request.js';
import type { Services } from '../../services.js';
import { authOf } from '../plugins/auth.js';
import { JSON_OR_FORM, errorResponses } from '../schemas/common.js';
import { TranslateBody, TranslateResponse } from '../schemas/translate.js';
import { clientSignal } from '../client-signal.js';

export const TRANSLATE_BODY_LIMIT = 128 * 1024;

export function reportingTagHeader(headers: Record<string, string | string[] | undefined>) {
  return parseReportingTag(headers['x-service-reporting-tag'] ?? headers['x-deepl-reporting-tag']);
}

export async function translateRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  app.post(
    '/v2/translate',
    {
      bodyLimit: TRANSLATE_BODY_LIMIT,
      config: { scope: 'translate' },
      schema: { consumes: JSON_OR_FORM, body: TranslateBody, response: { 200: TranslateResponse, ...errorResponses } },
    },
    async (request, reply) => {
      const ctx = authOf(request);
      const tag = reportingTagHeader(request.headers);
      const req = parseTranslateRequest(request.body);
      const outcome = await services.translate.translateText({
        ...translationSpecOf(req),
        texts: req.texts,
        caller: ctx,
        reportingTag: tag,
        signal: clientSignal(reply),
      });
      const modelTypeUsed = req.modelType === undefined ? undefined : req.modelType.replace(/^prefer_/, '');
      return {
        translations: outcome.results.map((r) => ({
          detected_source_language: r.detectedSourceLanguage,
          text: r.text,
          ...(req.showBilledCharacters ? { billed_characters: r.billedCharacters } : {}),
          ...(modelTypeUsed ? { model_type_used: modelTypeUsed } : {}),
          ...(r.tagHandlingVersion ? { tag_handling_version: r.tagHandlingVersion } : {}),
        })),
        ...(req.showBilledCharacters ? { billed_characters: outcome.billedCharacters } : {}),
      };
    },
  );
}
