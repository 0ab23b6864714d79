// TMX import and export jobs on the one job system (src/jobs). A job is queued in tm_jobs and claimed under a lease
// (renewed while it runs), so any node of a cluster runs it: the node that received the upload or the export request
// wakes its runner at once, and a job whose node died is taken over by another node once its lease expired (its files
// are in the shared byte store).
import { Readable } from 'node:stream';
import { JobRunner, type JobQueue, type RunningJob } from '../../jobs/job-runner.js';
import type { Logger } from '../../lib/logger.js';
import type { JobRow, MemoryRepository, MemoryRow } from '../../store/repositories/memory-repository.js';
import type { MemoryFiles } from './memory-files.js';
import { TMX_FOOTER, TmxError, readTmx, tmxHeader, tmxUnit } from './tmx.js';

export const DOWNLOAD_TTL_MS = 24 * 60 * 60 * 1000;
export const TM_SOURCE_LANGUAGES = ['de', 'en', 'es', 'fr', 'it', 'ja', 'ko', 'zh'];
export const INTERRUPTED = 'The job was interrupted by a server restart. Please start it again.';
/** A job is given up after this many claims (each death of its node costs one). */
const MAX_ATTEMPTS = 3;
/** TMX jobs run at once on one node (each streams a file through the database; more would only queue on it). */
const CONCURRENCY = 4;

export interface MemoryJobRunnerOptions {
  now: () => number;
  leaseMs: number;
  /** How often the runner looks for jobs other nodes queued or left behind (jobs queued here start at once). */
  pollIntervalMs: number;
  logger: Logger;
  onError?: (err: unknown) => void;
}

/** The runner lost the job's lease (another node took it over) or is closing: it stops and leaves the job alone. */
class LeaseLost extends Error {}

/** The tm_jobs table as the job system's queue: `processing` jobs held by no live lease. */
export function memoryJobQueue(repo: MemoryRepository): JobQueue<JobRow> {
  return {
    claimNext: (owner, now, leaseMs) => repo.claimJob(owner, now, leaseMs),
    renew: (id, owner, leaseExpiresAt) => repo.renewJob(id, owner, leaseExpiresAt),
    handBack: (id, owner) => repo.handBackJob(id, owner),
  };
}

/** The TMX jobs' handler on the one job system (src/jobs), and the runner that claims them. */
export class MemoryJobRunner {
  private readonly runner: JobRunner<JobRow>;

  constructor(
    private readonly repo: MemoryRepository,
    private readonly files: MemoryFiles,
    private readonly o: MemoryJobRunnerOptions,
  ) {
    this.runner = new JobRunner({
      name: 'tm',
      label: 'translation memory',
      idField: 'job_id',
      queue: memoryJobQueue(repo),
      handler: (job, running) => this.run(job, running),
      idOf: (job) => job.id,
      concurrency: CONCURRENCY,
      leaseMs: o.leaseMs,
      pollIntervalMs: o.pollIntervalMs,
      now: o.now,
      logger: o.logger,
    });
  }

  /** The lease columns of a job queued now: no owner, so this node's runner (or another's) claims it. */
  queued(): Pick<JobRow, 'lease_owner' | 'lease_expires_at' | 'attempts'> {
    return { lease_owner: null, lease_expires_at: null, attempts: 0 };
  }

  /** Starts claiming: jobs queued or left behind by a dead node (expired lease) first, then on wake and poll. */
  start(): void {
    this.runner.start();
  }

  /** A job was queued on this node: claim it now. */
  wake(): void {
    this.runner.wake();
  }

  /** Stops claiming; running jobs are handed back to the queue for another node (or this one's next start). */
  async close(): Promise<void> {
    await this.runner.close();
  }

  /** Resolves when no job is being claimed or run here (tests). */
  async idle(): Promise<void> {
    await this.runner.idle();
  }

  /** One claimed job; a job that keeps losing its node ends `failed`. */
  private async run(job: JobRow, running: RunningJob): Promise<void> {
    const lost = running.signal;
    const work = Number(job.attempts) > MAX_ATTEMPTS
      ? this.end(job, running.owner, { status: 'failed', error_message: INTERRUPTED }, job.operation === 'import')
      : job.operation === 'import' ? this.runImport(job, running.owner, lost) : this.runExport(job, running.owner, lost);
    await work.then(() => undefined).catch((err) => this.o.onError?.(err));
  }

