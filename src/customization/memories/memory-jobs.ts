// The runner of TMX import and export jobs. A job is held under a lease in the database (renewed while it runs), so
// any node of a cluster runs it: the node that received the upload or the export request starts it at once, and a job
// whose node died is taken over by another node once its lease expired (its files are in the shared byte store).
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { JobRow, MemoryRepository, MemoryRow } from '../../store/repositories/memory-repository.js';
import type { MemoryFiles } from './memory-files.js';
import { TMX_FOOTER, TmxError, readTmx, tmxHeader, tmxUnit } from './tmx.js';

export const DOWNLOAD_TTL_MS = 24 * 60 * 60 * 1000;
export const TM_SOURCE_LANGUAGES = ['de', 'en', 'es', 'fr', 'it', 'ja', 'ko', 'zh'];
export const INTERRUPTED = 'The job was interrupted by a server restart. Please start it again.';
/** A job is given up after this many claims (each death of its node costs one). */
const MAX_ATTEMPTS = 3;
/** Jobs taken over from other nodes that run here at once, beside the ones this node started itself. */
const TAKEOVERS = 2;

export interface MemoryJobRunnerOptions {
  now: () => number;
  leaseMs: number;
  /** How often the runner looks for jobs whose node died. */
  pollIntervalMs: number;
  onError?: (err: unknown) => void;
}

/** The runner lost the job's lease (another node took it over): it stops and leaves the job alone. */
class LeaseLost extends Error {}

export class MemoryJobRunner {
  readonly owner = `tm-${randomBytes(6).toString('hex')}`;
  private readonly running = new Set<Promise<void>>();
  private takeovers = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly repo: MemoryRepository,
    private readonly files: MemoryFiles,
    private readonly o: MemoryJobRunnerOptions,
  ) {}

  /** The lease columns of a job this node starts now. */
  lease(): Pick<JobRow, 'lease_owner' | 'lease_expires_at' | 'attempts'> {
    return { lease_owner: this.owner, lease_expires_at: this.o.now() + this.o.leaseMs, attempts: 1 };
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.takeOver().catch((err) => this.o.onError?.(err)), this.o.pollIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Resolves when every job started so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Claims jobs whose node died (expired lease) and runs them here. */
  async takeOver(): Promise<void> {
    while (this.takeovers < TAKEOVERS) {
      const job = await this.repo.claimAbandonedJob(this.owner, this.o.now(), this.o.leaseMs);
      if (!job) return;
      this.takeovers++;
      this.run(job, () => this.takeovers--);
    }
  }

  /** Runs a job this runner holds the lease of, renewing the lease until it ends. */
  run(job: JobRow, done?: () => void): void {
    const lost = { value: false };
    const beat = setInterval(() => {
      void this.repo
        .renewJob(job.id, this.owner, this.o.now() + this.o.leaseMs)
        .then((ok) => void (ok || (lost.value = true)))
        .catch(() => {});
    }, Math.max(50, Math.floor(this.o.leaseMs / 3)));
    beat.unref();
    const work = Number(job.attempts) > MAX_ATTEMPTS
      ? this.end(job, { status: 'failed', error_message: INTERRUPTED }, job.operation === 'import')
      : job.operation === 'import' ? this.runImport(job, lost) : this.runExport(job, lost);
    const p: Promise<void> = work
      .then(() => undefined)
      .catch((err) => this.o.onError?.(err))
      .finally(() => {
        clearInterval(beat);
        done?.();
        this.running.delete(p);
      });
    this.running.add(p);
  }

  /** Ends the job (when this runner still holds it); a failed import takes its half-made memory with it. */
  private async end(job: JobRow, changes: Partial<JobRow>, dropMemory = false): Promise<boolean> {
    if (dropMemory && job.memory_id) await this.repo.deleteMemory(job.memory_id);
    return this.repo.finishJob(job.id, this.owner, { ...changes, ...(dropMemory ? { memory_id: null } : {}), updated_at: this.o.now() });
  }

  private async runImport(job: JobRow, lost: { value: boolean }): Promise<void> {
    const memoryId = job.memory_id!;
    const at = this.o.now();
    let memory: MemoryRow | undefined;
    let skipped = 0;
    let count = 0;
    const targets = new Set<string>();
    let batch: { target_lang: string; source: string; target: string }[] = [];
    let ended = false;
    try {
      // taken over: what the dead node imported so far goes, the import starts again from the stored upload
      if (Number(job.attempts) > 1) await this.repo.deleteMemory(memoryId);
      const source = await this.files.read(job.id, 'upload');
      if (!source) return void (await this.end(job, { status: 'failed', error_message: INTERRUPTED }, true));
      await readTmx(
        source,
        (h) => {
          memory = { id: memoryId, account_id: job.account_id, name: job.display_name, source_lang: h.sourceLang.split('-')[0]!, target_langs: '[]', segment_count: -1, created_at: at, updated_at: at };
        },
        async (unit) => {
          if (lost.value) throw new LeaseLost();
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
      if (lost.value) throw new LeaseLost();
      await this.repo.insertSegments(memoryId, batch);
      await this.repo.updateMemory(memoryId, { segment_count: count, target_langs: JSON.stringify([...targets].sort()), updated_at: this.o.now() });
      ended = await this.end(job, { status: 'completed', skipped_segment_count: skipped });
    } catch (err) {
      if (err instanceof LeaseLost) return;
      const message = err instanceof TmxError ? err.message : 'The TMX file could not be imported.';
      if (!(err instanceof TmxError)) this.o.onError?.(err);
      ended = await this.end(job, { status: 'failed', error_message: message, skipped_segment_count: skipped }, true);
    }
    // the upload is needed until the job has ended (a node taking it over starts again from it)
    if (ended) await this.files.remove(job.id, 'upload');
  }

  private async runExport(job: JobRow, lost: { value: boolean }): Promise<void> {
    let size = 0;
    const repo = this.repo;
    const memory = job.memory_id ? await repo.getMemory(job.account_id, job.memory_id) : undefined;
    if (!memory) return void (await this.end(job, { status: 'failed', error_message: 'The export failed.' }));
    const chunk = (text: string) => ((size += Buffer.byteLength(text)), Buffer.from(text));
    async function* tmx() {
      yield chunk(tmxHeader(memory!.source_lang));
      for (let after = 0; ; ) {
        if (lost.value) throw new LeaseLost();
        const page = await repo.segments(memory!.id, undefined, after, 2000);
        if (page.length === 0) break;
        yield chunk(page.map((s) => tmxUnit(memory!.source_lang, s.source, s.target_lang, s.target)).join(''));
        after = Number(page[page.length - 1]!.id);
      }
      yield chunk(TMX_FOOTER);
    }
    try {
      await this.files.write(job.id, 'export', Readable.from(tmx(), { objectMode: false }));
      if (lost.value) return;
      await this.end(job, { status: 'completed', content_length: size, expires_at: this.o.now() + DOWNLOAD_TTL_MS });
    } catch (err) {
      if (err instanceof LeaseLost) return;
      this.o.onError?.(err);
      await this.end(job, { status: 'failed', error_message: 'The export failed.' });
    }
  }
}
