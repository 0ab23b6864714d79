// /v3/translation_memories: list, TMX import (job + authenticated upload URL), export (job + download), job polling.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { invalid } from '../../lib/errors.js';
import type { Services } from '../../services.js';
import { authOf } from '../plugins/auth.js';
import { AnyObjectBody, errorResponses } from '../schemas/common.js';
import { bodyObject } from './glossary-body.js';

const Memory = Type.Object({
  translation_memory_id: Type.String(),
  name: Type.String(),
  source_language: Type.String(),
  target_languages: Type.Array(Type.String()),
  segment_count: Type.Integer(),
});
const Job = Type.Object({}, { additionalProperties: true });
const JobParams = Type.Object({ job_id: Type.String() });

const baseUrl = (request: FastifyRequest) => `${request.protocol}://${request.headers.host ?? request.hostname}`;

function intParam(value: unknown, name: string, def: number, min: number, max: number): number {
  if (value === undefined || value === '') return def;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw invalid(`Value for '${name}' not supported.`);
  return n;
}

export async function translationMemoryRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const config = { scope: 'translation_memory' as const };
  const m = services.memories;
  app.get<{ Querystring: Record<string, string> }>(
    '/v3/translation_memories',
    { config, schema: { response: { 200: Type.Object({ translation_memories: Type.Array(Memory), total_count: Type.Integer() }), ...errorResponses } } },
    async (request) =>
      m.list(authOf(request).account.id, intParam(request.query.page, 'page', 0, 0, 1_000_000), intParam(request.query.page_size, 'page_size', 10, 1, 25)),
  );
  app.post(
    '/v3/translation_memories/import',
    { config, schema: { body: AnyObjectBody, response: { 200: Type.Object({ job_id: Type.String(), upload_url: Type.String(), expires_at: Type.String() }), ...errorResponses } } },
    async (request) => m.startImport(authOf(request).account.id, bodyObject(request.body), baseUrl(request)),
  );
  app.post<{ Params: { id: string } }>(
    '/v3/translation_memories/:id/export',
    { config, schema: { params: Type.Object({ id: Type.String() }), response: { 200: Job, 202: Job, 409: Job, ...errorResponses } } },
    async (request, reply) => {
      const r = await m.startExport(authOf(request).account.id, request.params.id);
      return reply.status(r.status).send(r.body);
    },
  );
  app.get<{ Params: { job_id: string } }>(
    '/v3/translation_memories/jobs/:job_id',
    { config, schema: { params: JobParams, response: { 200: Job, ...errorResponses } } },
    async (request) => m.getJob(authOf(request).account.id, request.params.job_id, baseUrl(request)),
  );
  app.get<{ Params: { job_id: string } }>(
    '/v3/translation_memories/jobs/:job_id/download',
    { config, schema: { params: JobParams } },
    async (request, reply) => {
      const path = await m.download(authOf(request).account.id, request.params.job_id);
      return reply.type('application/xml').header('content-disposition', 'attachment; filename="translation-memory.tmx"').send(createReadStream(path));
    },
  );
  // The upload URL: the body is not parsed but streamed to disk by the service (size-limited there).
  await app.register(async (upload) => {
    upload.removeAllContentTypeParsers();
    upload.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    upload.put<{ Params: { job_id: string } }>(
      '/v3/translation_memories/jobs/:job_id/upload',
      { bodyLimit: Number.MAX_SAFE_INTEGER, config, schema: { params: JobParams, response: { 204: Type.Null(), ...errorResponses } } },
      async (request, reply) => {
        await m.receiveUpload(authOf(request).account.id, request.params.job_id, request.body as Readable);
        return reply.status(204).send();
      },
    );
  });
}
