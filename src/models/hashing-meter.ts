// A pass-through stream that counts and hashes what flows through it: installs check size and SHA-256 of what they
// wrote without reading the file again.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface HashingMeter {
  readonly stream: Transform;
  /** Bytes that have passed so far. */
  readonly bytes: number;
  /** SHA-256 (hex) of everything that passed; call once, after the stream has finished. */
  sha256(): string;
}

/** `onBytes` is told the running byte count after each chunk (progress lines). */
export function hashingMeter(onBytes?: (bytes: number) => void): HashingMeter {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      hash.update(chunk);
      onBytes?.(bytes);
      callback(null, chunk);
    },
  });
  return {
    stream,
    get bytes() {
      return bytes;
    },
    sha256: () => hash.digest('hex'),
  };
}

/** SHA-256 (hex) of a file, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}
