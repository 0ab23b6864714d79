// The files of translation-memory jobs: TMX uploads waiting to be imported and exports waiting to be downloaded, in
// the server's byte store (a node's disk, TOLK_DATA_DIR/translation-memories, or the database every node reads).
// Encrypted at rest with the document crypto (AES-256-GCM records) under a key per job derived from a server secret.
import { hkdfSync } from 'node:crypto';
import { Transform, pipeline as pipelineStreams, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { decryptStream, encryptStream } from '../../documents/crypto.js';
import { ServiceError } from '../../lib/errors.js';
import { StoredFileMissing, type ByteStore, type StoredFileKind } from '../../store/byte-store.js';
import type { DiskNaming } from '../../store/disk-byte-store.js';

type Kind = 'upload' | 'export';
const PURPOSE = { upload: 'upload', export: 'result' } as const;
const STORED: Record<Kind, StoredFileKind> = { upload: 'upload', export: 'result' };
/** Job files share the store with documents; their ids say whose they are. */
const PREFIX = 'tm-';
const FILE_NAME = /^([0-9a-f-]{36})\.(upload|export)\.tmx$/;

/** On disk, the names earlier releases wrote: `<job id>.upload.tmx`, `<job id>.export.tmx`. */
export const memoryFileNaming: DiskNaming = {
  name: (id, kind) => `${id.slice(PREFIX.length)}.${kind === 'result' ? 'export' : kind}.tmx`,
  parse(name) {
    const m = FILE_NAME.exec(name);
    return m ? { id: `${PREFIX}${m[1]}`, kind: m[2] === 'export' ? 'result' : 'upload' } : undefined;
  },
};

export class MemoryFiles {
  constructor(
    readonly store: ByteStore,
    private readonly secret: Buffer,
  ) {}

  fileId(jobId: string): string {
    return `${PREFIX}${jobId}`;
  }

  /** The file's key: 32 bytes from the server secret, bound to the job (hex, as the document crypto takes keys). */
  private key(jobId: string): string {
    return Buffer.from(hkdfSync('sha256', this.secret, jobId, 'tolk-tm-file-v1', 32)).toString('hex');
  }

  /** Writes `source` encrypted to the job's file; nothing is left when anything fails. */
  async write(jobId: string, kind: Kind, source: Readable): Promise<void> {
    await pipeline(source, encryptStream(this.key(jobId), PURPOSE[kind]), (sealed: AsyncIterable<Buffer>) =>
      this.store.write(this.fileId(jobId), STORED[kind], sealed),
    );
  }

  /**
   * Stores an upload of at most `limit` bytes (413 beyond). The body is piped, not pipelined: over the limit it must
   * not be destroyed (that would close the connection under the 413) but read to its end, so the client reads the
   * answer and can reuse the connection.
   */
  async receive(jobId: string, body: Readable, limit: number): Promise<void> {
    let seen = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        seen += chunk.length;
        if (seen > limit) done(new ServiceError('payload_too_large', `The upload exceeds the declared size of ${limit} bytes.`));
        else done(null, chunk);
      },
    });
    body.pipe(counter);
    body.once('error', (err) => counter.destroy(err));
    try {
      await this.write(jobId, 'upload', counter);
    } catch (err) {
      body.unpipe(counter);
      body.resume();
      throw err;
    }
  }

  /** The decrypted content, or undefined when the file is absent. Read and decryption errors end the stream. */
  async read(jobId: string, kind: Kind): Promise<Readable | undefined> {
    let stored: Readable;
    try {
      stored = await this.store.read(this.fileId(jobId), STORED[kind]);
    } catch (err) {
      if (err instanceof StoredFileMissing) return undefined;
      throw err;
    }
    return pipelineStreams(stored, decryptStream(this.key(jobId), PURPOSE[kind]), () => {});
  }

  async remove(jobId: string, kind: Kind): Promise<void> {
    await this.store.remove(this.fileId(jobId), [STORED[kind]]);
  }

  /** Removes every job file `keep` does not claim (and on a disk anything else a crash left in the directory). */
  async removeOrphans(keep: (jobId: string, kind: Kind) => Promise<boolean>): Promise<number> {
    let removed = await this.store.removeUnknown();
    for (const file of await this.store.list(PREFIX)) {
      const jobId = file.id.slice(PREFIX.length);
      if (file.kind !== 'part' && (await keep(jobId, file.kind === 'result' ? 'export' : 'upload'))) continue;
      await this.store.remove(file.id, [file.kind]);
      removed++;
    }
    return removed;
  }
}
