// Where a document's encrypted files live: a node's own disk (TOLK_DATA_DIR/documents, the default on SQLite) or the
// database (the default on PostgreSQL, so nodes share no disk); and the key-encryption key each keeps beside them.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DatabaseByteStore, type ByteStore } from '../store/byte-store.js';
import { DiskByteStore } from '../store/disk-byte-store.js';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { ServerSecretsRepository } from '../store/repositories/server-secrets-repository.js';
import { kekFromSecret } from './crypto.js';

export { StoredFileMissing, type StoredFileKind } from '../store/byte-store.js';

export type DocumentStoreKind = 'disk' | 'database';

/** The files of documents, and the key that wraps the document keys of pending jobs (the same for every node). */
export interface DocumentStore extends ByteStore {
  keyEncryptionKey(): Promise<Buffer>;
}

/** Files in TOLK_DATA_DIR/documents; the key-encryption key is a file beside them (shared by nodes sharing the folder). */
export class DiskDocumentStore extends DiskByteStore implements DocumentStore {
  private kek: Buffer | undefined;

  /**
   * Generated once (0600) in the documents directory, shared by every node that shares the directory, so any node
   * can resume a job after a restart.
   */
  async keyEncryptionKey(): Promise<Buffer> {
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
}

/** Files in the database; the key-encryption key is a server secret (migration 0018), so every node unwraps keys. */
export class DatabaseDocumentStore extends DatabaseByteStore implements DocumentStore {
  private kek: Buffer | undefined;

  constructor(
    db: Kysely<Database>,
    private readonly secrets: ServerSecretsRepository,
    now?: () => number,
  ) {
    super(db, now);
  }

  async keyEncryptionKey(): Promise<Buffer> {
    this.kek ??= kekFromSecret(await this.secrets.serverSecret('document_key_encryption'));
    return this.kek;
  }
}

/** `db` and `secrets` serve the database store, `dir` (TOLK_DATA_DIR/documents) the disk store. */
export function createDocumentStore(
  kind: DocumentStoreKind,
  db: Kysely<Database>,
  secrets: ServerSecretsRepository,
  dir: string,
  now?: () => number,
): DocumentStore {
  return kind === 'database' ? new DatabaseDocumentStore(db, secrets, now) : new DiskDocumentStore(dir);
}
