// Builds multipart/form-data bodies for document upload tests (fields before or after the file, malformed on purpose).
import { randomBytes } from 'node:crypto';

export type Part = { name: string; value: string } | { name: string; filename: string; content: Buffer | string; contentType?: string };

export function multipart(parts: Part[]): { payload: Buffer; contentType: string } {
  const boundary = `----tolk${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    if ('filename' in p) {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.contentType ?? 'application/octet-stream'}\r\n\r\n`,
        ),
        Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content),
        Buffer.from('\r\n'),
      );
    } else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
