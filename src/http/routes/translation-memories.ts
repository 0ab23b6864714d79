// /v3/translation_memories: list, get, delete, segments, TMX import (job + signed upload URL), export (job + signed download URL), job polling.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { invalid, unsupportedValue } from '../../lib/errors.js';
import type { ImportInput, Memory as MemoryView, MemoryJob, MemorySummary, SegmentPage } from '../../customization/memories/memory-views.js';
import type { Services } from '../../services.js';
import { authOf } from '../plugins/auth.js';
import { queryInt, queryValue } from '../query.js';
import { assertSigned, signedUrl } from '../signed-url.js';
import { ErrorBody, binaryResponse, errorResponses, handlerChecked, pageQuery } from '../schemas/common.js';
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


/** The import body as the reference words its errors: a source file, a name, a TMX media type, a size. */
export function parseImportBody(body: Record<string, unknown>): ImportInput {
  const file = body.source_file as Record<string, unknown> | undefined;
  if (typeof file !== 'object' || file === null) throw invalid("Parameter 'source_file' not specified");
  const params = (body.parameters ?? {}) as Record<string, unknown>;
  const name = params.display_name ?? file.file_name;
  if (typeof name !== 'string' || name.trim() === '') throw invalid("Parameter 'display_name' not specified");
  const contentType = file.content_type ?? 'application/xml';
  if (typeof contentType !== 'string' || !/^(application|text)\/(xml|x-tmx\+xml|tmx\+xml)$/.test(contentType.split(';')[0]!.trim())) throw unsupportedValue('content_type');
  const length = file.content_length;
  if (length !== undefined && (typeof length !== 'number' || !Number.isInteger(length) || length < 0)) throw unsupportedValue('content_length');
  return { displayName: name, contentType, ...(typeof length === 'number' ? { contentLength: length } : {}) };
}

const memoryWire = (m: MemorySummary) => ({
  translation_memory_id: m.id,
  name: m.name,
  source_language: m.sourceLanguage,
  target_languages: m.targetLanguages,
  segment_count: m.segmentCount,
});
const memoryDetailWire = (m: MemoryView) => ({ ...memoryWire(m), creation_time: m.createdAt.toISOString(), updated_time: m.updatedAt.toISOString() });

function segmentsWire(page: SegmentPage) {
  return {
    segments: page.segments.map((g) => {
      const created = g.createdAt.toISOString();
      return {
        source_segment_id: g.id,
        source_text: g.text,
        creation_time: created,
        updated_time: created,
        targets: g.targets.map((t) => ({ target_segment_id: t.id, target_language: t.language, target_text: t.text, creation_time: created, updated_time: created })),
      };
    }),
    segment_count: page.segmentCount,
    ...(page.nextPageCursor !== undefined ? { next_page_cursor: page.nextPageCursor } : {}),
  };
}

/** A job as the reference's clients read it; `urlFor` signs the download URL of a finished export. */
function jobWire(job: MemoryJob, urlFor: (path: string, expiresAt: number) => string) {
  const result: Record<string, unknown> = { status: job.status };
  if (job.status === 'awaiting_input') result.status_metadata = { required_action: 'upload_file' };
  if (job.memoryId && job.status !== 'failed') result.translation_memory_id = job.memoryId;
  // error_message as the Ruby client reads it, error.message as deepl-node reads it.
  if (job.errorMessage) Object.assign(result, { error_message: job.errorMessage, error: { message: job.errorMessage } });
  if (job.operation === 'import') result.skipped_segment_count = job.skippedSegmentCount;
  const expires = job.expiresAt?.toISOString();
  if (job.operation === 'export' && job.status === 'completed') {
    result.download_url = urlFor(`/v3/translation_memories/jobs/${job.id}/download`, Number(job.expiresAt));
    result.expires_at = expires;
  }
  if (job.operation === 'import' && job.status === 'awaiting_input') result.expires_at = expires;
  const contentType = job.contentType ? { content_type: job.contentType } : {};
  const contentLength = job.contentLength !== null ? { content_length: job.contentLength } : {};
  return {
    job_id: job.id,
    operation: job.operation,
    display_name: job.displayName,
    creation_time: job.createdAt.toISOString(),
    updated_time: job.updatedAt.toISOString(),
    ...(job.contentType ? { source_content_type: job.contentType } : {}),
    ...(job.contentLength !== null ? { source_content_length: job.contentLength } : {}),
    // The request's parameters and source file echoed in the shape they were sent in (deepl-node reads these).
    parameters: job.operation === 'export' ? { translation_memory_id: job.memoryId, display_name: job.displayName } : { display_name: job.displayName },
    ...(job.operation === 'import' ? { source_file: { ...contentType, ...contentLength } } : {}),
    results: [result],
  };
}

