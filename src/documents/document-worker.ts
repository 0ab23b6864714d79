// The job runner: claims queued documents from the store (bounded concurrency, off the request path), keeps a lease
// alive while translating, and always ends a job in `done` or `error`; expired leases are reclaimed after a crash.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ServiceError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { DocumentRepository, DocumentRow } from '../store/repositories/document-repository.js';
import type { PreparedTranslation, TranslationCore } from '../translate/translation-core.js';
import { baseLang, toApiCode } from '../translate/languages.js';
import type { Formality } from '../translate/translate-request.js';
import { decryptStream, encryptStream, unwrapKey } from './crypto.js';
import type { DocumentStore } from './document-files.js';
import { documentSpec } from './document-request.js';
import { FormatThreads, type ThreadDocument } from './format-threads.js';
import { DocumentFormatError, type DocumentFormat, type DocumentFormats, type ExtractedDocument } from './formats/index.js';

/** A job is given up after this many claims (each crash of its worker costs one). */
export const MAX_ATTEMPTS = 3;
export const SOURCE_EQUALS_TARGET = 'Source and target language are equal.';
const CHUNK_SEGMENTS = 40;
const CHUNK_CHARACTERS = 8000;
const ENGINE_RETRIES = 3;
/** Chunks of one document translated at once (the engine keeps two warm pipelines per pair by default). */
const CHUNKS_IN_FLIGHT = 4;
const DETECTION_SAMPLE = 2000;

export interface DocumentWorkerOptions {
  repository: DocumentRepository;
  files: DocumentStore;
  formats: DocumentFormats;
  translate: TranslationCore;
  logger: Logger;
  now: () => number;
  concurrency: number;
  leaseMs: number;
  /** How often idle workers look for jobs queued by other nodes (uploads on this node wake them at once). */
  pollIntervalMs: number;
  /** Format work (extraction, rebuilding: run in worker threads) one job may take before it ends in `error`. */
  formatTimeoutMs: number;
}

/** Heap of one format thread: far more than a 10 MB document needs, far less than it takes to bring a node down. */
const FORMAT_THREAD_HEAP_MB = 2048;

class JobFailure extends Error {}

type Progress = { done: number; total: number };
/** Translates a document's texts in order, with the sentence splitting its format asks for. */
type SegmentTranslator = (splitSentences: '1' | 'nonewlines') => (texts: string[]) => Promise<string[]>;

/** Reads and decrypts a stored upload; a missing or damaged file rejects (pipeline forwards every stage's error). */
async function readDecrypted(files: DocumentStore, id: string, documentKey: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await pipeline(await files.read(id, 'upload'), decryptStream(documentKey, 'upload'), async (source: AsyncIterable<Buffer>) => {
    for await (const c of source) chunks.push(c);
  });
  return Buffer.concat(chunks);
}

export class DocumentWorker {
  readonly owner = `w-${randomBytes(6).toString('hex')}`;
  private active = 0;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private claiming = false;
  private wakeAgain = false;
  private readonly jobs = new Set<Promise<void>>();
  private readonly aborts = new Set<AbortController>();
  /** Emits the id of every job this node ends (done or error), so status requests can answer at once. */
  readonly ended = new EventEmitter().setMaxListeners(0);

  private readonly threads: FormatThreads;

  constructor(private readonly o: DocumentWorkerOptions) {
    this.threads = new FormatThreads({ budgetMs: o.formatTimeoutMs, maxHeapMb: FORMAT_THREAD_HEAP_MB });
  }

  start(): void {
    if (this.running || this.o.concurrency <= 0) return;
    this.running = true;
    // names the lease owner in the documents table, so an operator can tell which node holds a job
    this.o.logger.info({ worker: this.owner }, 'document worker started');
    this.timer = setInterval(() => this.wake(), this.o.pollIntervalMs);
    this.timer.unref();
    this.wake();
  }

  /**
   * A document is arriving: start a format thread now, while its bytes are received, so its job need not wait for
   * one to load the formats. Not done at start: an idle thread holding every format costs ~50 MiB.
   */
  prepare(): void {
    if (this.running) this.threads.warm();
  }

  /** Looks for work now (called on upload, so a small document is done before the client's first poll). */
  wake(): void {
    if (!this.running) return;
    if (this.claiming) {
      this.wakeAgain = true;
      return;
    }
    this.claiming = true;
    void this.fill().finally(() => {
      this.claiming = false;
      if (this.wakeAgain) {
        this.wakeAgain = false;
        this.wake();
      }
    });
  }

  private async fill(): Promise<void> {
    while (this.running && this.active < this.o.concurrency) {
      let row: DocumentRow | undefined;
      try {
        row = await this.o.repository.claimNext(this.owner, this.o.now(), this.o.leaseMs);
      } catch (err) {
        this.o.logger.error({ err }, 'document queue: claim failed');
        return;
      }
      if (!row) return;
      this.active++;
      const job = this.run(row).finally(() => {
        this.active--;
        this.jobs.delete(job);
        this.wake();
      });
      this.jobs.add(job);
    }
  }

