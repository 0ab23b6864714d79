// The files of translation-memory jobs (TOLK_DATA_DIR/translation-memories): TMX uploads waiting to be imported and
// exports waiting to be downloaded. Encrypted at rest with the document crypto (AES-256-GCM records) under a key per job
// derived from a server secret, written 0600 in a 0700 directory; files no job can use any more go at start.
import { createWriteStream, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { hkdfSync } from 'node:crypto';
import { join } from 'node:path';
import { Transform, pipeline as pipelineStreams, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { decryptStream, encryptStream } from '../../documents/crypto.js';
import { ServiceError } from '../../lib/errors.js';

type Kind = 'upload' | 'export';
const PURPOSE = { upload: 'upload', export: 'result' } as const;
const FILE_NAME = /^([0-9a-f-]{36})\.(upload|export)\.tmx$/;

export class MemoryFiles {
  constructor(
    readonly dir: string,
    private readonly secret: Buffer,
  ) {}

  path(jobId: string, kind: Kind): string {
    return join(this.dir, `${jobId}.${kind}.tmx`);
  }

  /** The file's key: 32 bytes from the server secret, bound to the job (hex, as the document crypto takes keys). */
  private key(jobId: string): string {
    return Buffer.from(hkdfSync('sha256', this.secret, jobId, 'tolk-tm-file-v1', 32)).toString('hex');
  }

  /** Writes `source` encrypted to the job's file; the file is removed when anything fails. */
  async write(jobId: string, kind: Kind, source: Readable): Promise<void> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const path = this.path(jobId, kind);
    try {
      await pipeline(source, encryptStream(this.key(jobId), PURPOSE[kind]), createWriteStream(path, { mode: 0o600 }));
    } catch (err) {
      rmSync(path, { force: true });
      throw err;
    }
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
    let handle;
    try {
      handle = await open(this.path(jobId, kind), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    return pipelineStreams(handle.createReadStream(), decryptStream(this.key(jobId), PURPOSE[kind]), () => {});
  }

  remove(jobId: string, kind: Kind): void {
    rmSync(this.path(jobId, kind), { force: true });
  }

  /** Removes every file `keep` does not claim (and anything else left in the directory, e.g. from a crash). */
  async removeOrphans(keep: (jobId: string, kind: Kind) => Promise<boolean>): Promise<number> {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      const m = FILE_NAME.exec(name);
      if (m && (await keep(m[1]!, m[2] as Kind))) continue;
      rmSync(join(this.dir, name), { force: true, recursive: true });
      removed++;
    }
    return removed;
  }
}