  /** Ends the job (when this runner still holds it); a failed import takes its half-made memory with it. */
  private async end(job: JobRow, owner: string, changes: Partial<JobRow>, dropMemory = false): Promise<boolean> {
    if (dropMemory && job.memory_id) await this.repo.deleteMemory(job.memory_id);
    return this.repo.finishJob(job.id, owner, { ...changes, ...(dropMemory ? { memory_id: null } : {}), updated_at: this.o.now() });
  }

  private async runImport(job: JobRow, owner: string, lost: AbortSignal): Promise<void> {
    const memoryId = job.memory_id!;
    const at = this.o.now();
    let memory: MemoryRow | undefined;
    let skipped = 0;
    let count = 0;
    const targets = new Set<string>();
    let batch: { target_lang: string; source: string; target: string }[] = [];
    let ended = false;
    try {
      // taken over or handed back: what was imported so far goes, the import starts again from the stored upload
      await this.repo.deleteMemory(memoryId);
      const source = await this.files.read(job.id, 'upload');
      if (!source) return void (await this.end(job, owner, { status: 'failed', error_message: INTERRUPTED }, true));
      await readTmx(
        source,
        (h) => {
          memory = { id: memoryId, account_id: job.account_id, name: job.display_name, source_lang: h.sourceLang.split('-')[0]!, target_langs: '[]', segment_count: -1, created_at: at, updated_at: at };
        },
        async (unit) => {
          if (lost.aborted) throw new LeaseLost();
          if (!memory) throw new TmxError('The TMX header must precede the translation units.');
          if (count === 0 && batch.length === 0) await this.repo.insertMemory(memory);
          for (const [lang, text] of unit.targets) {
            targets.add(lang);
            batch.push({ target_lang: lang, source: unit.source, target: text });
            count++;
          }
          if (batch.length >= 1000) {
            await this.repo.insertSegments(memoryId, batch);
            batch = [];
          }
        },
        () => skipped++,
      );
      if (!memory) throw new TmxError('The file is not a TMX document.');
      if (!TM_SOURCE_LANGUAGES.includes(memory.source_lang)) throw new TmxError(`Source language ${memory.source_lang} is not supported by translation memories.`);
      if (count === 0 && batch.length === 0) throw new TmxError('The TMX file contains no usable translation units.');
      if (lost.aborted) throw new LeaseLost();
      await this.repo.insertSegments(memoryId, batch);
      await this.repo.updateMemory(memoryId, { segment_count: count, target_langs: JSON.stringify([...targets].sort()), updated_at: this.o.now() });
      ended = await this.end(job, owner, { status: 'completed', skipped_segment_count: skipped });
    } catch (err) {
      if (err instanceof LeaseLost) return;
      const message = err instanceof TmxError ? err.message : 'The TMX file could not be imported.';
      if (!(err instanceof TmxError)) this.o.onError?.(err);
      ended = await this.end(job, owner, { status: 'failed', error_message: message, skipped_segment_count: skipped }, true);
    }
    // the upload is needed until the job has ended (a node taking it over starts again from it)
    if (ended) await this.files.remove(job.id, 'upload');
  }

  private async runExport(job: JobRow, owner: string, lost: AbortSignal): Promise<void> {
    let size = 0;
    const repo = this.repo;
    const memory = job.memory_id ? await repo.getMemory(job.account_id, job.memory_id) : undefined;
    if (!memory) return void (await this.end(job, owner, { status: 'failed', error_message: 'The export failed.' }));
    const chunk = (text: string) => ((size += Buffer.byteLength(text)), Buffer.from(text));
    async function* tmx() {
      yield chunk(tmxHeader(memory!.source_lang));
      for (let after = 0; ; ) {
        if (lost.aborted) throw new LeaseLost();
        const page = await repo.segments(memory!.id, undefined, after, 2000);
        if (page.length === 0) break;
        yield chunk(page.map((s) => tmxUnit(memory!.source_lang, s.source, s.target_lang, s.target)).join(''));
        after = Number(page[page.length - 1]!.id);
      }
      yield chunk(TMX_FOOTER);
    }
    try {
      await this.files.write(job.id, 'export', Readable.from(tmx(), { objectMode: false }));
      if (lost.aborted) return;
      await this.end(job, owner, { status: 'completed', content_length: size, expires_at: this.o.now() + DOWNLOAD_TTL_MS });
    } catch (err) {
      if (err instanceof LeaseLost) return;
      this.o.onError?.(err);
      await this.end(job, owner, { status: 'failed', error_message: 'The export failed.' });
    }
  }
}
