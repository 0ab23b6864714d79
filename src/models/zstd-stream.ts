// zstd decompression of a download as it flows (fzstd: pure JS), bounded while it runs. fzstd decodes every block a
// push completes before it returns, and a 4-byte RLE block stands for up to 128 KiB (fzstd does not even hold it to
// that: up to 2 MiB), so one 64 KiB network chunk can stand for gigabytes. The input is therefore fed in small slices,
// each block's output is counted as fzstd hands it over, and the decoder is stopped (by throwing from its callback,
// which unwinds its push) the moment the output passes the size expected, a block passes zstd's block size, or a
// frame asks for a window larger than zstd's own default limit. What one slice can make is thus bounded by
// (ZSTD_SLICE / 4 + 1) × 128 KiB, and the stream goes on only as fast as the file is written.
import { Decompress } from 'fzstd';
import { ModelInstallError } from './model-install-error.js';

/** Compressed bytes fed to the decoder at a time. */
const ZSTD_SLICE = 512;
/** zstd's Block_Maximum_Size. */
const MAX_BLOCK_BYTES = 128 * 1024;
/** zstd's default decoder limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT, 2^27): fzstd allocates the window a frame asks for and copies it on every block. */
export const MAX_WINDOW_BYTES = 128 * 1024 * 1024;

/** fzstd 0.1's state of the frame being decoded (the window its header asked for), read to refuse a huge one. */
interface FrameState {
  s?: { e?: number } | number;
}

export interface ZstdLimits {
  /** The decompressed size expected: more output stops the stream. */
  maxBytes: number;
  /** Says the problem in the error: "<label> from <url> …". */
  label: string;
}

/**
 * A pipeline stage decompressing zstd, ending in a ModelInstallError (naming the size) once the output passes
 * `maxBytes`, or once the data is not valid zstd.
 */
export function zstdDecompressor({ maxBytes, label }: ZstdLimits): (source: AsyncIterable<Buffer>) => AsyncGenerator<Buffer> {
  return async function* decompress(source) {
    const ready: Buffer[] = [];
    let produced = 0;
    const decoder = new Decompress((block) => {
      const window = (decoder as unknown as FrameState).s;
      if (typeof window === 'object' && (window.e ?? 0) > MAX_WINDOW_BYTES) {
        throw new ModelInstallError(`${label} is refused: a zstd frame asks for a ${window.e}-byte window, more than the ${MAX_WINDOW_BYTES} zstd itself allows; nothing was installed`);
      }
      if (block.length > MAX_BLOCK_BYTES) throw new ModelInstallError(`${label} is corrupted: a zstd block of ${block.length} bytes, more than zstd's ${MAX_BLOCK_BYTES}; nothing was installed`);
      produced += block.length;
      if (produced > maxBytes) throw new ModelInstallError(`${label} decompresses to more than the ${maxBytes} bytes the index says; stopped there, nothing was installed`);
      ready.push(Buffer.from(block.buffer, block.byteOffset, block.byteLength));
    });
    const push = (slice: Uint8Array, final: boolean) => {
      try {
        decoder.push(slice, final);
      } catch (err) {
        if (err instanceof ModelInstallError) throw err;
        throw new ModelInstallError(`${label} is corrupted: not valid zstd data (${(err as Error).message}); nothing was installed`);
      }
    };
    for await (const chunk of source) {
      for (let at = 0; at < chunk.length; at += ZSTD_SLICE) {
        push(chunk.subarray(at, at + ZSTD_SLICE), false);
        yield* ready.splice(0);
      }
    }
    push(new Uint8Array(0), true);
    yield* ready.splice(0);
  };
}
