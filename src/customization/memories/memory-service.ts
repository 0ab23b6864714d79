// Translation memories: TMX import/export as background jobs whose state lives in the store, and fuzzy lookup.
import type { Readable } from 'node:stream';
import { ServiceError, invalid, notFound, unsupportedValue } from '../../lib/errors.js';
import { newUuid } from '../../lib/ids.js';
import type { JobRow, MemoryRepository, MemoryRow } from '../../store/repositories/memory-repository.js';
import type { ByteStore } from '../../store/byte-store.js';
import type { Logger } from '../../lib/logger.js';
import { FuzzyIndex, type MemorySegment } from './fuzzy-index.js';
import { MemoryFiles } from './memory-files.js';
import { MemoryJobRunner } from './memory-jobs.js';
import { decodeCursor, encodeCursor } from './segment-cursor.js';
import {
  memoryJob, memoryOf, memorySummary,
  type ExportStart, type ImportInput, type ImportStart, type Memory, type MemoryJob, type MemoryPage, type SegmentPage,
} from './memory-views.js';

export { DOWNLOAD_TTL_MS, TM_SOURCE_LANGUAGES } from './memory-jobs.js';

export const MAX_TMX_BYTES = 256 * 1024 * 1024;
export const UPLOAD_TTL_MS = 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface MemoryServiceOptions {
  /** Where job files live: this node's disk, or the database every node reads (so any node runs any job). */
  files: ByteStore;
  /** The server secret the job files' encryption keys derive from. */
  fileSecret: Buffer;
  now?: () => number;
  /** A running job renews its lease every third of this; a job whose node died is taken over after it. */
  leaseMs?: number;
  /** How often a node looks for jobs queued by other nodes or whose node died. */
  pollIntervalMs?: number;
  logger: Logger;
  onError?: (err: unknown) => void;
}

type SegmentRow = Awaited<ReturnType<MemoryRepository['segments']>>[number];

export class MemoryService {
  private readonly now: () => number;
  readonly files: MemoryFiles;
  private readonly jobs: MemoryJobRunner;
  private readonly indexes = new Map<string, { stamp: number; index: FuzzyIndex }>();

