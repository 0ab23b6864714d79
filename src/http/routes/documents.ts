// /v2/document: multipart upload streamed to an encrypted temp file (fields may follow the file), status, and the
// one-time download. Parsing and replies only; the work is in src/documents/document-service.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import { invalid } from '../../lib/errors.js';
import type { Services } from '../../services.js';
import type { DocumentState } from '../../documents/document-service.js';
import { multipartError, receiveMultipartUpload } from '../multipart-upload.js';
import { parseDocumentRequest } from '../requests/document-request.js';
import { authOf } from '../plugins/auth.js';
import { onDelivered } from '../plugins/sockets.js';
import { ErrorBody, Flag, JSON_OR_FORM, OneOrMany, binaryResponse, errorResponses, handlerChecked } from '../schemas/common.js';
import { translationOptions } from '../schemas/translate.js';
import { reportingTagHeader } from './translate.js';

const DocumentHandle = Type.Object({ document_id: Type.String(), document_key: Type.String() });
const DocumentStatus = Type.Object({
  document_id: Type.String(),
  status: Type.String(),
  seconds_remaining: Type.Optional(Type.Integer()),
  billed_characters: Type.Optional(Type.Integer()),
  error_message: Type.Optional(Type.String()),
  message: Type.Optional(Type.String({ description: 'The error again, or with `done` what was kept untranslated (e.g. PDF pages whose fonts cannot be read back).' })),
});
const DocumentParams = Type.Object({ document_id: Type.String({ maxLength: 100 }) });
const documentErrors = errorResponses;

// Fields checked by src/http/requests/document-request.ts (the reference's messages); the multipart body is streamed.
const UploadBody = handlerChecked({
  file: Type.String({ format: 'binary', description: 'The document (DOCX, PPTX, XLSX, PDF, HTML, TXT, XLIFF, SRT, images...).' }),
  filename: Type.Optional(Type.String({ description: 'File name, when the file part carries none; its extension names the format.' })),
  ...translationOptions,
  glossary_ids: Type.Optional(OneOrMany(Type.String(), 'Glossaries to apply (at most 5; not with glossary_id).')),
  output_format: Type.Optional(Type.String({ description: 'Extension of the format to return (e.g. `docx` for a PDF).' })),
  enable_watermark: Type.Optional(Flag('Mark the translated document as machine-translated.')),
  enable_beta_languages: Type.Optional(Flag('Deprecated; no effect.')),
});
const KeyBody = handlerChecked({ document_key: Type.String({ description: 'The key returned by the upload.' }) });

/** The document_key of a status or result request. */
function documentKey(request: FastifyRequest): string {
  const body = request.body;
  const key = body && typeof body === 'object' && !Buffer.isBuffer(body) ? (body as Record<string, unknown>).document_key : undefined;
  if (key === undefined || key === null || key === '') throw invalid("Parameter 'document_key' not specified");
  if (typeof key !== 'string') throw invalid("Value for 'document_key' not supported.");
  return key;
}

/** `id`: as the client sent it (ids match case-insensitively). */
function statusWire(id: string, state: DocumentState) {
  switch (state.status) {
    case 'queued':
      return { document_id: id, status: state.status };
    case 'translating':
      return { document_id: id, status: state.status, seconds_remaining: state.secondsRemaining };
    case 'done':
      // a notice (text kept untranslated) is told in `message`; error_message stays for failures
      return { document_id: id, status: state.status, billed_characters: state.billedCharacters, ...(state.notice ? { message: state.notice } : {}) };
    case 'error':
      return { document_id: id, status: state.status, error_message: state.errorMessage, message: state.errorMessage };
  }
}

export async function documentRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const documents = services.documents;
  const maxUpload = documents.formats.maxUploadBytes();
  await app.register(multipart);

  app.post(
    '/v2/document',
    {
      bodyLimit: maxUpload + 1024 * 1024,
      config: { scope: 'document' },
      schema: { consumes: ['multipart/form-data'], body: UploadBody, response: { 200: DocumentHandle, ...documentErrors } },
    },
    async (request) => {
      const ctx = authOf(request);
      const tag = reportingTagHeader(request.headers);
      if (!request.isMultipart()) throw invalid("Parameter 'file' not specified");
      const { file, fileName, fields } = await receiveMultipartUpload(request, documents, maxUpload);
      if (!file) throw invalid("Parameter 'file' not specified");
      try {
        const req = parseDocumentRequest(fields);
        const handle = await documents.enqueue(ctx, file, req.fileName ?? fileName, req, tag);
        return { document_id: handle.id, document_key: handle.key };
      } catch (err) {
        await documents.discard(file);
        throw multipartError(err);
      }
    },
  );

  app.post(
    '/v2/document/:document_id',
    {
      config: { scope: 'document' },
      schema: { params: DocumentParams, consumes: JSON_OR_FORM, body: KeyBody, response: { 200: DocumentStatus, ...documentErrors } },
    },
    async (request) => {
      const { document_id } = request.params as { document_id: string };
      return statusWire(document_id, await documents.status(authOf(request), document_id, documentKey(request)));
    },
  );

  app.post(
    '/v2/document/:document_id/result',
    {
      config: { scope: 'document' },
      schema: {
        params: DocumentParams,
        consumes: JSON_OR_FORM,
        body: KeyBody,
        response: { 200: binaryResponse('The translated document, once; its Content-Type follows the output format.'), ...documentErrors },
      },
    },
    async (request, reply) => {
      const { document_id } = request.params as { document_id: string };
      const download = await documents.download(authOf(request), document_id, documentKey(request));
      onDelivered(request, reply, { delivered: download.complete, lost: download.release });
      return reply.header('content-type', download.contentType).header('content-length', String(download.bytes)).send(download.stream);
    },
  );
}