  async close(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    // Running jobs stop at their next chunk and are handed back to the queue for another worker or node.
    for (const a of this.aborts) a.abort();
    await Promise.allSettled([...this.jobs]);
    await this.threads.close();
  }

  private async run(row: DocumentRow): Promise<void> {
    const abort = new AbortController();
    this.aborts.add(abort);
    const progress = { done: 0, total: 0 };
    const beat = setInterval(() => {
      void this.o.repository
        .heartbeat(row.id, this.owner, this.o.now() + this.o.leaseMs, progress)
        .then((ok) => {
          if (!ok) abort.abort();
        })
        .catch(() => {});
    }, Math.max(50, Math.floor(this.o.leaseMs / 3)));
    beat.unref();
    try {
      const result = await this.translateJob(row, progress, abort.signal);
      const ok = await this.o.repository.finish(row.id, this.owner, {
        status: 'done',
        result_bytes: result.bytes,
        billed_characters: result.billed,
        notice: result.notice ?? null,
        segments_done: progress.total,
        segments_total: progress.total,
        finished_at: this.o.now(),
      });
      if (ok) await this.o.files.remove(row.id, ['upload']);
    } catch (err) {
      if (abort.signal.aborted && !this.running) return await this.handBack(row); // shutting down
      const message = this.messageFor(err, row);
      if (!(err instanceof JobFailure) && !(err instanceof DocumentFormatError) && !(err instanceof ServiceError)) {
        this.o.logger.error({ err, document_id: row.id }, 'document translation failed');
      }
      await this.o.repository
        .finish(row.id, this.owner, { status: 'error', error_message: message, finished_at: this.o.now() })
        .then((ok) => (ok ? this.o.files.remove(row.id) : undefined))
        .catch((e) => this.o.logger.error({ err: e, document_id: row.id }, 'document queue: could not record an error'));
    } finally {
      clearInterval(beat);
      this.aborts.delete(abort);
      this.ended.emit('ended', row.id);
    }
  }

  /** Shutdown: the job goes back to the queue at once (no lease to wait out); a failed hand-back leaves the lease to expire. */
  private async handBack(row: DocumentRow): Promise<void> {
    await this.o.repository
      .handBack(row.id, this.owner)
      .then((ok) => ok && this.o.logger.info({ document_id: row.id }, 'document job handed back for another worker'))
      .catch((err) => this.o.logger.error({ err, document_id: row.id }, 'document queue: could not hand a job back'));
  }

  private messageFor(err: unknown, row: DocumentRow): string {
    if (err instanceof JobFailure || err instanceof DocumentFormatError) return err.message;
    if (err instanceof ServiceError) return err.message;
    if (row.attempts > 1) return 'The document could not be translated after a server restart. Please upload it again.';
    return 'The document could not be translated because of an internal error.';
  }

  /**
   * One job, step by step: check it can run, read the upload, extract its text (format thread), prepare the
   * translation through the core, translate and rebuild, store the encrypted result.
   */
  private async translateJob(row: DocumentRow, progress: Progress, signal: AbortSignal): Promise<{ bytes: number; billed: number; notice?: string }> {
    const format = this.runnableFormat(row);
    const { documentKey, input } = await this.openUpload(row);
    const doc = await this.extract(row, format, input, signal);
    try {
      if (doc.segments.length === 0 || doc.characters === 0) throw new JobFailure('The document contains no text to translate.');
      progress.total = doc.segments.length;
      const prepared = await this.prepareTranslation(row, doc);
      const output = await this.translateDocument(row, format, doc, this.segmentTranslator(prepared, progress, signal));
      await this.storeResult(row, documentKey, output);
      const billed = doc.billedCharacters ?? Math.max(doc.characters, format.minimumBilledCharacters);
      return { bytes: output.length, billed, ...(doc.notice !== undefined ? { notice: doc.notice } : {}) };
    } finally {
      doc.release();
    }
  }

  /** The job's format, when the job may still run (attempts left, key kept, format installed). */
  private runnableFormat(row: DocumentRow): DocumentFormat {
    if (row.attempts > MAX_ATTEMPTS) {
      throw new JobFailure('Translation was interrupted too many times (server restarts). Please upload the document again.');
    }
    if (!row.wrapped_key) throw new JobFailure('The document key is no longer available. Please upload the document again.');
    const format = this.o.formats.byId(row.format);
    if (!format) throw new JobFailure(`The document format '${row.format}' is not supported by this server.`);
    return format;
  }

  /** The document key unwrapped and the upload decrypted. */
  private async openUpload(row: DocumentRow): Promise<{ documentKey: string; input: Buffer }> {
    let documentKey: string;
    try {
      documentKey = unwrapKey(await this.o.files.keyEncryptionKey(), row.wrapped_key!, row.id);
    } catch (err) {
      throw new JobFailure(`The document could not be decrypted: ${(err as Error).message}. Please upload it again.`);
    }
    try {
      return { documentKey, input: await readDecrypted(this.o.files, row.id, documentKey) };
    } catch {
      throw new JobFailure('The uploaded document could not be read. Please upload it again.');
    }
  }

