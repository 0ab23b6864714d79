// Worker thread hosting one instance of the Bergamot WebAssembly translator (@browsermt/bergamot-translator):
// loads models from file buffers and translates batches, so the event loop never waits on a forward pass.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parentPort } from 'node:worker_threads';

export type WorkerCall =
  | { op: 'load'; key: string; config: string; model: ArrayBuffer; shortlist: ArrayBuffer; vocabs: ArrayBuffer[] }
  | { op: 'free'; key: string }
  | { op: 'translate'; key: string; texts: string[]; html?: boolean[] };
export type WorkerRequest = WorkerCall & { id: number };
export type CallReply = { id: number; ok: true; texts?: string[]; heapBytes: number } | { id: number; ok: false; message: string; fatal: boolean };

export type WorkerReply =
  | CallReply
  | { ready: true; heapBytes: number }
  | { ready: false; message: string };

/* eslint-disable @typescript-eslint/no-explicit-any -- the Emscripten module is untyped */
type Runtime = any;

// The runtime's int8 GEMM imports, bound to the portable fallbacks compiled into the same binary (Firefox can
// swap in a native implementation; Node has none).
const GEMM_FALLBACKS: Record<string, string> = {
  int8_prepare_a: 'int8PrepareAFallback',
  int8_prepare_b: 'int8PrepareBFallback',
  int8_prepare_b_from_transposed: 'int8PrepareBFromTransposedFallback',
  int8_prepare_b_from_quantized_transposed: 'int8PrepareBFromQuantizedTransposedFallback',
  int8_prepare_bias: 'int8PrepareBiasFallback',
  int8_multiply_and_add_bias: 'int8MultiplyAndAddBiasFallback',
  int8_select_columns_of_b: 'int8SelectColumnsOfBFallback',
};

function loadRuntime(): Promise<Runtime> {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('@browsermt/bergamot-translator/worker/bergamot-translator-worker.wasm'));
  const glue = readFileSync(join(dir, 'bergamot-translator-worker.js'), 'utf8');
  const wasm = readFileSync(join(dir, 'bergamot-translator-worker.wasm'));
  return new Promise((resolve, reject) => {
    const Module: Runtime = {
      print: () => {},
      printErr: () => {},
      instantiateWasm(info: WebAssembly.Imports, accept: (instance: WebAssembly.Instance) => void) {
        const gemm = Object.fromEntries(Object.entries(GEMM_FALLBACKS).map(([k, v]) => [k, (...a: unknown[]) => Module.asm[v](...a)]));
        WebAssembly.instantiate(wasm, { ...info, wasm_gemm: gemm }).then(({ instance }) => accept(instance), reject);
        return {};
      },
      onRuntimeInitialized: () => resolve(Module),
      onAbort: (what: unknown) => reject(new Error(`runtime aborted: ${String(what)}`)),
    };
    // The glue is a classic script that fills the `Module` it finds in scope.
    new Function('Module', glue)(Module);
  });
}

const port = parentPort!;
const models = new Map<string, Runtime>();
let runtime: Runtime;
let service: Runtime;

const heapBytes = (): number => (runtime?.HEAP8?.buffer as ArrayBuffer | undefined)?.byteLength ?? 0;

function aligned(buf: ArrayBuffer, alignment: number): Runtime {
  const memory = new runtime.AlignedMemory(buf.byteLength, alignment);
  memory.getByteArrayView().set(new Uint8Array(buf));
  return memory;
}

function load(req: Extract<WorkerCall, { op: 'load' }>): void {
  models.get(req.key)?.delete();
  models.delete(req.key);
  const vocabs = new runtime.AlignedMemoryList();
  for (const v of req.vocabs) vocabs.push_back(aligned(v, 64));
  models.set(req.key, new runtime.TranslationModel(req.config, aligned(req.model, 256), aligned(req.shortlist, 64), vocabs, null));
}

function translate(req: Extract<WorkerCall, { op: 'translate' }>): string[] {
  const model = models.get(req.key);
  if (!model) throw new Error(`model ${req.key} is not loaded in this worker`);
  const input = new runtime.VectorString();
  const options = new runtime.VectorResponseOptions();
  try {
    req.texts.forEach((text, i) => {
      input.push_back(text);
      // HTML mode carries tags to the target words aligned with their contents (glossary terms use it).
      const html = req.html?.[i] === true;
      options.push_back({ qualityScores: false, alignment: html, html });
    });
    const responses = service.translate(model, input, options);
    try {
      return req.texts.map((_, i) => responses.get(i).getTranslatedText() as string);
    } finally {
      responses.delete();
    }
  } finally {
    input.delete();
    options.delete();
  }
}

port.on('message', (req: WorkerRequest) => {
  try {
    if (req.op === 'load') load(req);
    else if (req.op === 'free') {
      models.get(req.key)?.delete();
      models.delete(req.key);
    } else {
      port.postMessage({ id: req.id, ok: true, texts: translate(req), heapBytes: heapBytes() } satisfies WorkerReply);
      return;
    }
    port.postMessage({ id: req.id, ok: true, heapBytes: heapBytes() } satisfies WorkerReply);
  } catch (err) {
    // A C++ abort leaves the WebAssembly instance unusable: the pool replaces the worker.
    const fatal = err instanceof WebAssembly.RuntimeError || /abort/i.test(String((err as Error)?.message ?? err));
    port.postMessage({ id: req.id, ok: false, message: String((err as Error)?.message ?? err), fatal } satisfies WorkerReply);
  }
});

loadRuntime().then(
  (m) => {
    runtime = m;
    service = new runtime.BlockingService({ cacheSize: 0 });
    port.postMessage({ ready: true, heapBytes: heapBytes() } satisfies WorkerReply);
  },
  (err) => port.postMessage({ ready: false, message: String((err as Error)?.message ?? err) } satisfies WorkerReply),
);
