// Where a document's encrypted files live (TOLK_DATA_DIR/documents), and the server's key-encryption key beside them.
import { mkdirSync, readFileSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { kekFromSecret } from './crypto.js';

export class DocumentFiles {
  private kek: Buffer | undefined;
  private created = false;

  constructor(readonly dir: string) {}

  /** Created on first use, so services that never see a document leave no directory behind. */
  private ensureDir(): void {
    if (this.created) return;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.created = true;
  }

  partPath(id: string): string {
    this.ensureDir();
    return join(this.dir, `${id}.part`);
  }

  uploadPath(id: string): string {
    this.ensureDir();
    return join(this.dir, `${id}.upload`);
  }

  resultPath(id: string): string {
    this.ensureDir();
    return join(this.dir, `${id}.result`);
  }

  async remove(id: string, which: ('part' | 'upload' | 'result')[] = ['part', 'upload', 'result']): Promise<void> {
    await Promise.all(which.map((w) => rm(join(this.dir, `${id}.${w}`), { force: true })));
  }

  /**
   * The key-encryption key: generated once (0600) in the documents directory, shared by every node that shares the
   * directory, so any node can resume a job after a restart.
   */
  keyEncryptionKey(): Buffer {
    if (this.kek) return this.kek;
    this.ensureDir();
    const path = join(this.dir, '.key-encryption-key');
    try {
      writeFileSync(path, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    this.kek = kekFromSecret(readFileSync(path, 'utf8').trim());
    return this.kek;
  }

  /** Partial uploads a crashed request left behind. */
  async removeStaleParts(olderThanMs: number): Promise<number> {
    if (!this.created) {
      try {
        statSync(this.dir);
      } catch {
        return 0;
      }
    }
    let removed = 0;
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.part')) continue;
      const path = join(this.dir, name);
      try {
        if (Date.now() - statSync(path).mtimeMs > olderThanMs) {
          await rm(path, { force: true });
          removed++;
        }
      } catch {
        // raced with its own request finishing
      }
    }
    return removed;
  }
}
