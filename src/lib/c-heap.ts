// glibc keeps memory freed by other threads (koffi's workers, worker threads) in their arenas for reuse; after a burst
// that memory stays resident until malloc_trim hands the free pages back (docs/benchmarks.md, issue 31).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Hands the C heap's free pages back to the system (glibc's malloc_trim). Called after memory held off the main thread
 * is freed: idle PocketSphinx decoders (~95 MiB each), an ended document format thread. A no-op where the C library
 * has no malloc_trim.
 */
export const trimCHeap: () => void = (() => {
  let trim: (() => unknown) | null | undefined;
  return () => {
    if (trim === undefined) {
      try {
        const koffi = require('koffi') as { load(name: string): { func(signature: string): (pad: number) => unknown } };
        const malloc_trim = koffi.load('libc.so.6').func('int malloc_trim(size_t)');
        trim = () => malloc_trim(0);
      } catch {
        trim = null;
      }
    }
    trim?.();
  };
})();
