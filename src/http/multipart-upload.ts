// Reads a multipart upload: the `file` part streamed into the document service's encrypted temp file, the other
// fields collected (repeated fields become lists). Shared by /v2/document and LibreTranslate's /translate_file.
import type { FastifyRequest } from 'fastify';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ServiceError, invalid } from '../lib/errors.js';
import type { DocumentService, ReceivedFile } from '../documents/document-service.js';

const MAX_FIELD_BYTES = 64 * 1024;
/** Fields (not files) of one multipart body: a document upload has about a dozen. */
export const MAX_MULTIPART_FIELDS = 100;
const MAX_FILES = 5;

export interface MultipartUpload {
  /** The received file, or undefined when the body had no `file` part. */
  file: ReceivedFile | undefined;
  /** The file part's own file name. */
  fileName: string | undefined;
  fields: Record<string, string | string[]>;
}

/** Multipart failures are the client's: malformed bodies and too many fields are 400, oversized ones 413, never 500. */
export function multipartError(err: unknown): unknown {
  if (err instanceof ServiceError) return err;
  const e = err as { code?: string; statusCode?: number; message?: string };
  if (e.code === 'FST_REQ_FILE_TOO_LARGE') return new ServiceError('payload_too_large', 'Document too large.');
  if (e.code === 'FST_FIELDS_LIMIT' || e.code === 'FST_PARTS_LIMIT' || e.code === 'FST_FILES_LIMIT') {
    return invalid(`Too many form fields: at most ${MAX_MULTIPART_FIELDS} fields and ${MAX_FILES} files are accepted.`);
  }
  if (e.statusCode === 413 || /limit/i.test(e.code ?? '')) return new ServiceError('payload_too_large', 'Request body too large.');
  return invalid('Bad request. The multipart body could not be read.');
}

/** Reads the whole body; on failure the received file is discarded and the error is the client's (multipartError). */
export async function receiveMultipartUpload(request: FastifyRequest, documents: DocumentService, maxUpload: number): Promise<MultipartUpload> {
  const upload: MultipartUpload = { file: undefined, fileName: undefined, fields: {} };
  try {
    const parts = request.parts({
      limits: { fileSize: maxUpload + 1, fieldSize: MAX_FIELD_BYTES, fields: MAX_MULTIPART_FIELDS, files: MAX_FILES, parts: MAX_MULTIPART_FIELDS + MAX_FILES },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || upload.file) {
          await pipeline(part.file, new Writable({ write: (_c, _e, cb) => cb() }));
          continue;
        }
        upload.fileName = part.filename;
        upload.file = await documents.receiveFile(part.file, maxUpload);
        if (part.file.truncated) throw new ServiceError('payload_too_large', 'Document too large.');
      } else {
        addField(upload.fields, part.fieldname, part.value);
      }
    }
    return upload;
  } catch (err) {
    if (upload.file) await documents.discard(upload.file);
    throw multipartError(err);
  }
}

/** A repeated field becomes a list, in order. */
function addField(fields: Record<string, string | string[]>, name: string, raw: unknown): void {
  const value = typeof raw === 'string' ? raw : String(raw);
  const prev = fields[name];
  fields[name] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
}

/**
 * The fields of a multipart body that carries no file (LibreTranslate's web page posts /translate and /detect so):
 * at most `maxFields` fields of `maxFieldBytes` each; a file part is refused.
 */
export async function receiveMultipartFields(request: FastifyRequest, maxFields: number, maxFieldBytes: number): Promise<Record<string, string | string[]>> {
  const fields: Record<string, string | string[]> = {};
  try {
    for await (const part of request.parts({ limits: { fieldSize: maxFieldBytes, fields: maxFields, files: 0, parts: maxFields } })) {
      if (part.type === 'file') throw invalid(`Bad request. Unexpected file part '${part.fieldname}'.`);
      if (part.valueTruncated) throw new ServiceError('payload_too_large', `Request body too large: field '${part.fieldname}' is over ${maxFieldBytes} bytes.`);
      addField(fields, part.fieldname, part.value);
    }
    return fields;
  } catch (err) {
    throw multipartError(err);
  }
}