  /** Parsing (and later rebuilding) run in a worker thread under the job's time budget; translation stays here. */
  private extract(row: DocumentRow, format: DocumentFormat, input: Buffer, signal: AbortSignal): Promise<ThreadDocument> {
    const langAttribute = toApiCode(row.target_lang).replace(/^([A-Z]+)/u, (l) => l.toLowerCase());
    const options = { targetLang: langAttribute, watermark: row.watermark === 1, ...(row.source_lang ? { sourceLang: row.source_lang } : {}) };
    return this.threads.extract(format.id, input, options, signal);
  }

  /**
   * The same validation as /v2/translate (source detected from the document's beginning when not given, pair,
   * formality), then the upload's glossaries, style rule list and translation memory, loaded once for the document.
   */
  private async prepareTranslation(row: DocumentRow, doc: ExtractedDocument): Promise<PreparedTranslation> {
    const target = row.target_lang;
    let source = row.source_lang ?? undefined;
    if (source === undefined) {
      let sample = '';
      for (const s of doc.segments) {
        if (sample.length >= DETECTION_SAMPLE) break;
        sample += `${s.text}\n`;
      }
      source = this.o.translate.detectSource(sample, target);
    }
    if (source === baseLang(target)) throw new JobFailure(SOURCE_EQUALS_TARGET);
    const spec = documentSpec({
      targetLang: target,
      sourceLang: source,
      formality: row.formality as Formality,
      glossaryIds: JSON.parse(row.glossary_ids) as string[],
      styleId: row.style_id ?? undefined,
      translationMemoryId: row.translation_memory_id ?? undefined,
      translationMemoryThreshold: row.translation_memory_threshold ?? undefined,
    });
    return this.o.translate.prepare(row.account_id, spec).catch((err: unknown) => {
      // a glossary, style rule list or memory deleted since the upload: the job ends with the reason
      throw err instanceof ServiceError ? new JobFailure(err.message) : err;
    });
  }

  /**
   * Plain-text translation in bounded chunks with progress; markup formats call it for their tagged units. A few
   * chunks are in flight at once, so every warm pipeline of the pair is busy; results keep their order.
   */
  private segmentTranslator(prepared: PreparedTranslation, progress: Progress, signal: AbortSignal): SegmentTranslator {
    return (splitSentences) => async (texts) => {
      const pending = [...chunks(texts)];
      const results: string[][] = new Array(pending.length);
      let next = 0;
      const lane = async () => {
        for (let i = next++; i < pending.length; i = next++) {
          if (signal.aborted) throw new JobFailure('Translation was cancelled.');
          const chunk = pending[i]!;
          results[i] = await this.withRetries(() => this.o.translate.translateSegments(prepared, chunk, { splitSentences, signal }));
          progress.done += chunk.length;
          progress.total = Math.max(progress.total, progress.done);
        }
      };
      await Promise.all(Array.from({ length: Math.min(CHUNKS_IN_FLIGHT, pending.length) }, lane));
      return results.flat();
    };
  }

  /** The translated document: rebuilt from translated segments, by the format itself (markup), or converted. */
  private async translateDocument(row: DocumentRow, format: DocumentFormat, doc: ExtractedDocument, translator: SegmentTranslator): Promise<Buffer> {
    // output_format names another format (a conversion the format declared at upload): its segments, then rebuildAs
    const convertTo = row.output_format !== format.id ? row.output_format : undefined;
    if (convertTo !== undefined && !doc.rebuildAs) throw new JobFailure(`Conversion from '${format.id}' to '${convertTo}' is not supported.`);
    const texts = () => doc.segments.map((s) => s.text);
    if (convertTo !== undefined) return doc.rebuildAs!(convertTo, await translator('1')(texts()));
    if (doc.translateWith) return doc.translateWith(translator('nonewlines'));
    return doc.rebuild(await translator('1')(texts()));
  }

  private async storeResult(row: DocumentRow, documentKey: string, output: Buffer): Promise<void> {
    await pipeline(Readable.from([output]), encryptStream(documentKey, 'result'), (sealed: AsyncIterable<Buffer>) => this.o.files.write(row.id, 'result', sealed));
  }

  /** Busy or slow engines are retried a few times before the job fails. */
  private async withRetries<T>(fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        const retryable = err instanceof ServiceError && (err.code === 'engine_timeout' || err.code === 'overloaded');
        if (!retryable || attempt >= ENGINE_RETRIES) throw err;
        await new Promise((r) => setTimeout(r, 250 * attempt));
      }
    }
  }
}

/** Engine calls of bounded size, so progress is reported and no single call hits the engine time limit. */
function* chunks(texts: string[]): Generator<string[]> {
  let current: string[] = [];
  let size = 0;
  for (const t of texts) {
    if (current.length > 0 && (current.length >= CHUNK_SEGMENTS || size + t.length > CHUNK_CHARACTERS)) {
      yield current;
      current = [];
      size = 0;
    }
    current.push(t);
    size += t.length;
  }
  if (current.length > 0) yield current;
}
