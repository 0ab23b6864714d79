// whisper.cpp's C API, bound through koffi to the shared library @fugood/whisper.node ships (its index.node exports
// the whole whisper_* API). The JS binding does not pass `audio_ctx`, and without it every call encodes a full 30 s
// window however short the utterance; sized to the utterance, the encoder's cost follows the audio.
// The structs mirror whisper.h of the same package version; loading checks their defaults to catch a layout change.
import { createRequire } from 'node:module';
import { callAsync, type Fn } from './pocketsphinx-lib.js';

const require = createRequire(import.meta.url);

interface Koffi {
  load(path: string): { func(signature: string): Fn };
  struct(name: string | Record<string, unknown>, fields?: Record<string, unknown>): unknown;
  offsetof(type: unknown, field: string): number;
  sizeof(type: unknown): number;
}

export interface WhisperNative {
  /** Loads a model on a worker thread; the context pointer. */
  init(path: string): Promise<unknown>;
  newState: Fn;
  freeState: Fn;
  free: Fn;
  /** Default decoding parameters (greedy), as a plain object to adjust and pass to `full`. */
  defaults(): WhisperFullParams;
  /** whisper_full_with_state on a worker thread; 0 on success. */
  full(context: unknown, state: unknown, params: WhisperFullParams, samples: Float32Array): Promise<number>;
  segments(state: unknown): string[];
  /** The language of the latest transcription (the detected one when asked for 'auto'). */
  language(state: unknown): string;
}

export type WhisperFullParams = Record<string, unknown> & { greedy: { best_of: number }; beam_search: { beam_size: number } };

let loaded: WhisperNative | null = null;

/** Declares the structs by name for the function signatures below. */
function declare(koffi: Koffi): void {
  const aheads = koffi.struct('whisper_aheads', { n_heads: 'size_t', heads: 'void *' });
  koffi.struct('whisper_context_params', {
    use_gpu: 'bool',
    flash_attn: 'bool',
    gpu_device: 'int',
    dtw_token_timestamps: 'bool',
    dtw_aheads_preset: 'int',
    dtw_n_top: 'int',
    dtw_aheads: aheads,
    dtw_mem_size: 'size_t',
  });
  const vad = koffi.struct('whisper_vad_params', {
    threshold: 'float',
    min_speech_duration_ms: 'int',
    min_silence_duration_ms: 'int',
    max_speech_duration_s: 'float',
    speech_pad_ms: 'int',
    samples_overlap: 'float',
  });
  koffi.struct('whisper_full_params', {
    strategy: 'int',
    n_threads: 'int',
    n_max_text_ctx: 'int',
    offset_ms: 'int',
    duration_ms: 'int',
    translate: 'bool',
    no_context: 'bool',
    no_timestamps: 'bool',
    single_segment: 'bool',
    print_special: 'bool',
    print_progress: 'bool',
    print_realtime: 'bool',
    print_timestamps: 'bool',
    token_timestamps: 'bool',
    thold_pt: 'float',
    thold_ptsum: 'float',
    max_len: 'int',
    split_on_word: 'bool',
    max_tokens: 'int',
    debug_mode: 'bool',
    audio_ctx: 'int',
    tdrz_enable: 'bool',
    suppress_regex: 'const char *',
    initial_prompt: 'const char *',
    carry_initial_prompt: 'bool',
    prompt_tokens: 'void *',
    prompt_n_tokens: 'int',
    language: 'const char *',
    detect_language: 'bool',
    suppress_blank: 'bool',
    suppress_nst: 'bool',
    temperature: 'float',
    max_initial_ts: 'float',
    length_penalty: 'float',
    temperature_inc: 'float',
    entropy_thold: 'float',
    logprob_thold: 'float',
    no_speech_thold: 'float',
    greedy: koffi.struct({ best_of: 'int' }),
    beam_search: koffi.struct({ beam_size: 'int', patience: 'float' }),
    new_segment_callback: 'void *',
    new_segment_callback_user_data: 'void *',
    progress_callback: 'void *',
    progress_callback_user_data: 'void *',
    encoder_begin_callback: 'void *',
    encoder_begin_callback_user_data: 'void *',
    abort_callback: 'void *',
    abort_callback_user_data: 'void *',
    logits_filter_callback: 'void *',
    logits_filter_callback_user_data: 'void *',
    grammar_rules: 'void *',
    n_grammar_rules: 'size_t',
    i_start_rule: 'size_t',
    grammar_penalty: 'float',
    vad: 'bool',
    vad_model_path: 'const char *',
    vad_params: vad,
  });
}

/** The library file the JS binding loads for the default (CPU) variant on this platform. */
export function whisperLibraryPath(): string {
  return require.resolve(`@fugood/node-whisper-${process.platform}-${process.arch}/index.node`);
}

export function whisperNative(): WhisperNative {
  if (loaded) return loaded;
  const koffi = require('koffi') as Koffi;
  const lib = koffi.load(whisperLibraryPath());
  declare(koffi);
  const contextDefaults = lib.func('whisper_context_params whisper_context_default_params()');
  const initFromFile = lib.func('void* whisper_init_from_file_with_params_no_state(const char*, whisper_context_params)');
  const fullDefaults = lib.func('whisper_full_params whisper_full_default_params(int)');
  const fullWithState = lib.func('int whisper_full_with_state(void*, void*, whisper_full_params, const float*, int)');
  const nSegments = lib.func('int whisper_full_n_segments_from_state(void*)');
  const segmentText = lib.func('const char* whisper_full_get_segment_text_from_state(void*, int)');
  const langId = lib.func('int whisper_full_lang_id_from_state(void*)');
  const langStr = lib.func('const char* whisper_lang_str(int)');

  const probe = fullDefaults(0) as WhisperFullParams;
  // values whisper.cpp has set for years; a shifted field would read as something else
  if (probe.n_max_text_ctx !== 16384 || Math.abs((probe.entropy_thold as number) - 2.4) > 1e-6 || (probe.vad_params as { threshold: number }).threshold !== 0.5) {
    throw new Error(`the whisper.cpp library at ${whisperLibraryPath()} does not have the whisper_full_params layout Tolk was written for`);
  }

  loaded = {
    init: async (path) => {
      const params = { ...(contextDefaults() as Record<string, unknown>), use_gpu: false };
      const context = await callAsync(initFromFile, path, params);
      if (!context) throw new Error(`whisper.cpp could not load the model ${path}`);
      return context;
    },
    newState: lib.func('void* whisper_init_state(void*)'),
    freeState: lib.func('void whisper_free_state(void*)'),
    free: lib.func('void whisper_free(void*)'),
    defaults: () => structuredClone(probe),
    full: async (context, state, params, samples) => (await callAsync(fullWithState, context, state, params, samples, samples.length)) as number,
    segments: (state) => Array.from({ length: nSegments(state) as number }, (_, i) => segmentText(state, i) as string),
    language: (state) => langStr(langId(state)) as string,
  };
  return loaded;
}
