// The installed speech engine with sherpa-onnx models (generated, real format, real runtime): a model directory
// installed while running (written hidden, renamed into place) is noticed by the watch and wins over a ggml file, a
// file changed inside it is noticed too, a broken one is logged and ignored (sherpa-onnx would exit the process on
// it: it is checked in a child process), and removing the directory falls back to the ggml model.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../../src/lib/logger.js';
import { InstalledSpeechEngine, type LoadableEngine } from '../../src/voice/stt/installed-engine.js';
import { writeSherpaWhisperModel } from '../helpers/sherpa-whisper-model.js';
import { waitFor } from '../helpers/wait.js';

const work = mkdtempSync(join(tmpdir(), 'tolk-installed-sherpa-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A ggml model stand-in: the whisper.cpp side is covered by installed-engine.test.ts. */
const ggml = (): LoadableEngine => ({
  name: 'whisper',
  languages: new Set(['en']),
  detectsLanguage: false,
  load: async () => {},
  createRecognizer: () => Promise.reject(new Error('not used')),
  close: async () => {},
});

/** Writes a model to a hidden directory and renames it into place, as `tolk models install` does. */
function install(dir: string, name: string, broken = false): void {
  const tmp = join(dir, `.${name}.tmp`);
  const files = writeSherpaWhisperModel(tmp);
  // a decoder graph as the encoder: valid ONNX without the encoder's metadata (sherpa-onnx exits on that)
  if (broken) copyFileSync(files.decoder, files.encoder);
  renameSync(tmp, join(dir, name));
}

describe('InstalledSpeechEngine with sherpa-onnx models', () => {
  it('uses an ONNX model installed while running over a ggml one, follows changes inside it, ignores a broken one, falls back on removal', async () => {
    const dir = join(work, 'whisper');
    mkdirSync(dir);
    writeFileSync(join(dir, 'ggml-a.bin'), 'a');
    const errors: string[] = [];
    const logger: Logger = { info() {}, warn() {}, error: (obj, msg) => errors.push(`${msg} ${String((obj as { err?: Error }).err?.message)}`) };
    const engine = new InstalledSpeechEngine({ mode: 'whisper', dir, logger, rescanIntervalMs: 0, whisper: ggml });
    try {
      assert.equal(engine.name, 'whisper');

      // noticed by the watch alone (no rescan call)
      install(dir, 'onnx-test.en');
      await waitFor('the ONNX model in use', () => engine.name === 'sherpa-whisper');
      assert.deepEqual([...engine.languages], ['en']);
      const session = await engine.createRecognizer('en');
      assert.deepEqual(await session.finish(), []);
      session.release();

      // a file rewritten inside the directory (here: a multilingual vocabulary) is a new model
      appendFileSync(join(dir, 'onnx-test.en', 'tokens.txt'), 'IQ== 50256\n');
      await waitFor('the changed model in use', () => engine.languages.has('de'));
      assert.equal(engine.detectsLanguage, true);

      // sorted first but broken: refused with a log line, not tried again while unchanged, the current engine stays
      install(dir, 'onnx-0broken', true);
      await waitFor('the broken model refused', () => errors.length > 0);
      await engine.rescan();
      assert.equal(errors.length, 1, errors.join('\n'));
      assert.match(errors[0]!, /speech model refused.*sherpa-onnx cannot load the Whisper model .*onnx-0broken.*metadata/);
      assert.equal(engine.name, 'sherpa-whisper');
      assert.ok(engine.languages.has('de'));

      rmSync(join(dir, 'onnx-0broken'), { recursive: true });
      rmSync(join(dir, 'onnx-test.en'), { recursive: true });
      await engine.rescan();
      assert.equal(engine.name, 'whisper');
    } finally {
      await engine.close();
    }
  });
});
