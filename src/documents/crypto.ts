// Encryption at rest for documents: the client's document_key (never stored in clear) derives per-file AES-256-GCM
// keys; files are sealed in 64 KiB records (a STREAM-like construction) so they are encrypted and authenticated while
// streaming, and truncation or reordering is detected.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

const MAGIC = Buffer.from('TDC1');
const SALT_BYTES = 16;
const TAG_BYTES = 16;
/** Plaintext bytes per record; the last record is flagged (and may be empty). */
export const RECORD_BYTES = 64 * 1024;
export const HEADER_BYTES = MAGIC.length + SALT_BYTES;

export class DocumentCryptoError extends Error {}

/** A new document key: 32 random bytes as 64 upper-case hex digits (the reference API's shape). */
export function newDocumentKey(): string {
  return randomBytes(32).toString('hex').toUpperCase();
}

/** Document ids: 16 random bytes as 32 upper-case hex digits. */
export function newDocumentId(): string {
  return randomBytes(16).toString('hex').toUpperCase();
}

export function isWellFormedDocumentKey(key: string): boolean {
  return /^[0-9a-fA-F]{64}$/.test(key);
}

function keyBytes(documentKey: string): Buffer {
  if (!isWellFormedDocumentKey(documentKey)) throw new DocumentCryptoError('malformed document key');
  return Buffer.from(documentKey, 'hex');
}

function derive(ikm: Buffer, salt: Buffer | string, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, salt, `tolk-document-v1:${info}`, 32));
}

/** What the store keeps to recognise the right key: an HKDF output bound to the document id (not the key). */
export function keyVerifier(documentKey: string, documentId: string): string {
  return derive(keyBytes(documentKey), documentId, 'verifier').toString('hex');
}

export function verifyKey(documentKey: string, documentId: string, stored: string): boolean {
  if (!isWellFormedDocumentKey(documentKey)) return false;
  const a = Buffer.from(keyVerifier(documentKey, documentId), 'hex');
  const b = Buffer.from(stored, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

function nonce(counter: number, last: boolean): Buffer {
  const n = Buffer.alloc(12);
  n.writeUIntBE(counter, 5, 6);
  n[11] = last ? 1 : 0;
  return n;
}

function seal(key: Buffer, counter: number, last: boolean, plain: Buffer): Buffer {
  const c = createCipheriv('aes-256-gcm', key, nonce(counter, last));
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([body, c.getAuthTag()]);
}

function open(key: Buffer, counter: number, last: boolean, record: Buffer): Buffer {
  if (record.length < TAG_BYTES) throw new DocumentCryptoError('truncated encrypted document');
  const d = createDecipheriv('aes-256-gcm', key, nonce(counter, last));
  d.setAuthTag(record.subarray(record.length - TAG_BYTES));
  try {
    return Buffer.concat([d.update(record.subarray(0, record.length - TAG_BYTES)), d.final()]);
  } catch {
    throw new DocumentCryptoError('the document could not be decrypted (wrong key or damaged file)');
  }
}

/** Encrypts a byte stream with a key derived from the document key; `purpose` separates upload and result keys. */
export function encryptStream(documentKey: string, purpose: 'upload' | 'result'): Transform {
  const ikm = keyBytes(documentKey);
  const salt = randomBytes(SALT_BYTES);
  const key = derive(ikm, salt, purpose);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let counter = 0;
  let headerSent = false;
  const sendHeader = (t: Transform) => {
    if (!headerSent) t.push(Buffer.concat([MAGIC, salt]));
    headerSent = true;
  };
  return new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      sendHeader(this);
      pending.push(chunk);
      pendingBytes += chunk.length;
      // Keep at least one byte back so the flagged last record is never a full record followed by nothing.
      if (pendingBytes > RECORD_BYTES) {
        let all = Buffer.concat(pending);
        while (all.length > RECORD_BYTES) {
          this.push(seal(key, counter++, false, all.subarray(0, RECORD_BYTES)));
          all = all.subarray(RECORD_BYTES);
        }
        pending = [all];
        pendingBytes = all.length;
      }
      done();
    },
    flush(done: TransformCallback) {
      sendHeader(this);
      this.push(seal(key, counter++, true, Buffer.concat(pending)));
      done();
    },
  });
}

/** Decrypts what encryptStream wrote; emits only authenticated plaintext and fails on a wrong key or damage. */
export function decryptStream(documentKey: string, purpose: 'upload' | 'result'): Transform {
  const ikm = keyBytes(documentKey);
  let key: Buffer | undefined;
  let buffered: Buffer = Buffer.alloc(0);
  let counter = 0;
  const full = RECORD_BYTES + TAG_BYTES;
  return new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
      try {
        if (!key) {
          if (buffered.length < HEADER_BYTES) return done();
          if (!buffered.subarray(0, MAGIC.length).equals(MAGIC)) throw new DocumentCryptoError('not an encrypted document');
          key = derive(ikm, buffered.subarray(MAGIC.length, HEADER_BYTES), purpose);
          buffered = buffered.subarray(HEADER_BYTES);
        }
        // A full record followed by more bytes is not the last one.
        while (buffered.length > full) {
          this.push(open(key, counter++, false, buffered.subarray(0, full)));
          buffered = buffered.subarray(full);
        }
        done();
      } catch (err) {
        done(err as Error);
      }
    },
    flush(done: TransformCallback) {
      try {
        if (!key) throw new DocumentCryptoError('truncated encrypted document');
        this.push(open(key, counter++, true, buffered));
        done();
      } catch (err) {
        done(err as Error);
      }
    },
  });
}

/** Size of the ciphertext for a plaintext of n bytes. */
export function encryptedSize(n: number): number {
  const records = Math.floor(n / RECORD_BYTES) + (n % RECORD_BYTES === 0 && n > 0 ? 0 : 1);
  return HEADER_BYTES + n + records * TAG_BYTES;
}

/**
 * The job queue must be able to translate (and resume after a restart) without the client: while a job is pending,
 * its document key is kept wrapped under the server's key-encryption key, and erased when the job ends.
 */
export function wrapKey(kek: Buffer, documentKey: string, documentId: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', kek, iv);
  c.setAAD(Buffer.from(documentId));
  const body = Buffer.concat([c.update(keyBytes(documentKey)), c.final()]);
  return Buffer.concat([iv, body, c.getAuthTag()]).toString('base64');
}

export function unwrapKey(kek: Buffer, wrapped: string, documentId: string): string {
  const raw = Buffer.from(wrapped, 'base64');
  if (raw.length !== 12 + 32 + TAG_BYTES) throw new DocumentCryptoError('malformed wrapped key');
  const d = createDecipheriv('aes-256-gcm', kek, raw.subarray(0, 12));
  d.setAAD(Buffer.from(documentId));
  d.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  try {
    return Buffer.concat([d.update(raw.subarray(12, raw.length - TAG_BYTES)), d.final()]).toString('hex').toUpperCase();
  } catch {
    throw new DocumentCryptoError('the document key could not be unwrapped (the server key changed)');
  }
}

/** A 32-byte key-encryption key from a configured secret of any length. */
export function kekFromSecret(secret: string | Buffer): Buffer {
  return createHash('sha256').update(secret).digest();
}
