// Document translation: upload (streamed and encrypted while it arrives), status, download once with billing, the
// job queue's lifecycle (start, recovery, retention purge). The HTTP layer only parses requests and writes replies.
import { Transform, pipeline as pipelineStreams, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import { ServiceError, invalid, notFound } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { AccountsService, AuthContext } from '../accounts/accounts-service.js';
import { toKey } from '../accounts/accounts-service.js';
import type { UsageService } from '../accounts/usage-service.js';
import type { AccountsRepository } from '../store/repositories/accounts-repository.js';
import type { DocumentRepository, DocumentRow } from '../store/repositories/document-repository.js';
import type { TranslationCore } from '../translate/translation-core.js';
import { decryptStream, encryptStream, keyVerifier, newDocumentId, newDocumentKey, verifyKey, wrapKey } from './crypto.js';
import { StoredFileMissing, type DocumentStore } from './document-files.js';
import { documentSpec, type DocumentRequest } from './document-request.js';
import { DEFAULT_FORMAT_MEMORY_MB, DocumentWorker, SERVER_FAULTS } from './document-worker.js';
import { DEFAULT_PIXEL_LIMITS, DocumentFormats, type ArchiveLimits, type DocumentFormat, type PixelLimits } from './formats/index.js';

export const DOCUMENT_NOT_FOUND = 'Document not found';
export const DOCUMENT_NOT_DONE = 'Document translation is not done';
export const INVALID_FILE = 'Invalid file data.';

export interface DocumentServiceOptions {
  /** The document rows: state, lease, billing. */
  repository: DocumentRepository;
  /** Where uploads and results live: this node's disk, or the database (shared by every node). */
  files: DocumentStore;
  /** The uploading key's current limits, read when its document is charged. */
  keys: Pick<AccountsRepository, 'getKey'>;
  accounts: AccountsService;
  usage: UsageService;
  translate: TranslationCore;
  /** Concurrent translation jobs on this node (0 = this node never translates documents). */
  workers: number;
  /** Documents not downloaded are purged this long after upload. */
  retentionMs: number;
  /** Format work (parsing, rebuilding) one job may take; then it ends in `error`. Default 2 minutes. */
  formatTimeoutMs?: number;
  /** Heap of one format thread in MB (default DEFAULT_FORMAT_MEMORY_MB). */
  formatMemoryMb?: number;
  /** Pixels one job may draw and decode (default DEFAULT_PIXEL_LIMITS). */
  pixelLimits?: PixelLimits;
  /** Limits of zip-based documents (default: the formats' own, DEFAULT_ARCHIVE_LIMITS). */
  archiveLimits?: ArchiveLimits;
  /** Told how each document job this node runs ends (done or error), for the metrics. */
  onJobEnded?: (outcome: 'done' | 'error') => void;
  logger: Logger;
  now?: () => number;
  leaseMs?: number;
  pollIntervalMs?: number;
  purgeIntervalMs?: number;
  /** A status request for an unfinished document waits this long for it to end (default STATUS_HOLD_MS). */
  statusWaitMs?: number;
  formats?: DocumentFormats;
}

/**
 * How long a status request for an unfinished document is held. Both official clients poll right after upload, then
 * sleep 5 s between polls: a document done within the hold costs no 5 s sleep. Under deepl-node's default request
 * timeout (5 s; deepl-python's is 10 s), so a held request never times out in the client.
 */
export const STATUS_HOLD_MS = 4000;

/** Where a document's translation is: waiting, under way (with an estimate), done (billed, perhaps with a notice), failed. */
export type DocumentState =
  | { status: 'queued' }
  | { status: 'translating'; secondsRemaining: number }
  /** `notice`: what was kept untranslated (e.g. PDF pages whose fonts cannot be read back). */
  | { status: 'done'; billedCharacters: number; notice?: string }
  /** `serverFault`: the server failed (an internal error), not the document or the request. */
  | { status: 'error'; errorMessage: string; serverFault: boolean };

/** An accepted upload: the document's id and the key the client needs for its status and result. */
export interface DocumentHandle {
  id: string;
  key: string;
}

export interface ReceivedFile {
  id: string;
  key: string;
  bytes: number;
}

export interface DocumentDownload {
  stream: Readable;
  contentType: string;
  bytes: number;
  /** Call when the client has received the response: the document is charged and deleted. */
  complete(): Promise<void>;
  /** Call when the response failed: the document can be downloaded again (not billed twice). */
  release(): Promise<void>;
}

/** The format id the result is written in: the upload's own, or a conversion the format declares (400 otherwise). */
function outputFormatFor(format: DocumentFormat, requested: string | undefined): string {
  if (requested === undefined || requested === format.id || format.extensions.includes(requested)) return format.id;
  if (format.outputFormats?.includes(requested)) return requested;
  throw invalid(`Conversion from '${format.id}' to '${requested}' is not supported.`);
}

export class DocumentService {
  readonly formats: DocumentFormats;
  readonly repository: DocumentRepository;
  readonly files: DocumentStore;
  private readonly worker: DocumentWorker;
  private readonly now: () => number;
  private readonly leaseMs: number;
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: DocumentServiceOptions) {
    this.formats = o.formats ?? new DocumentFormats();
    this.repository = o.repository;
    this.now = o.now ?? Date.now;
    this.files = o.files;
    this.leaseMs = o.leaseMs ?? 30_000;
    this.worker = new DocumentWorker({
      repository: this.repository,
      files: this.files,
      formats: this.formats,
      translate: o.translate,
      logger: o.logger,
      now: this.now,
      concurrency: o.workers,
      leaseMs: this.leaseMs,
      pollIntervalMs: o.pollIntervalMs ?? 2_000,
      formatTimeoutMs: o.formatTimeoutMs ?? 120_000,
      formatMemoryMb: o.formatMemoryMb ?? DEFAULT_FORMAT_MEMORY_MB,
      pixelLimits: o.pixelLimits ?? DEFAULT_PIXEL_LIMITS,
      ...(o.archiveLimits ? { archiveLimits: o.archiveLimits } : {}),
      ...(o.onJobEnded ? { onJobEnded: o.onJobEnded } : {}),
    });
  }

  /** Starts the workers (which first pick up jobs a previous run left behind) and the retention purge. */
  async start(): Promise<void> {
    await this.repository.releaseStaleDownloads(this.now());
    this.worker.start();
    const interval = this.o.purgeIntervalMs ?? 10 * 60_000;
    this.purgeTimer = setInterval(() => void this.purgeExpired().catch((err) => this.o.logger.error({ err }, 'document purge failed')), interval);
    this.purgeTimer.unref();
    void this.purgeExpired().catch((err) => this.o.logger.error({ err }, 'document purge failed'));
  }

  async close(): Promise<void> {
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    await this.worker.close();
  }

  /** Streams an upload to the document store, encrypted as it arrives; never holds the file in memory. */
  async receiveFile(file: Readable, maxBytes: number): Promise<ReceivedFile> {
    this.worker.prepare();
    const id = newDocumentId();
    const key = newDocumentKey();
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        if (bytes > maxBytes) done(new ServiceError('payload_too_large', `Document too large: at most ${maxBytes} bytes.`));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(file, counter, encryptStream(key, 'upload'), (encrypted: AsyncIterable<Buffer>) => this.files.write(id, 'part', encrypted));
    } catch (err) {
      await this.files.remove(id);
      throw err;
    }
    return { id, key, bytes };
  }

  async discard(file: ReceivedFile): Promise<void> {
    await this.files.remove(file.id);
  }

  /** The format for an upload's file name: 400 for unknown extensions, a clear 400 for formats not built yet. */
  formatFor(fileName: string | undefined): DocumentFormat {
    if (!fileName) throw invalid(INVALID_FILE);
    const format = this.formats.forFileName(fileName);
    if (format === undefined) throw invalid(INVALID_FILE);
    if (format === 'planned') {
      const ext = /\.([^.]+)$/.exec(fileName)![1]!.toLowerCase();
      throw new ServiceError('feature_not_available', `Document format '${ext}' is not supported by this server yet.`);
    }
    return format;
  }

  /** Validates and queues an uploaded file; the caller discards the file when this throws. */
  async enqueue(ctx: AuthContext, file: ReceivedFile, fileName: string | undefined, req: DocumentRequest, reportingTag: string | null): Promise<DocumentHandle> {
    const format = this.formatFor(fileName);
    if (file.bytes > format.maxBytes) {
      throw new ServiceError('payload_too_large', `Document too large: ${format.id} documents may have at most ${format.maxBytes} bytes.`);
    }
    if (file.bytes === 0) throw invalid(INVALID_FILE);
    const outputFormat = outputFormatFor(format, req.outputFormat);
    // Same validation as text: language pair, formality; glossaries, style rule list and memory exist and fit the
    // pair (404/400 at upload, not later as a failed job).
    await this.o.translate.prepare(ctx.account.id, documentSpec(req));
    await this.o.usage.assertCharactersAvailable(ctx, Math.max(1, format.minimumBilledCharacters));
    const now = this.now();
    const row: DocumentRow = {
      id: file.id,
      account_id: ctx.account.id,
      key_id: ctx.key.id,
      status: 'queued',
      format: format.id,
      output_format: outputFormat,
      source_lang: req.sourceLang ?? null,
      target_lang: req.targetLang,
      formality: req.formality,
      watermark: req.enableWatermark ? 1 : 0,
      glossary_ids: JSON.stringify(req.glossaryIds),
      style_id: req.styleId ?? null,
      translation_memory_id: req.translationMemoryId ?? null,
      translation_memory_threshold: req.translationMemoryThreshold ?? null,
      reporting_tag: reportingTag,
      key_verifier: keyVerifier(file.key, file.id),
      wrapped_key: wrapKey(await this.files.keyEncryptionKey(), file.key, file.id),
      upload_bytes: file.bytes,
      result_bytes: null,
      billed_characters: null,
      charged: 0,
      error_message: null,
      notice: null,
      attempts: 0,
      lease_owner: null,
      lease_expires_at: null,
      segments_total: 0,
      segments_done: 0,
      created_at: now,
      started_at: null,
      finished_at: null,
    };
    await this.files.rename(file.id, 'part', 'upload');
    await this.repository.insert(row);
    this.worker.wake();
    return { id: file.id, key: file.key };
  }

  /**
   * The row when it exists, belongs to the account and the key is right; else 404 (a wrong key reveals nothing).
   * `ctx` null: a signed download URL stands for the uploading account.
   */
  private async authorized(ctx: AuthContext | null, id: string, key: string): Promise<DocumentRow> {
    const row = /^[0-9A-Fa-f]{32}$/.test(id) ? await this.repository.get(id.toUpperCase()) : undefined;
    if (!row || (ctx !== null && row.account_id !== ctx.account.id) || !verifyKey(key, row.id, row.key_verifier)) throw notFound(DOCUMENT_NOT_FOUND);
    return row;
  }

  async status(ctx: AuthContext, id: string, key: string): Promise<DocumentState> {
    let row = await this.authorized(ctx, id, key);
    if (row.status === 'queued' || row.status === 'translating') row = await this.awaitEnd(row);
    switch (row.status) {
      case 'queued':
        return { status: 'queued' };
      case 'translating':
        return { status: 'translating', secondsRemaining: this.secondsRemaining(row) };
      case 'done':
      case 'downloading':
        return { status: 'done', billedCharacters: row.billed_characters ?? 0, ...(row.notice ? { notice: row.notice } : {}) };
      default: {
        const errorMessage = row.error_message ?? 'The document could not be translated.';
        return { status: 'error', errorMessage, serverFault: SERVER_FAULTS.has(errorMessage) };
      }
    }
  }

  /**
   * Holds a status request until the document is done or STATUS_HOLD_MS have passed: a small document then answers
   * `done` at the client's first poll. Ends as soon as this node's worker finishes it; jobs on other nodes are seen
   * by re-reading the row.
   */
  private async awaitEnd(row: DocumentRow): Promise<DocumentRow> {
    const deadline = Date.now() + (this.o.statusWaitMs ?? STATUS_HOLD_MS);
    let current = row;
    while (Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const onEnd = (id: string) => {
          if (id === row.id) finish();
        };
        const timer = setTimeout(() => finish(), Math.min(100, Math.max(1, deadline - Date.now())));
        const finish = () => {
          clearTimeout(timer);
          this.worker.ended.off('ended', onEnd);
          resolve();
        };
        this.worker.ended.on('ended', onEnd);
      });
      const fresh = await this.repository.get(row.id);
      if (!fresh) return current;
      current = fresh;
      if (current.status !== 'queued' && current.status !== 'translating') break;
    }
    return current;
  }

  private secondsRemaining(row: DocumentRow): number {
    const elapsed = Math.max(0, this.now() - (row.started_at ?? this.now())) / 1000;
    if (row.segments_done > 0 && row.segments_total > 0) {
      return Math.max(1, Math.ceil((elapsed / row.segments_done) * (row.segments_total - row.segments_done)));
    }
    // Before the first chunk: roughly 2 ms per byte of text through the engines, at least a second.
    return Math.max(1, Math.ceil(row.upload_bytes / 20_000));
  }

  /**
   * Claims the result for one download. It is charged (once, to the uploading key with the upload's reporting tag) and
   * deleted by `complete`, which the caller runs only when the client has received it; `release` makes it
   * downloadable again, uncharged. `ctx` null: a signed URL's download, charged to the uploading key alone.
   */
  async download(ctx: AuthContext | null, id: string, key: string): Promise<DocumentDownload> {
    const row = await this.authorized(ctx, id, key);
    if (row.status === 'queued' || row.status === 'translating') throw new ServiceError('not_ready', DOCUMENT_NOT_DONE);
    if (row.status === 'error') throw new ServiceError('conflict', `Document translation failed: ${row.error_message ?? 'unknown error'}`);
    const owner = `d-${randomBytes(6).toString('hex')}`;
    const abandoned = row.status === 'downloading' && (row.lease_expires_at ?? 0) < this.now();
    if ((row.status !== 'done' && !abandoned) || !(await this.repository.claimDownload(row.id, owner, this.now(), this.leaseMs))) {
      throw notFound(DOCUMENT_NOT_FOUND);
    }
    // Renewed until the client has it or is gone (a slow client can take longer than a lease): only a download whose
    // node died is ever taken over by another request.
    const beat = setInterval(() => {
      void this.repository.renewDownload(row.id, owner, this.now() + this.leaseMs).catch(() => {});
    }, Math.max(50, Math.floor(this.leaseMs / 3)));
    beat.unref();
    const release = () => {
      clearInterval(beat);
      return this.repository.releaseDownload(row.id, owner);
    };
    let payer: AuthContext;
    let file: Readable;
    try {
      const uploader = (await this.contextForKey(row.account_id, row.key_id)) ?? ctx;
      if (!uploader) throw notFound(DOCUMENT_NOT_FOUND);
      payer = uploader;
      // 456 now rather than a download that cannot be charged once received
      if (!row.charged) await this.o.usage.assertCharactersAvailable(payer, row.billed_characters ?? 0);
      file = await this.files.read(row.id, 'result');
    } catch (err) {
      await release();
      if (!(err instanceof StoredFileMissing)) throw err;
      // e.g. a disk store on a node that does not share the documents directory: nothing is charged, the client may
      // retry elsewhere
      this.o.logger.error({ documentId: row.id }, 'document result file missing');
      throw new ServiceError('not_ready', 'The translated document is not available on this server.', { retryAfterSeconds: 5 });
    }
    const format = this.formats.byId(row.output_format);
    // pipeline(), not pipe(): a read error ends the response instead of being an unhandled 'error' event
    const stream = pipelineStreams(file, decryptStream(key as string, 'result'), () => {});
    return {
      stream,
      contentType: format?.contentType ?? 'application/octet-stream',
      bytes: row.result_bytes ?? 0,
      complete: async () => {
        clearInterval(beat);
        // the charge and the charged mark in one transaction: a re-download after a crash is never charged again
        if (!row.charged) {
          await this.o.usage.charge(payer, 'document_translation', row.billed_characters ?? 0, row.reporting_tag, (charge, limits) =>
            this.repository.chargeOnce(row.id, charge, limits),
          );
        }
        await this.repository.delete(row.id);
        await this.files.remove(row.id);
      },
      release,
    };
  }

  /** The uploading key's current account and limits (they may have changed since the upload). */
  private async contextForKey(accountId: string, keyId: string): Promise<AuthContext | undefined> {
    const [account, keyRow] = await Promise.all([this.o.accounts.getAccount(accountId), this.o.keys.getKey(keyId)]);
    if (!account || !keyRow) return undefined;
    return { account, key: toKey(keyRow) };
  }

  /** Deletes documents (rows and files) not downloaded within the retention time; returns how many. */
  async purgeExpired(): Promise<number> {
    const now = this.now();
    const ids = await this.repository.listExpired(now - this.o.retentionMs, now);
    for (const id of ids) {
      await this.repository.delete(id);
      await this.files.remove(id);
    }
    await this.files.removeStaleParts(Math.min(this.o.retentionMs, 3_600_000));
    return ids.length;
  }

}
