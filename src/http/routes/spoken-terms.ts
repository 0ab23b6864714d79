// /v3/spoken-terms: spoken terms collections for voice transcription (JSON bodies only). Not scoped, like the rest of
// voice: developer-key scopes do not apply. GET /v3/spoken-terms (the list) is Tolk's own; the reference has none.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ServiceError, invalid } from '../../lib/errors.js';
import type { Services } from '../../services.js';
import type { SpokenTerms as SpokenTermsView, TermListInput, TermListSummary } from '../../voice/spoken-terms/spoken-terms-service.js';
import { checkCollectionName, termListEntries, termListLang } from '../../voice/spoken-terms/term-list.js';
import { authOf } from '../plugins/auth.js';
import { errorResponses, handlerChecked } from '../schemas/common.js';

/** Names (1024 bytes) and lists (300 characters each, JSON-escaped) fit well within this. */
const BODY_LIMIT = 256 * 1024;

const TermListInfo = Type.Object({ lang: Type.String(), entry_count: Type.Integer() });
const SpokenTerms = Type.Object({
  spoken_terms_id: Type.String(),
  name: Type.String(),
  term_lists: Type.Array(TermListInfo),
  creation_time: Type.String(),
});
const IdParams = Type.Object({ spoken_terms_id: Type.String() });
const LangQuery = Type.Object({ lang: Type.Optional(Type.String()) }, { additionalProperties: true });
// Checked by the parsers below and the spoken terms service (the reference's messages); JSON bodies only.
const termList = {
  lang: Type.String({ description: 'Language of the terms.' }),
  entries: Type.String({ description: 'The terms, one per line.' }),
};
const CreateBody = handlerChecked({
  name: Type.String({ description: 'Name of the collection.' }),
  term_lists: Type.Array(Type.Object(termList), { description: 'One list of terms per language.' }),
});
const TermListBody = handlerChecked(termList, 'Replaces the list of this language.');
const EntriesResponse = Type.Object({ lang: Type.String(), entries: Type.String() });

/** The reference accepts JSON only; a form body is a 415, not a silently different parse. */
async function requireJson(request: FastifyRequest): Promise<void> {
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw new ServiceError('unsupported_media_type', 'Unsupported Content-Type: send the body as application/json.');
}

function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('The request body must be a JSON object.');
  return body as Record<string, unknown>;
}

function parseTermList(input: unknown): TermListInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalid("Each term list must be an object with 'lang' and 'entries'.");
  const list = input as Record<string, unknown>;
  return { lang: termListLang(list.lang), entries: termListEntries(list.entries) };
}

function parseCreateBody(body: Record<string, unknown>) {
  const name = checkCollectionName(body.name);
  const termLists = body.term_lists;
  if (termLists === undefined || termLists === null) throw invalid("Parameter 'term_lists' not specified");
  if (!Array.isArray(termLists)) throw invalid("Parameter 'term_lists' must be an array of {lang, entries} objects.");
  return { name, termLists: termLists.map(parseTermList) };
}

const termListWire = (l: TermListSummary) => ({ lang: l.lang, entry_count: l.entryCount });
const spokenTermsWire = (t: SpokenTermsView) => ({
  spoken_terms_id: t.id,
  name: t.name,
  term_lists: t.termLists.map(termListWire),
  creation_time: t.createdAt.toISOString(),
});

export async function spokenTermsRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const terms = services.spokenTerms;
  type WithId = { Params: { spoken_terms_id: string } };
  app.post(
    '/v3/spoken-terms',
    { bodyLimit: BODY_LIMIT, preValidation: requireJson, schema: { body: CreateBody, response: { 201: SpokenTerms, ...errorResponses } } },
    async (request, reply) => {
      return reply.status(201).send(spokenTermsWire(await terms.create(authOf(request).account.id, parseCreateBody(bodyObject(request.body)))));
    },
  );
  app.get('/v3/spoken-terms', { schema: { response: { 200: Type.Object({ spoken_terms: Type.Array(SpokenTerms) }), ...errorResponses } } }, async (request) => ({
    spoken_terms: (await terms.list(authOf(request).account.id)).map(spokenTermsWire),
  }));
  app.get<WithId>('/v3/spoken-terms/:spoken_terms_id', { schema: { params: IdParams, response: { 200: SpokenTerms, ...errorResponses } } }, async (request) =>
    spokenTermsWire(await terms.get(authOf(request).account.id, request.params.spoken_terms_id)),
  );
  app.get<WithId & { Querystring: { lang?: string } }>(
    '/v3/spoken-terms/:spoken_terms_id/entries',
    { schema: { params: IdParams, querystring: LangQuery, response: { 200: EntriesResponse, ...errorResponses } } },
    async (request) => terms.entries(authOf(request).account.id, request.params.spoken_terms_id, termListLang(request.query.lang)),
  );
  app.put<WithId>(
    '/v3/spoken-terms/:spoken_terms_id/term-lists',
    { bodyLimit: BODY_LIMIT, preValidation: requireJson, schema: { params: IdParams, body: TermListBody, response: { 200: TermListInfo, ...errorResponses } } },
    async (request) => {
      return termListWire(await terms.putList(authOf(request).account.id, request.params.spoken_terms_id, parseTermList(bodyObject(request.body))));
    },
  );
  app.delete<WithId>('/v3/spoken-terms/:spoken_terms_id', { schema: { params: IdParams, response: { 204: Type.Null(), ...errorResponses } } }, async (request, reply) => {
    await terms.delete(authOf(request).account.id, request.params.spoken_terms_id);
    return reply.status(204).send();
  });
}
