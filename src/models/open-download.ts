// The one way a model file is fetched: an HTTP GET with a deadline and a byte budget, its failure turned into a
// message naming the file and the URL. A body longer than the budget, or than the Content-Length the server declared,
// stops the moment the excess arrives; a declared length beyond the budget or the free disk is refused before the
// first byte. The callers check hashes of what they stream.
import { statfs } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { ModelInstallError } from './model-install-error.js';

export interface Download {
  body: Readable;
  /** The Content-Length the server sent (0: none). */
  contentLength: number;
}

export interface DownloadLimits {
  timeoutMs: number;
  /** The most bytes the body may have (what the file can legitimately be). */
  maxBytes: number;
  /** The folder the file is written to: a declared length larger than its free space is refused up front. */
  dir?: string;
}

/** Space left on the disk of `dir` for a download (a margin kept for the database and logs beside it). */
const DISK_MARGIN_BYTES = 256 * 1024 * 1024;

export async function openDownload(url: string, label: string, limits: DownloadLimits): Promise<Download> {
  let res: Response;
  const abort = new AbortController();
  const deadline = setTimeout(() => abort.abort(new Error(`no complete answer in ${limits.timeoutMs / 1000} s`)), limits.timeoutMs);
  deadline.unref();
  try {
    res = await fetch(url, { signal: abort.signal });
  } catch (err) {
    clearTimeout(deadline);
    const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message;
    throw new ModelInstallError(`cannot download ${label} from ${url} (${cause})`);
  }
  const refuse = (why: string) => {
    clearTimeout(deadline);
    abort.abort();
    return new ModelInstallError(`cannot download ${label} from ${url}: ${why}`);
  };
  if (!res.ok || !res.body) throw refuse(`HTTP ${res.status}`);
  // With a content coding, Content-Length counts the coded bytes, not the body fetch hands over: no budget from it.
  const coded = (res.headers.get('content-encoding') ?? 'identity').toLowerCase() !== 'identity';
  const contentLength = coded ? 0 : Number(res.headers.get('content-length') ?? 0) || 0;
  if (contentLength > limits.maxBytes) throw refuse(`the server declares ${contentLength} bytes, more than the ${limits.maxBytes} such a file may be; nothing was installed`);
  if (limits.dir && contentLength > 0) {
    const disk = await statfs(limits.dir).catch(() => undefined);
    const free = disk ? disk.bavail * disk.bsize - DISK_MARGIN_BYTES : Infinity;
    if (contentLength > free) throw refuse(`it is ${contentLength} bytes and ${limits.dir} has ${Math.max(0, free)} bytes to spare; nothing was installed`);
  }
  const limit = contentLength || limits.maxBytes;
  let received = 0;
  const body = Readable.from(
    (async function* bounded() {
      try {
        for await (const chunk of Readable.fromWeb(res.body as ReadableStream<Uint8Array>) as AsyncIterable<Buffer>) {
          received += chunk.length;
          if (received > limit) {
            throw refuse(`it sent more than the ${limit} bytes ${contentLength ? 'its server declared' : 'such a file may be'}; stopped there, nothing was installed`);
          }
          yield chunk;
        }
      } finally {
        clearTimeout(deadline);
      }
    })(),
    { objectMode: false },
  );
  return { body, contentLength };
}
