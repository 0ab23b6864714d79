// The one way a model file is fetched: an HTTP GET with a deadline, its failure turned into a message naming the file
// and the URL. The callers check sizes and hashes of what they stream.
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { ModelInstallError } from './model-install-error.js';

export interface Download {
  body: Readable;
  /** The Content-Length the server sent (0: none). */
  contentLength: number;
}

export async function openDownload(url: string, label: string, timeoutMs: number): Promise<Download> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message;
    throw new ModelInstallError(`cannot download ${label} from ${url} (${cause})`);
  }
  if (!res.ok || !res.body) throw new ModelInstallError(`cannot download ${label} from ${url}: HTTP ${res.status}`);
  return { body: Readable.fromWeb(res.body as ReadableStream<Uint8Array>), contentLength: Number(res.headers.get('content-length') ?? 0) };
}