  constructor(
    private readonly repo: MemoryRepository,
    private readonly options: MemoryServiceOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.files = new MemoryFiles(options.files, options.fileSecret);
    this.jobs = new MemoryJobRunner(repo, this.files, {
      now: this.now,
      leaseMs: options.leaseMs ?? 30_000,
      pollIntervalMs: options.pollIntervalMs ?? 2_000,
      logger: options.logger,
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }

  /**
   * At start: jobs whose node died are taken over (one that cannot go on ends `failed` with a message), stale uploads
   * expire, files no job needs go; then the node keeps looking for jobs other nodes left behind.
   */
  async recover(): Promise<void> {
    for (const job of await this.repo.jobsWithStatus('awaiting_input')) {
      if (job.expires_at !== null && Number(job.expires_at) < this.now()) await this.repo.updateJob(job.id, { status: 'expired', updated_at: this.now() });
    }
    // Uploads of jobs that ended (or never began), exports no job can hand out any more. An upload stays while its
    // job is processing: it may run on another node, or be taken over from it.
    await this.files.removeOrphans(async (jobId, kind) => {
      const job = await this.repo.getJob(null, jobId);
      if (kind === 'upload') return job?.status === 'processing';
      return !!job && (job.status === 'completed' || job.status === 'downloaded') && (job.expires_at === null || Number(job.expires_at) > this.now());
    });
    this.jobs.start();
    this.jobs.wake();
  }

  /** Shutdown: stops claiming jobs; running ones go back to the queue for another node (or the next start). */
  async close(): Promise<void> {
    await this.jobs.close();
  }

  /** Resolves when every background job started so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    await this.jobs.idle();
  }

  /** Starts an import job: the file is then uploaded (receiveUpload) until the job's `expiresAt`. */
  async startImport(accountId: string, input: ImportInput): Promise<ImportStart> {
    const length = input.contentLength;
    if (length !== undefined && length > MAX_TMX_BYTES) throw new ServiceError('payload_too_large', `The TMX file exceeds the maximum size of ${MAX_TMX_BYTES} bytes.`);
    const at = this.now();
    const job: JobRow = {
      id: newUuid(), account_id: accountId, operation: 'import', status: 'awaiting_input', memory_id: null, display_name: input.displayName,
      content_type: input.contentType, content_length: length ?? null, file_path: null, error_message: null,
      skipped_segment_count: 0, created_at: at, updated_at: at, expires_at: at + UPLOAD_TTL_MS, lease_owner: null, lease_expires_at: null, attempts: 0,
    };
    await this.repo.insertJob(job);
    return { jobId: job.id, expiresAt: new Date(at + UPLOAD_TTL_MS) };
  }

  /** A job of the account, or any job when `accountId` is null (the caller holds a signed URL for it). */
  private async job(accountId: string | null, id: string): Promise<JobRow> {
    const job = UUID.test(id) ? await this.repo.getJob(accountId, id.toLowerCase()) : undefined;
    if (!job) throw notFound('Job not found');
    return job;
  }

  /** The upload of an import: streamed to disk with a size limit, then processed in the background. */
  async receiveUpload(accountId: string | null, jobId: string, body: Readable): Promise<void> {
    const job = await this.job(accountId, jobId);
    if (job.operation !== 'import' || job.status !== 'awaiting_input') throw new ServiceError('conflict', 'This job does not await an upload.');
    if (job.expires_at !== null && Number(job.expires_at) < this.now()) {
      await this.repo.updateJob(job.id, { status: 'expired', updated_at: this.now() });
      throw new ServiceError('conflict', 'The upload URL has expired.');
    }
    await this.files.receive(job.id, body, Math.min(MAX_TMX_BYTES, job.content_length ?? MAX_TMX_BYTES)).catch((err) => {
      throw err instanceof ServiceError ? err : invalid('The upload could not be read.');
    });
    const changes = { status: 'processing', file_path: this.files.fileId(job.id), memory_id: newUuid(), updated_at: this.now(), ...this.jobs.queued() };
    await this.repo.updateJob(job.id, changes);
    this.jobs.wake();
  }

  /** A job of the account; an upload that was not made in time is marked expired on the way. */
  async getJob(accountId: string, id: string): Promise<MemoryJob> {
    let job = await this.job(accountId, id);
    if (job.status === 'awaiting_input' && job.expires_at !== null && Number(job.expires_at) < this.now()) {
      await this.repo.updateJob(job.id, { status: 'expired', updated_at: this.now() });
      job = { ...job, status: 'expired' };
    }
    return memoryJob(job);
  }

  private async memory(accountId: string, id: string): Promise<MemoryRow> {
    const m = UUID.test(id) ? await this.repo.getMemory(accountId, id.toLowerCase()) : undefined;
    if (!m || Number(m.segment_count) < 0) throw notFound(`Translation Memory ${id} not found`);
    return m;
  }

  /**
   * Reuses a recent export of the unchanged memory (downloaded or not: its file stays until it expires; `ready`), or
   * starts one; a conflict while one runs.
   */
  async startExport(accountId: string, memoryId: string): Promise<ExportStart> {
    const memory = await this.memory(accountId, memoryId);
    const jobs = await this.repo.exportJobs(memory.id);
    if (jobs.some((j) => j.status === 'processing')) throw new ServiceError('conflict', 'An export of this translation memory is already in progress; poll its job.');
    const reusable = jobs.find((j) => (j.status === 'completed' || j.status === 'downloaded') && Number(j.created_at) >= Number(memory.updated_at) && (j.expires_at === null || Number(j.expires_at) > this.now()));
    if (reusable) return { jobId: reusable.id, memoryId: memory.id, ready: true };
    const at = this.now();
    const job: JobRow = {
      id: newUuid(), account_id: accountId, operation: 'export', status: 'processing', memory_id: memory.id, display_name: memory.name,
      content_type: 'application/xml', content_length: null, file_path: null, error_message: null, skipped_segment_count: 0,
      created_at: at, updated_at: at, expires_at: null, ...this.jobs.queued(),
    };
    job.file_path = this.files.fileId(job.id);
    await this.repo.insertJob(job);
    this.jobs.wake();
    return { jobId: job.id, memoryId: memory.id, ready: false };
  }

  /** The content of a finished export (decrypted as it is read); the job becomes `downloaded`. */
  async download(accountId: string | null, jobId: string): Promise<Readable> {
    const job = await this.job(accountId, jobId);
    if (job.operation !== 'export') throw notFound('Job not found');
    if (job.status === 'processing') throw new ServiceError('not_ready', 'The export is not done yet.');
    if (job.status === 'expired' || (job.expires_at !== null && Number(job.expires_at) < this.now())) throw notFound('The export has expired.');
    if (job.status !== 'completed' && job.status !== 'downloaded') throw notFound('The export failed.');
    const content = await this.files.read(job.id, 'export');
    if (!content) throw notFound('The export is no longer available; start a new one.');
    if (job.status === 'completed') await this.repo.updateJob(job.id, { status: 'downloaded', updated_at: this.now() });
    return content;
  }

  /** One memory with its timestamps. */
  async get(accountId: string, id: string): Promise<Memory> {
    return memoryOf(await this.memory(accountId, id));
  }

  /** Deletes a memory and its segments; refused (409) while an export of it is running. */
  async delete(accountId: string, id: string): Promise<void> {
    const m = await this.memory(accountId, id);
    if ((await this.repo.exportJobs(m.id)).some((j) => j.status === 'processing')) {
      throw new ServiceError('conflict', 'An export of this translation memory is in progress; delete it once the export is done.');
    }
    await this.repo.deleteMemory(m.id);
    for (const key of [...this.indexes.keys()]) if (key.startsWith(`${m.id}:`)) this.indexes.delete(key);
  }

  /**
   * Source segments (consecutive rows of one translation unit share their source) with their targets, paged by an
   * opaque cursor that also binds the filter. `filterText` matches source and targets; segment_count is the whole memory.
   */
  async segmentPage(accountId: string, id: string, options: { pageSize: number; pageCursor?: string; filterText?: string; caseSensitive: boolean }): Promise<SegmentPage> {
    const m = await this.memory(accountId, id);
    const filter = options.filterText ?? '';
    if (options.filterText !== undefined && [...filter].length < 2) throw unsupportedValue('filter_text');
    let after = 0;
    if (options.pageCursor !== undefined) {
      const c = decodeCursor(options.pageCursor);
      if (!c || c.f !== filter || c.c !== options.caseSensitive) throw unsupportedValue('page_cursor');
      after = c.a;
    }
    const fold = (t: string) => (options.caseSensitive ? t : t.toLocaleLowerCase());
    const needle = fold(filter);
    const matches = (rows: SegmentRow[]) => needle === '' || fold(rows[0]!.source).includes(needle) || rows.some((r) => fold(r.target).includes(needle));
    const out: SegmentRow[][] = [];
    let more = false;
    for await (const rows of this.sourceGroups(m.id, after)) {
      if (!matches(rows)) continue;
      if (out.length === options.pageSize) {
        more = true;
        break;
      }
      out.push(rows);
    }
    const createdAt = new Date(Number(m.created_at));
    return {
      segments: out.map((rows) => ({
        id: String(rows[0]!.id),
        text: rows[0]!.source,
        createdAt,
        targets: rows.map((r) => ({ id: String(r.id), language: r.target_lang, text: r.target })),
      })),
      segmentCount: Number(m.segment_count),
      ...(more ? { nextPageCursor: encodeCursor({ a: Number(out.at(-1)!.at(-1)!.id), f: filter, c: options.caseSensitive }) } : {}),
    };
  }

  /** Rows after `after` in import order, grouped into runs sharing one source (one translation unit each). */
  private async *sourceGroups(memoryId: string, after: number): AsyncGenerator<SegmentRow[]> {
    let current: SegmentRow[] | undefined;
    for (let a = after; ; ) {
      const page = await this.repo.segments(memoryId, undefined, a, 1000);
      if (page.length === 0) break;
      for (const r of page) {
        if (current && current[0]!.source === r.source) current.push(r);
        else {
          if (current) yield current;
          current = [r];
        }
      }
      a = Number(page[page.length - 1]!.id);
    }
    if (current) yield current;
  }

  async list(accountId: string, page: number, pageSize: number): Promise<MemoryPage> {
    const { rows, total } = await this.repo.pageMemories(accountId, page, pageSize);
    return { memories: rows.map(memorySummary), totalCount: total };
  }

  /**
   * For translation: the memory's best match per segment at or above `threshold` (undefined → send to the engine).
   * 404 when the memory does not exist or lacks the pair (messages of api-details.md). With `source` undefined (not
   * detected yet) only the memory and the target are checked.
   */
  async lookup(accountId: string, memoryId: string, source: string | undefined, target: string, segments: readonly string[], threshold = 75): Promise<(string | undefined)[]> {
    if (!UUID.test(memoryId)) throw unsupportedValue('translation_memory_id');
    if (!Number.isInteger(threshold) || threshold < 0 || threshold > 100) throw invalid('Parameter "translation_memory_threshold" must be an integer between 0 and 100');
    const memory = await this.memory(accountId, memoryId);
    const t = target.toLowerCase();
    const langs = JSON.parse(memory.target_langs) as string[];
    const lang = langs.find((l) => l === t) ?? langs.find((l) => l.split('-')[0] === t.split('-')[0]);
    if (!lang) throw notFound(`Translation Memory ${memoryId} does not support the target language ${target}`);
    if (source === undefined) return segments.map(() => undefined);
    if (source.toLowerCase().split('-')[0] !== memory.source_lang) throw notFound(`Translation Memory ${memoryId} does not support the source language ${source}`);
    const index = await this.index(memory, lang);
    return segments.map((s) => index.lookup(s.trim(), threshold)?.segment.target);
  }

  private async index(memory: MemoryRow, lang: string): Promise<FuzzyIndex> {
    const key = `${memory.id}:${lang}`;
    const stamp = Number(memory.updated_at);
    const cached = this.indexes.get(key);
    if (cached && cached.stamp === stamp) return cached.index;
    const segments: MemorySegment[] = [];
    for (let after = 0; ; ) {
      const page = await this.repo.segments(memory.id, lang, after, 5000);
      if (page.length === 0) break;
      for (const s of page) segments.push({ source: s.source, target: s.target });
      after = Number(page[page.length - 1]!.id);
    }
    const index = new FuzzyIndex(segments);
    this.indexes.set(key, { stamp, index });
    if (this.indexes.size > 16) this.indexes.delete(this.indexes.keys().next().value!);
    return index;
  }
}
