// A generated GGUF language model (scripts/make-test-llm.mjs): llama architecture, seeded weights, a real tokenizer
// and chat template. Written once per process; its answers are nonsense, so tests prove that a request went through
// it (generation counts, post-edit outcomes), not what it said.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(fileURLToPath(import.meta.url), '../../../..');
let generated: string | undefined;

/** The path of the generated model (seed 35). */
export function testLlmFile(): string {
  if (!generated) {
    generated = join(mkdtempSync(join(tmpdir(), 'tolk-llm-')), 'tolk-test.gguf');
    execFileSync(process.execPath, [join(REPO, 'scripts/make-test-llm.mjs'), '--out', generated], { stdio: 'ignore', timeout: 60_000 });
  }
  return generated;
}

/** Installs the generated model into a models directory as TOLK_MODELS_DIR/llm/NAME.gguf; returns its path. */
export function installTestLlm(modelsDir: string, name = 'tolk-test'): string {
  const dir = join(modelsDir, 'llm');
  mkdirSync(dir, { recursive: true });
  const to = join(dir, `${name}.gguf`);
  // copied beside it under a hidden name, then renamed: a running server never sees half a model
  copyFileSync(testLlmFile(), join(dir, `.${name}.gguf.partial`));
  renameSync(join(dir, `.${name}.gguf.partial`), to);
  return to;
}
