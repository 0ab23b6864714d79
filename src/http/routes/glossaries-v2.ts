// /v2/glossaries (monolingual, superseded by v3 but kept for compatibility) over the shared glossary model.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ServiceError, invalid } from '../../lib/errors.js';
import { glossaryLanguagePairs, type Glossary } from '../../customization/glossaries/glossary-service.js';
import type { Services } from '../../services.js';
import { authOf } from '../plugins/auth.js';
import { JSON_OR_FORM, errorResponses } from '../schemas/common.js';
import { GLOSSARY_BODY_LIMIT, GlossaryV2Body, bodyObject, parseV2Body } from './glossary-body.js';

const GlossaryV2 = Type.Object({
  glossary_id: Type.String(),
  name: Type.String(),
  ready: Type.Boolean(),
  source_lang: Type.String(),
  target_lang: Type.String(),
  creation_time: Type.String(),
  entry_count: Type.Integer(),
});

const IdParams = Type.Object({ glossary_id: Type.String() });

/** The v2 view: a glossary's only (or first) dictionary. */
function v2(glossary: Glossary) {
  const d = glossary.dictionaries[0];
  return {
    glossary_id: glossary.id,
    name: glossary.name,
    ready: true,
    source_lang: d?.sourceLang ?? '',
    target_lang: d?.targetLang ?? '',
    creation_time: glossary.createdAt.toISOString(),
    entry_count: d?.entryCount ?? 0,
  };
}

/** The only entries format of v2 output: TSV (also for a missing or wildcard Accept). */
function acceptsTsv(accept: string | undefined): boolean {
  if (!accept) return true;
  return accept
    .split(',')
    .map((a) => a.split(';')[0]!.trim().toLowerCase())
    .some((a) => a === 'text/tab-separated-values' || a === '*/*' || a === 'text/*');
}

export async function glossaryV2Routes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const config = { scope: 'glossary' as const };
  app.post(
    '/v2/glossaries',
    { bodyLimit: GLOSSARY_BODY_LIMIT, config, schema: { consumes: JSON_OR_FORM, body: GlossaryV2Body, response: { 201: GlossaryV2, ...errorResponses } } },
    async (request, reply) => {
      const glossary = await services.glossaries.create(authOf(request).account.id, parseV2Body(bodyObject(request.body)));
      return reply.status(201).send(v2(glossary));
    },
  );
  app.get('/v2/glossaries', { config, schema: { response: { 200: Type.Object({ glossaries: Type.Array(GlossaryV2) }), ...errorResponses } } }, async (request) => {
    const all = await services.glossaries.list(authOf(request).account.id);
    return { glossaries: all.map(v2) };
  });
  app.get<{ Params: { glossary_id: string } }>(
    '/v2/glossaries/:glossary_id',
    { config, schema: { params: IdParams, response: { 200: GlossaryV2, ...errorResponses } } },
    async (request) => v2(await services.glossaries.get(authOf(request).account.id, request.params.glossary_id)),
  );
  app.delete<{ Params: { glossary_id: string } }>(
    '/v2/glossaries/:glossary_id',
    { config, schema: { params: IdParams, response: { 204: Type.Null(), ...errorResponses } } },
    async (request, reply) => {
      await services.glossaries.delete(authOf(request).account.id, request.params.glossary_id, 'v2');
      return reply.status(204).send();
    },
  );
  app.get<{ Params: { glossary_id: string } }>(
    '/v2/glossaries/:glossary_id/entries',
    {
      config,
      schema: {
        params: IdParams,
        headers: Type.Object({ accept: Type.Optional(Type.String({ description: 'Only text/tab-separated-values (the default).' })) }),
        response: { 200: { description: 'The entries, one per line.', content: { 'text/tab-separated-values': { schema: { type: 'string' } } } }, ...errorResponses },
      },
    },
    async (request, reply) => {
      if (!acceptsTsv(request.headers.accept)) throw new ServiceError('unsupported_media_type', 'Unsupported Accept header: only text/tab-separated-values is supported.');
      const accountId = authOf(request).account.id;
      const [dictionary] = (await services.glossaries.get(accountId, request.params.glossary_id)).dictionaries;
      if (!dictionary) throw invalid('This glossary has no dictionary.');
      const { entries } = await services.glossaries.entries(accountId, request.params.glossary_id, dictionary.sourceLang, dictionary.targetLang);
      return reply.type('text/tab-separated-values; charset=utf-8').send(entries);
    },
  );
  app.get(
    '/v2/glossary-language-pairs',
    { config, schema: { response: { 200: Type.Object({ supported_languages: Type.Array(Type.Object({ source_lang: Type.String(), target_lang: Type.String() })) }), ...errorResponses } } },
    async () => ({ supported_languages: glossaryLanguagePairs().map((p) => ({ source_lang: p.sourceLang, target_lang: p.targetLang })) }),
  );
}
