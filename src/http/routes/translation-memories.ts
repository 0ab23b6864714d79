// /v3/translation_memories: list, get, delete, segments, TMX import (job + signed upload URL), export (job + signed download URL), job polling.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { forbidden, invalid } from '../../lib/errors.js';
import type { Services } from '../../services.js';
import { authOf } from '../plugins/auth.js';
import { queryInt, queryValue } from '../query.js';
import { publicOrigin } from '../public-origin.js';
import { binaryResponse, errorResponses, handlerChecked, pageQuery } from '../schemas/common.js';
import { bodyObject } from './glossary-body.js';

const Memory = Type.Object({
  translation_memory_id: Type.String(),
  name: Type.String(),
  source_language: Type.String(),
  target_languages: Type.Array(Type.String()),
  segment_count: Type.Integer(),
});
const MemoryDetail = Type.Object({ ...Memory.properties, creation_time: Type.String(), updated_time: Type.String() });
const Timestamps = { creation_time: Type.Optional(Type.String()), updated_time: Type.Optional(Type.String()) };
const Segments = Type.Object({
  segments: Type.Array(
    Type.Object({
      source_segment_id: Type.String(),
      source_text: Type.String(),
      ...Timestamps,
      targets: Type.Array(Type.Object({ target_segment_id: Type.String(), target_language: Type.String(), target_text: Type.String(), ...Timestamps })),
    }),
  ),
  segment_count: Type.Integer(),
  next_page_cursor: Type.Optional(Type.String()),
});
const MemoryParams = Type.Object({ id: Type.String() });
const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });
const Job = Type.Object(
  {
    job_id: Type.String(),
    operation: Type.Optional(Type.String({ description: '`import` or `export`.' })),
    display_name: Type.Optional(Type.String()),
    creation_time: Type.Optional(Type.String()),
    updated_time: Type.Optional(Type.String()),
    parameters: Type.Optional(Open('The request\'s parameters, echoed.')),
    results: Type.Optional(
      Type.Array(Open('`status` (awaiting_input, processing, completed, downloaded, failed, expired), and as they apply download_url, expires_at, translation_memory_id, skipped_segment_count, error_message.')),
    ),
  },
  { additionalProperties: true },
);
const JobParams = Type.Object({ job_id: Type.String() });

// Bodies and queries are checked by the memory service and src/http/query.ts (the reference's messages).
const ListQuery = handlerChecked(pageQuery(25, 10));
const SegmentsQuery = handlerChecked({
  page_size: pageQuery(100, 50).page_size,
  page_cursor: Type.Optional(Type.String({ description: 'Cursor from next_page_cursor of the previous page.' })),
  filter_text: Type.Optional(Type.String({ description: 'Only segments containing this text.' })),
  filter_case_sensitive: Type.Optional(Type.String({ description: '`true` or `false` (default) for filter_text.' })),
});
const ImportBody = handlerChecked({
  source_file: Type.Object({
    file_name: Type.Optional(Type.String({ description: 'Name of the TMX file (the display name when none is given).' })),
    content_type: Type.Optional(Type.String({ description: 'application/xml (default) or a TMX media type.' })),
    content_length: Type.Optional(Type.Integer({ minimum: 0, description: 'Size of the file in bytes.' })),
  }),
  parameters: Type.Optional(Type.Object({ display_name: Type.Optional(Type.String({ description: 'Name of the memory.' })) })),
}, 'Starts an import: the TMX file is then PUT to the returned upload_url.');
const SignedQuery = handlerChecked({
  expires: Type.String({ description: 'Expiry of the signed URL (as handed out).' }),
  signature: Type.String({ description: 'Signature of the URL (as handed out).' }),
});


/** Signed URLs need no API key: the signature in their query is the permission (see UrlSigner). */
const SIGNED = { auth: 'none' as const };

