// Debian's libpocketsphinx3 bound through koffi: the few decoder functions the recogniser and the keyword spotter use.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export type Fn = ((...args: unknown[]) => unknown) & { async(...args: unknown[]): void };

export interface PocketSphinxLib {
  /** ps_init on a worker thread: it loads the model (~300 ms) and must not stall other streams. */
  init(argv: string[]): Promise<unknown>;
  startStream: Fn;
  startUtt: Fn;
  endUtt: Fn;
  processRaw: Fn;
  getHyp: Fn;
  inSpeech: Fn;
  segIter: Fn;
  segNext: Fn;
  segWord: Fn;
  segFrames: Fn;
  free: Fn;
}

let loaded: PocketSphinxLib | null = null;

export function pocketSphinxLib(): PocketSphinxLib {
  if (loaded) return loaded;
  const koffi = require('koffi') as { load(name: string): { func(signature: string): Fn } };
  const sb = koffi.load('libsphinxbase.so.3');
  const ps = koffi.load('libpocketsphinx.so.3');
  const parse = sb.func('void* cmd_ln_parse_r(void*, void*, int, const char**, int)');
  const args = ps.func('void* ps_args()');
  const init = ps.func('void* ps_init(void*)');
  // Logging off once for the process: a per-decoder '-logfn' reopens sphinxbase's one global log file on every
  // ps_init, which races when the recogniser and a keyword spotter start on two worker threads at once.
  sb.func('void err_set_logfp(void*)')(null);
  loaded = {
    init: (argv) => callAsync(init, parse(null, args(), argv.length, argv, 1)),
    startStream: ps.func('int ps_start_stream(void*)'),
    startUtt: ps.func('int ps_start_utt(void*)'),
    endUtt: ps.func('int ps_end_utt(void*)'),
    processRaw: ps.func('int ps_process_raw(void*, const int16_t*, size_t, int, int)'),
    getHyp: ps.func('const char* ps_get_hyp(void*, _Out_ int32_t*)'),
    inSpeech: ps.func('uint8_t ps_get_in_speech(void*)'),
    segIter: ps.func('void* ps_seg_iter(void*)'),
    segNext: ps.func('void* ps_seg_next(void*)'),
    segWord: ps.func('const char* ps_seg_word(void*)'),
    segFrames: ps.func('void ps_seg_frames(void*, _Out_ int*, _Out_ int*)'),
    free: ps.func('int ps_free(void*)'),
  };
  return loaded;
}

export function callAsync(fn: Fn, ...args: unknown[]): Promise<unknown> {
  return new Promise((resolve, reject) => fn.async(...args, (err: unknown, res: unknown) => (err ? reject(err) : resolve(res))));
}
