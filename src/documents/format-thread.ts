// The worker-thread side of document jobs: parses (extract) and rebuilds one document at a time with the built-in
// formats, so no document can block the server's event loop. Text goes to the main thread for translation
// (message `translate`), which answers with `translated`; format-threads.ts is the other side.
import { parentPort, workerData } from 'node:worker_threads';
import { builtFormats, DocumentFormatError, DocumentFormats, type ExtractedDocument, type ExtractOptions, type PixelLimits } from './formats/index.js';
import { TesseractRecognizer } from './ocr/tesseract-recognizer.js';

export type ToThread =
  | { op: 'extract'; format: string; input: Uint8Array; options: ExtractOptions }
  | { op: 'rebuild'; translations: string[] }
  | { op: 'rebuildAs'; outputFormat: string; translations: string[] }
  | { op: 'translateWith'; outputFormat?: string }
  | { op: 'translated'; id: number; texts?: string[] }
  /** The job ended (cancelled, over budget): stop its child processes (OCR) before the thread is terminated. */
  | { op: 'abort' };

export type FromThread =
  | { kind: 'extracted'; segments: ExtractedDocument['segments']; characters: number; billedCharacters?: number; notice?: string; translateWith: boolean; rebuildAs: boolean }
  | { kind: 'output'; bytes: Uint8Array }
  | { kind: 'translate'; id: number; texts: string[] }
  | { kind: 'failed'; formatError: boolean; message: string; stack?: string };

const port = parentPort!;
/** What format-threads.ts starts a thread with. */
export interface ThreadData {
  limits?: PixelLimits;
}

// This thread's own composition: the formats and the OCR recognizer the image formats share, within the pixel limits.
const formats = new DocumentFormats(builtFormats(new TesseractRecognizer(), (workerData as ThreadData | undefined)?.limits));
let doc: ExtractedDocument | undefined;
let nextId = 0;
/** Aborted when the main thread gives up on the current job: a thread's termination would not end its children. */
let jobAbort = new AbortController();
const waiting = new Map<number, { resolve: (t: string[]) => void; reject: (e: Error) => void }>();

/** Plain-text translation through the main thread; a failure there (already reported by it) ends the job. */
function translate(texts: string[]): Promise<string[]> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    port.postMessage({ kind: 'translate', id, texts } satisfies FromThread);
  });
}

function send(message: FromThread, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
}

/** The result as an own ArrayBuffer, moved (not copied) to the main thread. */
function sendOutput(out: Buffer): void {
  const bytes = new Uint8Array(out.length);
  bytes.set(out);
  send({ kind: 'output', bytes }, [bytes.buffer]);
}

async function handle(m: Exclude<ToThread, { op: 'translated' } | { op: 'abort' }>): Promise<void> {
  if (m.op === 'extract') {
    const format = formats.byId(m.format);
    if (!format) throw new DocumentFormatError(`The document format '${m.format}' is not supported by this server.`);
    const input = Buffer.from(m.input.buffer, m.input.byteOffset, m.input.byteLength);
    jobAbort = new AbortController();
    doc = await format.extract(input, { ...m.options, signal: jobAbort.signal });
    send({
      kind: 'extracted',
      segments: doc.segments,
      characters: doc.characters,
      ...(doc.billedCharacters !== undefined ? { billedCharacters: doc.billedCharacters } : {}),
      ...(doc.notice !== undefined ? { notice: doc.notice } : {}),
      translateWith: doc.translateWith !== undefined,
      rebuildAs: doc.rebuildAs !== undefined,
    });
    return;
  }
  const current = doc;
  doc = undefined; // one rebuild per extraction
  if (!current) throw new Error('no document was extracted');
  if (m.op === 'rebuild') sendOutput(await current.rebuild(m.translations));
  else if (m.op === 'rebuildAs') sendOutput(await current.rebuildAs!(m.outputFormat, m.translations));
  else sendOutput(await current.translateWith!(translate, m.outputFormat));
}

port.on('message', (m: ToThread) => {
  if (m.op === 'abort') {
    jobAbort.abort();
    return;
  }
  if (m.op === 'translated') {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.texts) w?.resolve(m.texts);
    else w?.reject(new Error('translation failed'));
    return;
  }
  handle(m).catch((err: unknown) => {
    doc = undefined;
    const e = err as Error;
    const formatError = err instanceof DocumentFormatError;
    send({ kind: 'failed', formatError, message: String(e?.message ?? err), ...(formatError ? {} : { stack: e?.stack }) });
  });
});
