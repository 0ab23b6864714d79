// The documents' job handler on the one job system (src/jobs): the runner claims queued documents under a lease with
// bounded concurrency; this translates one and always ends it in `done` or `error` (or hands it back at shutdown).
import type { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { JobRunner, type JobQueue, type RunningJob } from '../jobs/job-runner.js';
import { ServiceError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { DocumentRepository, DocumentRow } from '../store/repositories/document-repository.js';
import type { PreparedTranslation, TranslationCore } from '../translate/translation-core.js';
import { baseLang, toApiCode } from '../translate/languages.js';
import type { Formality } from '../translate/translate-job.js';
import { decryptStream, encryptStream, unwrapKey } from './crypto.js';
import type { DocumentStore } from './document-files.js';
import { documentSpec } from './document-request.js';
import { FormatThreads, type ThreadDocument } from './format-threads.js';
import { DocumentFormatError, type ArchiveLimits, type DocumentFormat, type DocumentFormats, type ExtractedDocument, type ExtractOptions, type PixelLimits } from './formats/index.js';

/** A job is given up after this many claims (each crash of its worker costs one). */
export const MAX_ATTEMPTS = 3;
export const SOURCE_EQUALS_TARGET = 'Source and target language are equal.';
const INTERRUPTED_BY_RESTARTS = 'The document could not be translated after a server restart. Please upload it again.';
const INTERNAL_FAILURE = 'The document could not be translated because of an internal error.';
/** Error messages of jobs that failed through the server's fault, not the document's or the request's. */
export const SERVER_FAULTS: ReadonlySet<string> = new Set([INTERRUPTED_BY_RESTARTS, INTERNAL_FAILURE]);
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
  /** Heap of one format thread in MB: a document that needs more ends in `error` instead of exhausting the server. */
  formatMemoryMb: number;
  /** Pixels one job may draw and decode (pages, images): native memory, outside the thread's heap limit. */
  pixelLimits: PixelLimits;
  /** Limits of zip-based documents, handed to the format with each job. */
  archiveLimits?: ArchiveLimits;
  /** Told how each job this node runs ends (for the metrics). */
  onJobEnded?: (outcome: 'done' | 'error') => void;
}

/**
 * Default heap of one format thread (TOLK_DOCUMENT_MEMORY_MB): several times what a 100 MB document needs, and with
 * two jobs at once (the default) well short of what brings a node down.
 */
export const DEFAULT_FORMAT_MEMORY_MB = 1024;

class JobFailure extends Error {}

type Progress = RunningJob['progress'];

/** The documents table as the job system's queue: `queued` rows, and `translating` ones whose lease expired. */
export function documentQueue(repository: DocumentRepository): JobQueue<DocumentRow> {
  return {
    claimNext: (owner, now, leaseMs) => repository.claimNext(owner, now, leaseMs),
    renew: (id, owner, leaseExpiresAt, progress) => repository.heartbeat(id, owner, leaseExpiresAt, progress),
    handBack: (id, owner) => repository.handBack(id, owner),
  };
}
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
  private readonly runner: JobRunner<DocumentRow>;
  private readonly threads: FormatThreads;

  constructor(private readonly o: DocumentWorkerOptions) {
    this.threads = new FormatThreads({ budgetMs: o.formatTimeoutMs, maxHeapMb: o.formatMemoryMb, limits: o.pixelLimits });
    this.runner = new JobRunner({
      name: 'w',
      label: 'document',
      idField: 'document_id',
      queue: documentQueue(o.repository),
      handler: (row, running) => this.run(row, running),
      idOf: (row) => row.id,
      concurrency: o.concurrency,
      leaseMs: o.leaseMs,
      pollIntervalMs: o.pollIntervalMs,
      now: o.now,
      logger: o.logger,
    });
  }

  /** The lease owner written in the documents table while this node translates a job. */
  get owner(): string {
    return this.runner.owner;
  }

  /** Emits the id of every job this node ends (done or error) or hands back, so status requests can answer at once. */
  get ended(): EventEmitter {
    return this.runner.ended;
  }

  start(): void {
    this.runner.start();
  }

  /**
   * A document is arriving: start a format thread now, while its bytes are received, so its job need not wait for
   * one to load the formats. Not done at start: an idle thread holding every format costs ~50 MiB.
   */
  prepare(): void {
    if (this.runner.started) this.threads.warm();
  }

  /** Looks for work now (called on upload, so a small document is done before the client's first poll). */
  wake(): void {
    this.runner.wake();
  }

  async close(): Promise<void> {
    // Running jobs stop at their next chunk and are handed back to the queue for another worker or node.
    await this.runner.close();
    await this.threads.close();
  }

  /** One claimed job: translated and stored, or ended in `error` with the reason (unless the node is closing). */
  private async run(row: DocumentRow, running: RunningJob): Promise<void> {
    const { progress, signal, owner } = running;
    try {
      const result = await this.translateJob(row, progress, signal);
      const ok = await this.o.repository.finish(row.id, owner, {
        status: 'done',
        result_bytes: result.bytes,
        billed_characters: result.billed,
        notice: result.notice ?? null,
        segments_done: progress.total,
        segments_total: progress.total,
        finished_at: this.o.now(),
      });
      if (ok) {
        this.o.onJobEnded?.('done');
        await this.o.files.remove(row.id, ['upload']);
      }
    } catch (err) {
      if (signal.aborted && running.closing) return; // the runner hands it back
      const message = this.messageFor(err, row);
      if (!(err instanceof JobFailure) && !(err instanceof DocumentFormatError) && !(err instanceof ServiceError)) {
        this.o.logger.error({ err, document_id: row.id }, 'document translation failed');
      }
      await this.o.repository
        .finish(row.id, owner, { status: 'error', error_message: message, finished_at: this.o.now() })
        .then((ok) => {
          if (!ok) return;
          this.o.onJobEnded?.('error');
          return this.o.files.remove(row.id);
        })
        .catch((e) => this.o.logger.error({ err: e, document_id: row.id }, 'document queue: could not record an error'));
    }
  }

  private messageFor(err: unknown, row: DocumentRow): string {
    if (err instanceof JobFailure || err instanceof DocumentFormatError) return err.message;
    if (err instanceof ServiceError) return err.message;
    return row.attempts > 1 ? INTERRUPTED_BY_RESTARTS : INTERNAL_FAILURE;
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
    const options: ExtractOptions = {
      targetLang: langAttribute,
      watermark: row.watermark === 1,
      ...(row.source_lang ? { sourceLang: row.source_lang } : {}),
      ...(this.o.archiveLimits ? { archiveLimits: this.o.archiveLimits } : {}),
    };
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
      source = await this.o.translate.detectSource(sample, target);
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
    // output_format names another format (a conversion the format declared at upload), built by the same path
    const convertTo = row.output_format !== format.id ? row.output_format : undefined;
    if (convertTo !== undefined && !doc.rebuildAs) throw new JobFailure(`Conversion from '${format.id}' to '${convertTo}' is not supported.`);
    if (doc.translateWith) return doc.translateWith(translator('nonewlines'), convertTo);
    const texts = doc.segments.map((s) => s.text);
    return convertTo !== undefined ? doc.rebuildAs!(convertTo, await translator('1')(texts)) : doc.rebuild(await translator('1')(texts));
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
        const retryable = err instanceof ServiceError && (err.code === 'engine_timeout' || err.code === 'overloaded' || err.code === 'too_many_requests');
        if (!retryable || attempt >= ENGINE_RETRIES) throw err;
        // a busy language model says when to come back (a minute at most)
        const pauseMs = err.code === 'too_many_requests' ? Math.min(60, err.details?.retryAfterSeconds ?? 1) * 1000 : 250 * attempt;
        await new Promise((r) => setTimeout(r, pauseMs));
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
