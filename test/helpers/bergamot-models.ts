// Generated Bergamot models for tests and benchmarks: scripts/make-test-model.mjs with the real Firefox vocabularies.
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BergamotEngine } from '../../src/engines/bergamot/index.js';

const REPO = resolve(fileURLToPath(import.meta.url), '../../../..');
/** Directory of the Firefox vocabularies: TOLK_BERGAMOT_VOCABS, else ../shared/data/bergamot beside the repository. */
export const BERGAMOT_VOCABS_DIR = process.env.TOLK_BERGAMOT_VOCABS ?? resolve(REPO, '../shared/data/bergamot');

/** The real SentencePiece vocabulary of a Firefox model: esen (Spanish/English) or deen (German/English). */
export function realVocab(name: 'esen' | 'deen'): string {
  const path = join(BERGAMOT_VOCABS_DIR, `vocab.${name}.spm`);
  if (existsSync(path)) return path;
  throw new Error(`${path} not found (set TOLK_BERGAMOT_VOCABS to the directory holding vocab.${name}.spm)`);
}

/** Mozilla's model architectures (see scripts/make-test-model.mjs). */
export type Architecture = 'tiny' | 'base-memory' | 'base';

export interface ModelSpec {
  /** Default tiny. */
  architecture?: Architecture;
  /** The published width (a 17–60 MB file); by default the width is reduced and the layers kept (a few MB). */
  fullSize?: boolean;
  /** Separate source and target vocabularies, as Mozilla's en-ja, en-ko and en-zh models have. */
  splitVocab?: boolean;
}

/** `'tiny'` and `'real'` are the older names of the reduced and the full-size tiny model. */
type Shape = ModelSpec | 'tiny' | 'real';

type MakeTestModel = (o: {
  vocab?: string;
  srcVocab?: string;
  trgVocab?: string;
  pair: string;
  shape: Architecture;
  reduced: boolean;
  out: string;
  seed?: number;
}) => Record<string, string>;

/** Writes a generated model directory for `pair` (e.g. "en-es") into `out`. */
export async function makeModel(out: string, pair: string, shape: Shape = {}): Promise<string> {
  const spec: ModelSpec = shape === 'real' ? { fullSize: true } : shape === 'tiny' ? {} : shape;
  const mod = (await import(pathToFileURL(join(REPO, 'scripts/make-test-model.mjs')).href)) as { makeTestModel: MakeTestModel };
  const common = { pair, shape: spec.architecture ?? 'tiny', reduced: !spec.fullSize, out };
  if (spec.splitVocab) {
    // English reads with either vocabulary: each side takes the one of its language.
    const target = pair.split('-').at(-1) === 'de' ? 'deen' : 'esen';
    mod.makeTestModel({ ...common, srcVocab: realVocab(target === 'deen' ? 'esen' : 'deen'), trgVocab: realVocab(target) });
  } else mod.makeTestModel({ ...common, vocab: realVocab(pair.includes('de') ? 'deen' : 'esen') });
  return out;
}

/** A fresh models directory holding generated models for the given pairs (one sub-directory per pair). */
export async function modelsDirWith(pairs: string[], shape: Shape = {}): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'tolk-models-'));
  for (const pair of pairs) await makeModel(join(root, pair), pair, shape);
  return root;
}

/** Anything with runtimes to watch (a BergamotEngine). */
interface HasRuntimes {
  runtimeMemory(): { heapBytes: number[] };
}

/** Watches the sum of an engine's runtime heaps every 5 ms; `peak()` takes one more sample and `stop()` ends it. */
export function heapPeakSampler(engine: HasRuntimes): { peak: () => number; stop: () => void } {
  let peak = 0;
  const sample = () => (peak = Math.max(peak, engine.runtimeMemory().heapBytes.reduce((a, b) => a + b, 0)));
  const timer = setInterval(sample, 5);
  return { peak: () => sample(), stop: () => clearInterval(timer) };
}

/**
 * What one worker holding one generated model of `pair` takes (the unit test budgets are made of): the sum of the
 * runtime heaps after one translation, and the bare runtime's heap before any model.
 */
export async function measureOneModel(root: string, pair: { source: string; target: string }): Promise<{ oneModelHeap: number; bareHeap: number }> {
  const probe = new BergamotEngine({ modelsDir: root, workers: 1, rescanIntervalMs: 0 });
  try {
    await probe.start();
    await probe.translate(pair, ['The house is big.'], {});
    const oneModelHeap = probe.runtimeMemory().heapBytes.reduce((a, b) => a + b, 0);
    const bareHeap = (probe as unknown as { pool: { workers: { baseHeapBytes: number }[] } }).pool.workers[0]!.baseHeapBytes;
    return { oneModelHeap, bareHeap };
  } finally {
    await probe.close();
  }
}
