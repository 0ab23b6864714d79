// The ByteStore on a node's own disk: one file per (id, kind) in a 0700 directory, written 0600 under a temporary
// name and renamed into place, so a reader sees a whole file or none.
import { createWriteStream, mkdirSync, readdirSync, statSync } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StoredFileMissing, STORED_FILE_KINDS, type ByteStore, type StoredFile, type StoredFileKind } from './byte-store.js';

/** How (id, kind) maps to a file name and back (each user keeps the names its earlier releases wrote). */
export interface DiskNaming {
  name(id: string, kind: StoredFileKind): string;
  parse(name: string): StoredFile | undefined;
}

const TEMP_SUFFIX = '.tmp';

/** `<id>.<kind>`: the document files' names. */
export const plainNaming: DiskNaming = {
  name: (id, kind) => `${id}.${kind}`,
  parse(name) {
    const m = /^(.+)\.(part|upload|result)$/.exec(name);
    return m ? { id: m[1]!, kind: m[2] as StoredFileKind } : undefined;
  },
};

export class DiskByteStore implements ByteStore {
  readonly kind = 'disk' as const;
  private created = false;

  constructor(
    readonly dir: string,
    private readonly naming: DiskNaming = plainNaming,
  ) {}

  /** Created on first use, so services that never store a file leave no directory behind. */
  protected ensureDir(): void {
    if (this.created) return;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.created = true;
  }

  path(id: string, kind: StoredFileKind): string {
    this.ensureDir();
    return join(this.dir, this.naming.name(id, kind));
  }

  async write(id: string, kind: StoredFileKind, source: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<void> {
    const final = this.path(id, kind);
    const temp = `${final}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`;
    try {
      await pipeline(Readable.from(source, { objectMode: false }), createWriteStream(temp, { mode: 0o600 }));
      await rename(temp, final);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async read(id: string, kind: StoredFileKind): Promise<Readable> {
    try {
      const file = await open(this.path(id, kind), 'r');
      return file.createReadStream();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new StoredFileMissing(id, kind);
      throw err;
    }
  }

  async rename(id: string, from: StoredFileKind, to: StoredFileKind): Promise<void> {
    try {
      await rename(this.path(id, from), this.path(id, to));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new StoredFileMissing(id, from);
      throw err;
    }
  }

  async has(id: string, kind: StoredFileKind): Promise<boolean> {
    return stat(this.path(id, kind)).then(
      () => true,
      () => false,
    );
  }

  async remove(id: string, kinds: readonly StoredFileKind[] = STORED_FILE_KINDS): Promise<void> {
    await Promise.all(kinds.map((k) => rm(join(this.dir, this.naming.name(id, k)), { force: true })));
  }

  private names(): string[] {
    try {
      return readdirSync(this.dir);
    } catch {
      return [];
    }
  }

  async list(prefix: string): Promise<StoredFile[]> {
    return this.names().flatMap((n) => {
      const f = this.naming.parse(n);
      return f && f.id.startsWith(prefix) ? [f] : [];
    });
  }

  /** Anything in the directory that is no file of this store (e.g. a temporary file a crash left); dot files stay. */
  async removeUnknown(): Promise<number> {
    let removed = 0;
    for (const name of this.names()) {
      if (name.startsWith('.') || this.naming.parse(name)) continue;
      await rm(join(this.dir, name), { force: true, recursive: true });
      removed++;
    }
    return removed;
  }

  async removeStaleParts(olderThanMs: number): Promise<number> {
    let removed = 0;
    for (const name of this.names()) {
      if (!name.endsWith(TEMP_SUFFIX) && this.naming.parse(name)?.kind !== 'part') continue;
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
