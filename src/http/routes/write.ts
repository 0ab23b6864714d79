// POST /v2/write/rephrase and /v2/write/correct: parse into a job, hand it to WriteService.improve (plan → quota →
// improve → charge text_improvement characters), reply in the wire shape.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ServiceError, forbidden } from '../../lib/errors.js';
import type { Services } from '../../services.js';
import { WRITE_TARGETS } from '../../write/write-request.js';
import { parseWriteRequest } from '../requests/write-request.js';
import type { Improvement } from '../../write/write-service.js';
import { authOf } from '../plugins/auth.js';
import { JSON_OR_FORM, OneOrMany, errorResponses, handlerChecked } from '../schemas/common.js';
import { reportingTagHeader } from './translate.js';
import { clientSignal } from '../client-signal.js';

/** The reference limits text-improvement request bodies to 10 KiB. */
export const WRITE_BODY_LIMIT = 10 * 1024;

const UNSUPPORTED_MEDIA_TYPE = 'Unsupported Content-Type. Use application/json or application/x-www-form-urlencoded.';

const WriteResponse = Type.Object({
  improvements: Type.Array(
    Type.Object({
      text: Type.String(),
      target_language: Type.String(),
      detected_source_language: Type.String(),
    }),
  ),
});

const choice = (values: string[], description: string) =>
  Type.Optional(Type.Union(['default', ...values.flatMap((v) => [v, `prefer_${v}`])].map((v) => Type.Literal(v)), { description }));

// Checked by src/http/requests/write-request.ts for the reference's messages.
const WriteBody = handlerChecked({
  text: OneOrMany(Type.String(), 'Texts to improve; a form body repeats the field.'),
  target_lang: Type.Optional(Type.String({ description: `Language of the result: ${WRITE_TARGETS.join(', ')} (any case); the source language when absent.` })),
  writing_style: choice(['academic', 'business', 'casual', 'simple'], 'Writing style (not with tone); `prefer_` falls back silently where unsupported.'),
  tone: choice(['confident', 'diplomatic', 'enthusiastic', 'friendly'], 'Tone (not with writing_style); `prefer_` falls back silently where unsupported.'),
});

function isSupportedMediaType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || type === 'application/x-www-form-urlencoded';
}

function toResponse(improvements: Improvement[]) {
  return {
    improvements: improvements.map((i) => ({
      text: i.text,
      target_language: i.targetLanguage,
      detected_source_language: i.detectedSourceLanguage,
    })),
  };
}

export async function writeRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const options = {
    bodyLimit: WRITE_BODY_LIMIT,
    // The 415 must win over body parsing, so the media type is checked before Fastify reads the body.
    onRequest: async (request: FastifyRequest) => {
      if (!isSupportedMediaType(request.headers['content-type'])) throw new ServiceError('unsupported_media_type', UNSUPPORTED_MEDIA_TYPE);
    },
    config: { scope: 'write' as const },
    schema: { consumes: JSON_OR_FORM, body: WriteBody, response: { 200: WriteResponse, ...errorResponses } },
  };

  for (const mode of ['rephrase', 'correct'] as const) {
    app.post(`/v2/write/${mode}`, options, async (request, reply) => {
      const ctx = authOf(request);
      if (ctx.account.plan !== 'pro') {
        throw forbidden('Forbidden. Text improvement is only available on the Pro plan.');
      }
      const tag = reportingTagHeader(request.headers);
      const req = parseWriteRequest(request.body, { allowStyle: mode === 'rephrase' });
      const improvements = await services.write.improve({ mode, request: req, caller: ctx, reportingTag: tag, signal: clientSignal(reply) });
      return toResponse(improvements);
    });
  }
}
