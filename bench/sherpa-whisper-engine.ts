// The benchmark's sherpa-onnx Whisper: Tolk's engine (src/voice/stt/sherpa-whisper.ts) on a generated model of the
// public sherpa-onnx-whisper-tiny.en's shape (float32), written to a temp dir that goes with the engine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SherpaWhisperEngine } from '../src/voice/stt/sherpa-whisper.js';
import { writeSherpaWhisperModel } from '../test/helpers/sherpa-whisper-model.js';
import { TINY_EN } from '../test/helpers/whisper-model.js';

/** sherpa-onnx's own default tail of silence: 10 s. */
const SHERPA_DEFAULT_TAIL = 1000;

/**
 * `tailPaddings` unset: sherpa-onnx's default 10 s of silence after the audio; 50: half a second, Tolk's default (as
 * it sizes whisper.cpp's encoder); 3000: always Whisper's whole 30 s window (sherpa-onnx caps the input there).
 */
export function tinyShapedSherpaWhisper(opts: { tailPaddings?: number } = {}): SherpaWhisperEngine {
  const dir = mkdtempSync(join(tmpdir(), 'tolk-bench-sherpa-whisper-'));
  const files = writeSherpaWhisperModel(dir, TINY_EN);
  // the generated model is known to load: no child-process check, so the load time measured is sherpa-onnx's alone
  const engine = new SherpaWhisperEngine({ files, threads: 2, probe: false, tailPaddings: opts.tailPaddings ?? SHERPA_DEFAULT_TAIL });
  const close = engine.close.bind(engine);
  engine.close = async () => {
    await close();
    rmSync(dir, { recursive: true, force: true });
  };
  return engine;
}