/** Signed URLs need no API key: the signature in their query is the permission (see UrlSigner). */
const SIGNED = { auth: 'none' as const };

export async function translationMemoryRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const config = { scope: 'translation_memory' as const };
  const m = services.memories;
  const urlFor = (request: FastifyRequest) => (path: string, expiresAt: number) => signedUrl(services.urlSigner, request, path, expiresAt);
  app.get<{ Querystring: Record<string, string> }>(
    '/v3/translation_memories',
    { config, schema: { querystring: ListQuery, response: { 200: Type.Object({ translation_memories: Type.Array(Memory), total_count: Type.Integer() }), ...errorResponses } } },
    async (request) => {
      const page = await m.list(authOf(request).account.id, queryInt(request.query, 'page', 0, 0, 1_000_000), queryInt(request.query, 'page_size', 10, 1, 25));
      return { translation_memories: page.memories.map(memoryWire), total_count: page.totalCount };
    },
  );
  app.get<{ Params: { id: string } }>(
    '/v3/translation_memories/:id',
    { config, schema: { params: MemoryParams, response: { 200: MemoryDetail, ...errorResponses } } },
    async (request) => memoryDetailWire(await m.get(authOf(request).account.id, request.params.id)),
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
      const page = await m.segmentPage(authOf(request).account.id, request.params.id, {
        pageSize: queryInt(q, 'page_size', 50, 1, 100),
        ...(cursor !== undefined && cursor !== '' ? { pageCursor: cursor } : {}),
        ...(filter !== undefined && filter !== '' ? { filterText: filter } : {}),
        caseSensitive: cs === 'true' || cs === '1',
      });
      return segmentsWire(page);
    },
  );
  app.post(
    '/v3/translation_memories/import',
    { config, schema: { body: ImportBody, response: { 200: Type.Object({ job_id: Type.String(), upload_url: Type.String(), expires_at: Type.String() }), ...errorResponses } } },
    async (request) => {
      const job = await m.startImport(authOf(request).account.id, parseImportBody(bodyObject(request.body)));
      const expiresAt = job.expiresAt.getTime();
      return { job_id: job.jobId, upload_url: urlFor(request)(`/v3/translation_memories/jobs/${job.jobId}/upload`, expiresAt), expires_at: job.expiresAt.toISOString() };
    },
  );
  app.post<{ Params: { id: string } }>(
    '/v3/translation_memories/:id/export',
    { config, schema: { params: MemoryParams, response: { 200: Job, 202: Job, 409: ErrorBody, ...errorResponses } } },
    async (request, reply) => {
      // 200: a recent export of the unchanged memory is reused; 202: one was started (a running one is a 409 error).
      const r = await m.startExport(authOf(request).account.id, request.params.id);
      return reply.status(r.ready ? 200 : 202).send({ job_id: r.jobId, parameters: { translation_memory_id: r.memoryId } });
    },
  );
  app.get<{ Params: { job_id: string } }>(
    '/v3/translation_memories/jobs/:job_id',
    { config, schema: { params: JobParams, response: { 200: Job, ...errorResponses } } },
    async (request) => jobWire(await m.getJob(authOf(request).account.id, request.params.job_id), urlFor(request)),
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
      assertSigned(services.urlSigner, request);
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
        assertSigned(services.urlSigner, request);
        await m.receiveUpload(null, request.params.job_id, request.body as Readable);
        return reply.status(204).send();
      },
    );
  });
}
