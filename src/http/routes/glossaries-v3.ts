// /v3/glossaries: multilingual, editable glossaries (PATCH merges, PUT replaces a dictionary) over the shared model.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ServiceError } from '../../lib/errors.js';
import type { DictionarySummary, Glossary } from '../../customization/glossaries/glossary-service.js';
import type { Services } from '../../services.js';
import { authOf } from '../plugins/auth.js';
import { JSON_OR_FORM, errorResponses } from '../schemas/common.js';
import { DictionaryBody, GLOSSARY_BODY_LIMIT, GlossaryPatchBody, GlossaryV3Body, bodyObject, field, parseDictionary, parsePair, parsePatchBody, parseV3Body } from './glossary-body.js';

const DictionaryInfo = Type.Object({ source_lang: Type.String(), target_lang: Type.String(), entry_count: Type.Integer() });
const GlossaryV3 = Type.Object({
  glossary_id: Type.String(),
  name: Type.String(),
  ready: Type.Boolean(),
  dictionaries: Type.Array(DictionaryInfo),
  creation_time: Type.String(),
});
const IdParams = Type.Object({ glossary_id: Type.String() });
const PairQuery = Type.Object({ source_lang: Type.Optional(Type.String()), target_lang: Type.Optional(Type.String()) }, { additionalProperties: true });
const EntriesResponse = Type.Object({
  dictionaries: Type.Array(Type.Object({ source_lang: Type.String(), target_lang: Type.String(), entries: Type.String(), entries_format: Type.String() })),
});

const dictionaryWire = (d: DictionarySummary) => ({ source_lang: d.sourceLang, target_lang: d.targetLang, entry_count: d.entryCount });
const v3 = (g: Glossary) => ({ glossary_id: g.id, name: g.name, ready: true, dictionaries: g.dictionaries.map(dictionaryWire), creation_time: g.createdAt.toISOString() });

export async function glossaryV3Routes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const config = { scope: 'glossary' as const };
  type WithId = { Params: { glossary_id: string } };
  app.post(
    '/v3/glossaries',
    { bodyLimit: GLOSSARY_BODY_LIMIT, config, schema: { consumes: JSON_OR_FORM, body: GlossaryV3Body, response: { 201: GlossaryV3, ...errorResponses } } },
    async (request, reply) => {
      const glossary = await services.glossaries.create(authOf(request).account.id, parseV3Body(bodyObject(request.body)));
      return reply.status(201).send(v3(glossary));
    },
  );
  app.get('/v3/glossaries', { config, schema: { response: { 200: Type.Object({ glossaries: Type.Array(GlossaryV3) }), ...errorResponses } } }, async (request) => ({
    glossaries: (await services.glossaries.list(authOf(request).account.id)).map(v3),
  }));
  app.get<WithId>('/v3/glossaries/:glossary_id', { config, schema: { params: IdParams, response: { 200: GlossaryV3, ...errorResponses } } }, async (request) =>
    v3(await services.glossaries.get(authOf(request).account.id, request.params.glossary_id)),
  );
  app.patch<WithId>(
    '/v3/glossaries/:glossary_id',
    { bodyLimit: GLOSSARY_BODY_LIMIT, config, schema: { params: IdParams, consumes: JSON_OR_FORM, body: GlossaryPatchBody, response: { 200: GlossaryV3, ...errorResponses } } },
    async (request) => {
      return v3(await services.glossaries.patch(authOf(request).account.id, request.params.glossary_id, parsePatchBody(bodyObject(request.body))));
    },
  );
  app.delete<WithId>('/v3/glossaries/:glossary_id', { config, schema: { params: IdParams, response: { 204: Type.Null(), ...errorResponses } } }, async (request, reply) => {
    await services.glossaries.delete(authOf(request).account.id, request.params.glossary_id, 'v3');
    return reply.status(204).send();
  });
  app.put<WithId>(
    '/v3/glossaries/:glossary_id/dictionaries',
    { bodyLimit: GLOSSARY_BODY_LIMIT, config, schema: { params: IdParams, consumes: JSON_OR_FORM, body: DictionaryBody, response: { 200: DictionaryInfo, ...errorResponses } } },
    async (request) => {
      const body = bodyObject(request.body);
      const fields = ['source_lang', 'target_lang', 'entries', 'entries_format'].map((k) => [k, field(body, k)]);
      return dictionaryWire(await services.glossaries.putDictionary(authOf(request).account.id, request.params.glossary_id, parseDictionary(Object.fromEntries(fields))));
    },
  );
  app.delete<WithId & { Querystring: { source_lang?: string; target_lang?: string } }>(
    '/v3/glossaries/:glossary_id/dictionaries',
    { config, schema: { params: IdParams, querystring: PairQuery, response: { 204: Type.Null(), ...errorResponses } } },
    async (request, reply) => {
      const { sourceLang, targetLang } = parsePair(request.query);
      await services.glossaries.deleteDictionary(authOf(request).account.id, request.params.glossary_id, sourceLang, targetLang);
      return reply.status(204).send();
    },
  );
  app.get<WithId & { Querystring: { source_lang?: string; target_lang?: string } }>(
    '/v3/glossaries/:glossary_id/entries',
    { config, schema: { params: IdParams, querystring: PairQuery, response: { 200: EntriesResponse, ...errorResponses } } },
    async (request) => {
      const accept = (request.headers.accept ?? '').toLowerCase();
      if (accept && !/application\/json|\*\/\*|application\/\*/.test(accept)) throw new ServiceError('unsupported_media_type', 'Unsupported Accept header: only application/json is supported.');
      const { sourceLang, targetLang } = parsePair(request.query);
      const d = await services.glossaries.entries(authOf(request).account.id, request.params.glossary_id, sourceLang, targetLang);
      return { dictionaries: [{ source_lang: d.sourceLang, target_lang: d.targetLang, entries: d.entries, entries_format: 'tsv' }] };
    },
  );
}