export async function translationMemoryRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const config = { scope: 'translation_memory' as const };
  const m = services.memories;
  const urlFor = (request: FastifyRequest) => (path: string, expiresAt: number) => `${publicOrigin(request)}${path}?${services.urlSigner.sign(path, expiresAt)}`;
  /** Checks the signature of an upload or download URL; the job it names is then usable without a key. */
  const assertSigned = (request: FastifyRequest<{ Querystring: Record<string, unknown> }>) => {
    const path = request.url.split('?')[0]!;
    const check = services.urlSigner.verify(path, queryValue(request.query, 'expires'), queryValue(request.query, 'signature'), Date.now());
    if (check === 'expired') throw forbidden('This URL has expired.');
    if (check !== 'ok') throw forbidden('This URL is not valid: its signature does not match.');
  };
  app.get<{ Querystring: Record<string, string> }>(
    '/v3/translation_memories',
    { config, schema: { querystring: ListQuery, response: { 200: Type.Object({ translation_memories: Type.Array(Memory), total_count: Type.Integer() }), ...errorResponses } } },
    async (request) =>
      m.list(authOf(request).account.id, queryInt(request.query, 'page', 0, 0, 1_000_000), queryInt(request.query, 'page_size', 10, 1, 25)),
  );
  app.get<{ Params: { id: string } }>(
    '/v3/translation_memories/:id',
    { config, schema: { params: MemoryParams, response: { 200: MemoryDetail, ...errorResponses } } },
    async (request) => m.get(authOf(request).account.id, request.params.id),
  );
  app.delete<{ Params: { id: string } }>(
    '/v3/translation_memories/:id',
    { config, schema: { params: MemoryParams, response: { 204: Type.Null(), ...errorResponses } } },
    async (request, reply) => {
      await m.delete(authOf(request).account.id, request.params.id);
      return reply.status(204).send();
    },
  );
  app.get<{ Params: { id: string }; Querystring: Record<string, string> }>(
    '/v3/translation_memories/:id/segments',
    { config, schema: { params: MemoryParams, querystring: SegmentsQuery, response: { 200: Segments, ...errorResponses } } },
    async (request) => {
      const q = request.query;
      const cs = queryValue(q, 'filter_case_sensitive');
      if (cs !== undefined && !['true', 'false', '1', '0'].includes(cs)) throw invalid("Value for 'filter_case_sensitive' not supported.");
      const cursor = queryValue(q, 'page_cursor');
      const filter = queryValue(q, 'filter_text');
      return m.segmentPage(authOf(request).account.id, request.params.id, {
        pageSize: queryInt(q, 'page_size', 50, 1, 100),
        ...(cursor !== undefined && cursor !== '' ? { pageCursor: cursor } : {}),
        ...(filter !== undefined && filter !== '' ? { filterText: filter } : {}),
        caseSensitive: cs === 'true' || cs === '1',
      });
    },
  );
  app.post(
    '/v3/translation_memories/import',
    { config, schema: { body: ImportBody, response: { 200: Type.Object({ job_id: Type.String(), upload_url: Type.String(), expires_at: Type.String() }), ...errorResponses } } },
    async (request) => m.startImport(authOf(request).account.id, bodyObject(request.body), urlFor(request)),
  );
  app.post<{ Params: { id: string } }>(
    '/v3/translation_memories/:id/export',
    { config, schema: { params: MemoryParams, response: { 200: Job, 202: Job, 409: Job, ...errorResponses } } },
    async (request, reply) => {
      const r = await m.startExport(authOf(request).account.id, request.params.id);
      return reply.status(r.status).send(r.body);
    },
  );
  app.get<{ Params: { job_id: string } }>(
    '/v3/translation_memories/jobs/:job_id',
    { config, schema: { params: JobParams, response: { 200: Job, ...errorResponses } } },
    async (request) => m.getJob(authOf(request).account.id, request.params.job_id, urlFor(request)),
  );
  app.get<{ Params: { job_id: string }; Querystring: Record<string, unknown> }>(
    '/v3/translation_memories/jobs/:job_id/download',
    {
      config: SIGNED,
      schema: {
        params: JobParams,
        querystring: SignedQuery,
        response: { 200: binaryResponse('The exported memory as TMX.', 'application/xml'), ...errorResponses },
      },
    },
    async (request, reply) => {
      assertSigned(request);
      const content = await m.download(null, request.params.job_id);
      return reply.type('application/xml').header('content-disposition', 'attachment; filename="translation-memory.tmx"').send(content);
    },
  );
  // The upload URL: the body is not parsed but streamed to disk by the service (size-limited there).
  await app.register(async (upload) => {
    upload.removeAllContentTypeParsers();
    upload.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    upload.put<{ Params: { job_id: string }; Querystring: Record<string, unknown> }>(
      '/v3/translation_memories/jobs/:job_id/upload',
      { bodyLimit: Number.MAX_SAFE_INTEGER, config: SIGNED, schema: {
          params: JobParams,
          querystring: SignedQuery,
          consumes: ['application/xml'],
          body: { type: 'string', format: 'binary', 'x-validated-by': 'handler', description: 'The TMX file (streamed; size-limited by the service).' },
          response: { 204: Type.Null(), ...errorResponses },
        },
      },
      async (request, reply) => {
        assertSigned(request);
        await m.receiveUpload(null, request.params.job_id, request.body as Readable);
        return reply.status(204).send();
      },
    );
  });
}
