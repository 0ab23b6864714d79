// POST /v3/detect/language (beta, opt-in per account): detection status and language per text, in request order.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ServiceError, forbidden, invalid } from '../../lib/errors.js';
import type { Services } from '../../services.js';
import { authOf } from '../plugins/auth.js';
import { JSON_OR_FORM, OneOrMany, errorResponses, handlerChecked } from '../schemas/common.js';

export const MAX_DETECT_TEXTS = 50;

const UNSUPPORTED_MEDIA_TYPE =
  'Called with an unsupported media type. Supported media types: application/json or application/x-www-form-urlencoded. Please set the Content-Type header to a supported type.';

const DetectResponse = Type.Object({
  results: Type.Array(
    Type.Object({
      detected_language: Type.Optional(Type.String()),
      detection_status: Type.String(),
    }),
  ),
});

function isSupportedMediaType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || type === 'application/x-www-form-urlencoded';
}

// Checked in the handler for the reference's messages ('Missing parameter text.').
const DetectBody = handlerChecked({
  text: OneOrMany(Type.String(), `Texts whose language to detect (at most ${MAX_DETECT_TEXTS}); a form body repeats the field.`),
});

export async function detectRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  app.post(
    '/v3/detect/language',
    {
      // The 415 must win over body parsing, so the media type is checked before Fastify reads the body.
      onRequest: async (request) => {
        if (!isSupportedMediaType(request.headers['content-type'])) {
          throw new ServiceError('unsupported_media_type', UNSUPPORTED_MEDIA_TYPE);
        }
      },
      config: { scope: 'detect' },
      schema: { consumes: JSON_OR_FORM, body: DetectBody, response: { 200: DetectResponse, ...errorResponses } },
    },
    async (request) => {
      const ctx = authOf(request);
      if (!ctx.account.features.has('detection')) {
        throw forbidden('Forbidden. Language detection is a beta feature that is not enabled for this account.');
      }
      const body = (request.body ?? {}) as Record<string, unknown>;
      const raw = body.text;
      if (raw === undefined || raw === null || raw === '' || (Array.isArray(raw) && raw.length === 0)) {
        throw invalid('Missing parameter text.');
      }
      const texts = Array.isArray(raw) ? raw : [raw];
      if (texts.some((t) => typeof t !== 'string')) throw invalid("Value for 'text' not supported.");
      if (texts.length > MAX_DETECT_TEXTS) throw invalid(`Too many texts: at most ${MAX_DETECT_TEXTS} 'text' values per request.`);
      return {
        results: await Promise.all(
          (texts as string[]).map(async (text) => {
            const outcome = await services.detector.detect(text);
            return outcome.status === 'success' && outcome.language
              ? { detected_language: outcome.language, detection_status: 'success' }
              : { detection_status: outcome.status };
          }),
        ),
      };
    },
  );
}
