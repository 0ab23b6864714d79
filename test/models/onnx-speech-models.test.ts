// `tolk models install whisper-onnx-NAME --from DIR` on a generated model laid out as sherpa-onnx's public release
// (NAME-encoder.onnx and .int8.onnx, NAME-decoder.onnx, NAME-tokens.txt): the preferred files are copied and loaded
// once, then renamed into place; an incomplete or broken directory and a missing --from are refused with a clear
// message, leaving nothing behind; list and remove see the model.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { writeSherpaWhisperModel } from '../helpers/sherpa-whisper-model.js';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'tolk-onnx-speech-models-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A release directory as sherpa-onnx publishes it; `int8` adds the quantised graphs (here: copies, renamed). */
function release(name: string, opts: { int8?: boolean; broken?: boolean } = {}): string {
  const dir = join(work, `sherpa-onnx-whisper-${name}`);
  const files = writeSherpaWhisperModel(dir);
  renameSync(files.encoder, join(dir, 'test-encoder.onnx'));
  renameSync(files.decoder, join(dir, 'test-decoder.onnx'));
  renameSync(files.tokens, join(dir, 'test-tokens.txt'));
  if (opts.int8) {
    copyFileSync(join(dir, 'test-encoder.onnx'), join(dir, 'test-encoder.int8.onnx'));
    copyFileSync(join(dir, 'test-decoder.onnx'), join(dir, 'test-decoder.int8.onnx'));
  }
  // the decoder as the encoder: valid ONNX without the metadata sherpa-onnx needs
  if (opts.broken) copyFileSync(join(dir, 'test-decoder.onnx'), join(dir, 'test-encoder.onnx'));
  return dir;
}

const cli = join(process.cwd(), 'dist/src/cli.js');
const tolk = (modelsDir: string, ...args: string[]) =>
  run(process.execPath, [cli, 'models', ...args], { env: { ...process.env, TOLK_MODELS_DIR: modelsDir, TOLK_DATA_DIR: work } });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail('the command succeeded'),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );

describe('tolk models install whisper-onnx-NAME --from DIR', () => {
  it('installs a release directory (int8 preferred), lists it and removes it', async () => {
    const modelsDir = join(work, 'm1');
    const out = (await tolk(modelsDir, 'install', 'whisper-onnx-test', '--from', release('good', { int8: true }))).stdout;
    assert.match(out, /^installed whisper-onnx-test \([\d.]+ MB\) in .*whisper\/onnx-test\n$/);
    assert.deepEqual(readdirSync(join(modelsDir, 'whisper')), ['onnx-test']);
    assert.deepEqual(readdirSync(join(modelsDir, 'whisper', 'onnx-test')).sort(), ['test-decoder.int8.onnx', 'test-encoder.int8.onnx', 'test-tokens.txt']);
    const list = JSON.parse((await tolk(modelsDir, 'list', '--json')).stdout);
    assert.deepEqual(list.speech_models.map((m: { name: string; path: string }) => [m.name, m.path]), [['whisper-onnx-test', join(modelsDir, 'whisper', 'onnx-test')]]);
    assert.match((await tolk(modelsDir, 'list')).stdout, /whisper-onnx-test +[\d.]+ MB/);
    // verify loads it in sherpa-onnx (no published hashes); an encoder broken after install fails it
    assert.match((await tolk(modelsDir, 'verify', 'whisper-onnx-test')).stdout, /^ok +whisper-onnx-test /);
    const installed = join(modelsDir, 'whisper', 'onnx-test');
    copyFileSync(join(installed, 'test-decoder.int8.onnx'), join(installed, 'test-encoder.int8.onnx'));
    const verified = await failure(tolk(modelsDir, 'verify'));
    assert.match(verified.stdout, /^FAILED +whisper-onnx-test .*\n +sherpa-onnx cannot load the Whisper model .*'n_mels' does not exist/);
    await tolk(modelsDir, 'remove', 'whisper-onnx-test');
    assert.deepEqual(readdirSync(join(modelsDir, 'whisper')), []);
    const again = await failure(tolk(modelsDir, 'remove', 'whisper-onnx-test'));
    assert.match(again.stderr, /no speech model whisper-onnx-test is installed/);
  });

  it('refuses a directory missing a file, a broken encoder and a missing --from, leaving nothing behind', async () => {
    const modelsDir = join(work, 'm2');
    const incomplete = release('incomplete');
    unlinkSync(join(incomplete, 'test-tokens.txt'));
    const missing = await failure(tolk(modelsDir, 'install', 'whisper-onnx-test', '--from', incomplete));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /is not a sherpa-onnx Whisper model directory: it needs .*\*tokens\.txt/);

    const broken = await failure(tolk(modelsDir, 'install', 'whisper-onnx-test', '--from', release('broken', { broken: true })));
    assert.match(broken.stderr, /is refused: sherpa-onnx cannot load the Whisper model .*'n_mels' does not exist in the metadata/);
    assert.deepEqual(readdirSync(join(modelsDir, 'whisper')), []);

    const noFrom = await failure(tolk(modelsDir, 'install', 'whisper-onnx-tiny.en'));
    assert.match(noFrom.stderr, /installed from a local copy of sherpa-onnx's release .* does not download them.*sherpa-onnx-whisper-tiny\.en\.tar\.bz2.*--from/);
    assert.match(noFrom.stderr, /tiny\.en-encoder\.int8\.onnx or tiny\.en-encoder\.onnx, tiny\.en-decoder\(\.int8\)\.onnx and tiny\.en-tokens\.txt/);
    const fromOnGgml = await failure(tolk(modelsDir, 'install', 'whisper-tiny', '--from', incomplete));
    assert.match(fromOnGgml.stderr, /--from only goes with whisper-onnx-NAME/);
  });
});
