// Speech-to-text engines measured alike on the same audio (used by bench/voice.ts): model load time and memory,
// real-time factor (wall and CPU: the machine is shared, CPU time says what the engine itself costs) and, fed at
// real-time pace, the latency from the end of each utterance's last word to its concluded segment.
import { existsSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpeechToTextEngine } from '../src/voice/stt/engine.js';
import { WhisperEngine } from '../src/voice/stt/whisper.js';
import { TINY_EN, writeWhisperModel } from '../test/helpers/whisper-model.js';

const CHUNK = 1600; // 100 ms, as the stream feeds the recogniser

export interface EngineFigures {
  loadMs: number;
  loadRssMb: number;
  /** The sessions' audio fed as fast as taken, all sessions at once: wall (and process CPU) time / audio time. */
  rtfWall: number;
  rtfCpu: number;
  /** end of each utterance → its concluded segment, every session (NaN: never concluded) */
  latencies: number[];
  /** At real-time pace: partial results per session, and (Whisper) transcriptions and their time / audio time. */
  partials: number;
  calls: number;
  busy: number;
  text: string;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

type Stats = { calls: number; busyMs: number };
const statsOf = (engine: SpeechToTextEngine): Stats => ({ ...((engine as { stats?: Stats }).stats ?? { calls: 0, busyMs: 0 }) });

/** `sessions` recognisers on one engine, fed the same audio at once (the engine's share of a busy server). */
export async function measureEngine(engine: SpeechToTextEngine, samples: Int16Array, ends: number[], sessions = 1): Promise<EngineFigures> {
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const first = [await engine.createRecognizer('en')];
  const loadMs = performance.now() - t0;
  const loadRssMb = (process.memoryUsage().rss - rss0) / 1e6;
  for (let i = 1; i < sessions; i++) first.push(await engine.createRecognizer('en'));
  const audioMs = (samples.length / 16000) * 1000;

  // as fast as the engine takes it
  const w0 = performance.now();
  const c0 = cpuMs();
  await Promise.all(
    first.map(async (r) => {
      for (let i = 0; i < samples.length; i += CHUNK) await r.write(samples.subarray(i, i + CHUNK));
      await r.finish();
      r.release();
    }),
  );
  const rtfWall = (performance.now() - w0) / audioMs;
  const rtfCpu = (cpuMs() - c0) / audioMs;

  // at real-time pace: when each utterance's concluded segment comes, against when the audio of its last word went in
  // (flite's files end in silence, so the end of the file would be later than the end of speech)
  const stats0 = statsOf(engine);
  let partials = 0;
  const perSession = await Promise.all(
    Array.from({ length: sessions }, async () => {
      const r = await engine.createRecognizer('en');
      const chunkFedAt: number[] = [];
      const latencies = ends.map(() => NaN);
      const texts: string[] = [];
      const start = performance.now();
      const take = (events: Awaited<ReturnType<typeof r.write>>) => {
        for (const e of events) {
          if (e.kind !== 'final') {
            partials++;
            continue;
          }
          texts.push(e.segment.text);
          const u = ends.findIndex((end) => e.segment.endMs <= end + 600);
          if (process.env.TOLK_BENCH_VOICE_DEBUG) console.log('final', e.segment, 'utterance', u, 'ends', ends.map(Math.round));
          const fedAt = chunkFedAt[Math.floor(e.segment.endMs / 100)];
          // an utterance concluded in parts counts when its last part came
          if (u >= 0 && fedAt !== undefined) latencies[u] = performance.now() - fedAt;
        }
      };
      for (let i = 0, n = 0; i < samples.length; i += CHUNK, n++) {
        chunkFedAt[n] = performance.now();
        take(await r.write(samples.subarray(i, i + CHUNK)));
        const wait = start + (n + 1) * 100 - performance.now();
        if (wait > 0) await new Promise((res) => setTimeout(res, wait));
      }
      take(await r.finish());
      r.release();
      return { latencies, text: texts.join(' ') };
    }),
  );
  const stats1 = statsOf(engine);
  const latencies = perSession.flatMap((s) => s.latencies);
  if (process.env.TOLK_BENCH_VOICE_DEBUG) console.log('latencies', latencies.map(Math.round));
  return {
    loadMs,
    loadRssMb,
    rtfWall,
    rtfCpu,
    latencies,
    partials: partials / sessions,
    calls: stats1.calls - stats0.calls,
    busy: (stats1.busyMs - stats0.busyMs) / audioMs,
    text: perSession[0]!.text,
  };
}

/** Whisper (encoder sized to the utterance, or `fullWindow`: whisper.cpp's fixed 30 s) on a generated model of ggml-tiny.en.bin's shape (cached in the temp dir: writing it takes a while). */
export function tinyShapedWhisper(opts: { fullWindow?: boolean } = {}): WhisperEngine {
  const path = join(tmpdir(), 'tolk-bench-ggml-tiny.en-shape.bin');
  if (!existsSync(path)) {
    writeWhisperModel(`${path}.part`, TINY_EN);
    renameSync(`${path}.part`, path);
  }
  return new WhisperEngine({ modelPath: path, fullWindow: opts.fullWindow ?? false });
}
