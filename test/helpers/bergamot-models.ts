// Generated Bergamot models for tests and benchmarks: scripts/make-test-model.mjs with the real Firefox vocabularies.
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = resolve(fileURLToPath(import.meta.url), '../../../..');
/** Directory of the Firefox vocabularies: TOLK_BERGAMOT_VOCABS, else ../shared/data/bergamot beside the repository. */
export const BERGAMOT_VOCABS_DIR = process.env.TOLK_BERGAMOT_VOCABS ?? resolve(REPO, '../shared/data/bergamot');

/** The real SentencePiece vocabulary of a Firefox model: esen (Spanish/English) or deen (German/English). */
export function realVocab(name: 'esen' | 'deen'): string {
  const path = join(BERGAMOT_VOCABS_DIR, `vocab.${name}.spm`);
  if (existsSync(path)) return path;
  throw new Error(`${path} not found (set TOLK_BERGAMOT_VOCABS to the directory holding vocab.${name}.spm)`);
}

type MakeTestModel = (o: { vocab: string; pair: string; shape: 'tiny' | 'real'; out: string; seed?: number }) => Record<string, string>;

/** Writes a generated model directory for `pair` (e.g. "en-es") into `out`. */
export async function makeModel(out: string, pair: string, shape: 'tiny' | 'real' = 'tiny'): Promise<string> {
  const mod = (await import(pathToFileURL(join(REPO, 'scripts/make-test-model.mjs')).href)) as { makeTestModel: MakeTestModel };
  const vocab = realVocab(pair.includes('de') ? 'deen' : 'esen');
  mod.makeTestModel({ vocab, pair, shape, out });
  return out;
}

/** A fresh models directory holding generated models for the given pairs (one sub-directory per pair). */
export async function modelsDirWith(pairs: string[], shape: 'tiny' | 'real' = 'tiny'): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'tolk-models-'));
  for (const pair of pairs) await makeModel(join(root, pair), pair, shape);
  return root;
}
