// Document encryption at rest: round trips across record boundaries, wrong keys, tampering and truncation fail.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  RECORD_BYTES,
  decryptStream,
  encryptStream,
  encryptedSize,
  keyVerifier,
  newDocumentKey,
  unwrapKey,
  verifyKey,
  wrapKey,
} from '../../src/documents/crypto.js';

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Feeds the input in uneven pieces, as a socket would. */
function pieces(buf: Buffer, size = 7777): Readable {
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) out.push(buf.subarray(i, i + size));
  return Readable.from(out);
}

const encrypt = (key: string, plain: Buffer) => collect(pieces(plain).pipe(encryptStream(key, 'upload')));
const decrypt = (key: string, cipher: Buffer, purpose: 'upload' | 'result' = 'upload') => collect(pieces(cipher, 5000).pipe(decryptStream(key, purpose)));

describe('document crypto', () => {
  for (const size of [0, 1, RECORD_BYTES - 1, RECORD_BYTES, RECORD_BYTES + 1, 3 * RECORD_BYTES, 200_001]) {
    it(`round-trips ${size} bytes`, async () => {
      const key = newDocumentKey();
      const plain = randomBytes(size);
      const cipher = await encrypt(key, plain);
      assert.equal(cipher.length, encryptedSize(size));
      // the plaintext is not in the file (only checked from 16 bytes: a shorter random run may occur by chance)
      if (size >= 16) assert.ok(!cipher.includes(plain.subarray(0, Math.min(32, size))));
      assert.deepEqual(await decrypt(key, cipher), plain);
    });
  }

  it('refuses a wrong key, the wrong purpose, tampering and truncation', async () => {
    const key = newDocumentKey();
    const plain = randomBytes(2 * RECORD_BYTES + 100);
    const cipher = await encrypt(key, plain);
    await assert.rejects(decrypt(newDocumentKey(), cipher));
    await assert.rejects(decrypt(key, cipher, 'result'));
    const tampered = Buffer.from(cipher);
    tampered[tampered.length - 40]! ^= 1;
    await assert.rejects(decrypt(key, tampered));
    // cutting whole records off the end is detected because the last record is flagged
    await assert.rejects(decrypt(key, cipher.subarray(0, cipher.length - 116)));
    await assert.rejects(decrypt(key, cipher.subarray(0, 10)));
    await assert.rejects(decrypt(key, Buffer.from('garbage garbage garbage')));
  });

  it('verifies keys without storing them, and wraps keys for the queue', () => {
    const key = newDocumentKey();
    const id = 'ABCDEF0123456789ABCDEF0123456789';
    const verifier = keyVerifier(key, id);
    assert.ok(!verifier.toUpperCase().includes(key));
    assert.ok(verifyKey(key, id, verifier));
    assert.ok(verifyKey(key.toLowerCase(), id, verifier));
    assert.ok(!verifyKey(newDocumentKey(), id, verifier));
    assert.ok(!verifyKey('not a key', id, verifier));
    assert.ok(!verifyKey(key, 'ABCDEF0123456789ABCDEF0123456780', verifier));
    const kek = randomBytes(32);
    const wrapped = wrapKey(kek, key, id);
    assert.equal(unwrapKey(kek, wrapped, id), key);
    assert.throws(() => unwrapKey(randomBytes(32), wrapped, id));
    assert.throws(() => unwrapKey(kek, wrapped, 'OTHER'));
  });
});
