// Opaque files of the server (encrypted document uploads and results), kept where every node can reach them: the
// ByteStore contract, and its database implementation in ≈256 KiB rows (migration 0018), streamed in and out.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** `part`: an upload still being received or validated; `upload`: a queued job's input; `result`: its output. */
export type StoredFileKind = 'part' | 'upload' | 'result';
export const STORED_FILE_KINDS: readonly StoredFileKind[] = ['part', 'upload', 'result'];

export interface StoredFile {
  id: string;
  kind: StoredFileKind;
}

/** The file is not in the store (never written, removed, or on a disk this node does not share). */
export class StoredFileMissing extends Error {
  constructor(id: string, kind: StoredFileKind) {
    super(`stored file ${id}.${kind} is missing`);
  }
}

export interface ByteStore {
  readonly kind: 'disk' | 'database';
  /** Streams `source` in; the file appears whole under (id, kind) when the stream ended, replacing any older one. */
  write(id: string, kind: StoredFileKind, source: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<void>;
  /** A stream of the file; rejects with StoredFileMissing before any byte when it does not exist. */
  read(id: string, kind: StoredFileKind): Promise<Readable>;
  /** Gives a file another kind (an accepted upload's part becomes its upload); StoredFileMissing when absent. */
  rename(id: string, from: StoredFileKind, to: StoredFileKind): Promise<void>;
  has(id: string, kind: StoredFileKind): Promise<boolean>;
  remove(id: string, kinds?: readonly StoredFileKind[]): Promise<void>;
  /** The whole files whose id starts with `prefix` (for sweeps: files no job refers to any more). */
  list(prefix: string): Promise<StoredFile[]>;
  /** What is in the store but no file of it (a disk's stray files after a crash); a database has none. */
  removeUnknown(): Promise<number>;
  /** Parts and unfinished writes a crashed request or node left behind; returns how many files went. */
  removeStaleParts(olderThanMs: number): Promise<number>;
}

/** Bytes per row: large enough that a 10 MB file is ~40 rows, small enough that a row never strains a connection. */
export const CHUNK_BYTES = 256 * 1024;
const TEMP_PREFIX = 'tmp.';

export class DatabaseByteStore implements ByteStore {
  readonly kind = 'database' as const;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {}

  async write(id: string, kind: StoredFileKind, source: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<void> {
    // Rows go in under a temporary kind, outside any transaction (a slow client must not hold one open); one
    // transaction then swaps them in, so readers see the old file or the new one, never half of one.
    const temp = `${TEMP_PREFIX}${kind}.${randomBytes(6).toString('hex')}`;
    let seq = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async (data: Buffer) => {
      await this.db.insertInto('document_chunks').values({ file_id: id, kind: temp, seq: seq++, data, created_at: this.now() }).execute();
    };
    try {
      for await (const chunk of source) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        while (pendingBytes >= CHUNK_BYTES) {
          const all = Buffer.concat(pending);
          await flush(all.subarray(0, CHUNK_BYTES));
          pending = [all.subarray(CHUNK_BYTES)];
          pendingBytes = pending[0]!.length;
        }
      }
      // at least one row, so an empty file exists too
      if (pendingBytes > 0 || seq === 0) await flush(Buffer.concat(pending));
      await this.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('document_chunks').where('file_id', '=', id).where('kind', '=', kind).execute();
        await trx.updateTable('document_chunks').set({ kind }).where('file_id', '=', id).where('kind', '=', temp).execute();
      });
    } catch (err) {
      await this.db.deleteFrom('document_chunks').where('file_id', '=', id).where('kind', '=', temp).execute().catch(() => {});
      throw err;
    }
  }

  async read(id: string, kind: StoredFileKind): Promise<Readable> {
    const first = await this.chunk(id, kind, 0);
    if (first === undefined) throw new StoredFileMissing(id, kind);
    const chunk = (seq: number) => this.chunk(id, kind, seq);
    // One row per query, fetched when the consumer wants more: a file is never whole in memory.
    async function* rows(): AsyncGenerator<Buffer> {
      yield first!;
      for (let seq = 1; ; seq++) {
        const next = await chunk(seq);
        if (next === undefined) return;
        yield next;
      }
    }
    return Readable.from(rows(), { objectMode: false });
  }

  private async chunk(id: string, kind: StoredFileKind, seq: number): Promise<Buffer | undefined> {
    const row = await this.db
      .selectFrom('document_chunks')
      .select('data')
      .where('file_id', '=', id)
      .where('kind', '=', kind)
      .where('seq', '=', seq)
      .executeTakeFirst();
    return row ? Buffer.from(row.data) : undefined;
  }

  async rename(id: string, from: StoredFileKind, to: StoredFileKind): Promise<void> {
    const moved = await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('document_chunks').where('file_id', '=', id).where('kind', '=', to).execute();
      const r = await trx.updateTable('document_chunks').set({ kind: to }).where('file_id', '=', id).where('kind', '=', from).executeTakeFirst();
      return Number(r.numUpdatedRows);
    });
    if (moved === 0) throw new StoredFileMissing(id, from);
  }

  async has(id: string, kind: StoredFileKind): Promise<boolean> {
    return (await this.db
      .selectFrom('document_chunks')
      .select('seq')
      .where('file_id', '=', id)
      .where('kind', '=', kind)
      .where('seq', '=', 0)
      .executeTakeFirst()) !== undefined;
  }

  async remove(id: string, kinds: readonly StoredFileKind[] = STORED_FILE_KINDS): Promise<void> {
    if (kinds.length === 0) return;
    await this.db.deleteFrom('document_chunks').where('file_id', '=', id).where('kind', 'in', [...kinds]).execute();
  }

  async list(prefix: string): Promise<StoredFile[]> {
    const rows = await this.db
      .selectFrom('document_chunks')
      .select(['file_id', 'kind'])
      .where('seq', '=', 0)
      .where('kind', 'in', [...STORED_FILE_KINDS])
      // substr, not LIKE: no wildcard in an id can widen the match, on either dialect
      .where(sql<string>`substr(file_id, 1, ${prefix.length})`, '=', prefix)
      .execute();
    return rows.map((r) => ({ id: r.file_id, kind: r.kind as StoredFileKind }));
  }

  /** Unfinished writes of another node may be in flight: they go by age (removeStaleParts), never here. */
  async removeUnknown(): Promise<number> {
    return 0;
  }

  async removeStaleParts(olderThanMs: number): Promise<number> {
    const cutoff = this.now() - olderThanMs;
    const stale = (eb: any) => eb.or([eb('kind', '=', 'part'), eb('kind', 'like', `${TEMP_PREFIX}%`)]);
    // a file counts as stale by its first row (a long upload's later rows are newer)
    const files = await this.db
      .selectFrom('document_chunks')
      .select(['file_id', 'kind'])
      .where(stale)
      .where('seq', '=', 0)
      .where('created_at', '<', cutoff)
      .execute();
    for (const f of files) {
      await this.db.deleteFrom('document_chunks').where('file_id', '=', f.file_id).where('kind', '=', f.kind).execute();
    }
    return files.length;
  }
}
