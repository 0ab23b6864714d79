// A voice stream as a client sends it (used by bench/voice.ts and bench/tenants.ts): English utterances synthesised
// by flite with silence between them, streamed over /v3/voice/realtime/connect in 100 ms chunks at real-time pace, and
// what came back (concluded transcripts, the first translated audio after each utterance, errors).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { parseWav, resample } from '../src/voice/audio/pcm.js';

export const UTTERANCES = [
  'The weather is nice today.',
  'I would like to visit the old city with my friends.',
  'Please send me the report before the meeting tomorrow.',
  'Our train leaves from the central station at nine in the morning.',
  'Can you tell me where the nearest pharmacy is?',
];
const GAP_MS = 1200;
export const CHUNK_MS = 100;

export function synth(text: string): Int16Array {
  const dir = mkdtempSync(join(tmpdir(), 'tolk-bench-'));
  try {
    spawnSync('flite', ['-voice', 'slt', '-o', join(dir, 'a.wav'), '-t', text]);
    const wav = parseWav(readFileSync(join(dir, 'a.wav')));
    return resample(wav.samples, wav.sampleRate, 16000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The utterances with silence between them, and where each utterance's speech ends (ms). */
export function buildAudio(): { pcm: Buffer; ends: number[] } {
  const parts: Int16Array[] = [];
  const ends: number[] = [];
  let ms = 0;
  for (const u of UTTERANCES) {
    const s = synth(u);
    parts.push(s);
    ms += (s.length / 16000) * 1000;
    ends.push(ms);
    parts.push(new Int16Array((GAP_MS * 16000) / 1000));
    ms += GAP_MS;
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const all = new Int16Array(total);
  let o = 0;
  for (const p of parts) (all.set(p, o), (o += p.length));
  return { pcm: Buffer.from(all.buffer), ends };
}

export interface StreamResult {
  transcriptLatency: number[];
  audioLatency: number[];
  text: string;
  /** The stream's error messages, in order. */
  errors: string[];
}

export async function runStream(url: string, pcm: Buffer, ends: number[], rate = 16000): Promise<StreamResult> {
  const ws = new WebSocket(url);
  await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
  const endSentAt: number[] = [];
  const transcriptAt = new Map<number, number>();
  const audioAt = new Map<number, number>();
  const texts: string[] = [];
  const errors: string[] = [];
  let lastConcluded = -1;
  const closed = new Promise<void>((r) => ws.on('close', () => r()));
  ws.on('message', (data: Buffer) => {
    const now = performance.now();
    const m = JSON.parse(data.toString());
    for (const seg of m.source_transcript_update?.concluded ?? []) {
      texts.push(seg.text);
      if (process.env.TOLK_BENCH_VOICE_DEBUG) console.log('concluded', seg.start_time, seg.end_time, seg.text, ends);
      const u = ends.findIndex((e) => seg.end_time <= e + 600);
      if (u >= 0) (transcriptAt.set(u, now), (lastConcluded = u));
    }
    if (m.target_media_chunk && lastConcluded >= 0 && !audioAt.has(lastConcluded)) audioAt.set(lastConcluded, now);
    if (m.error) errors.push(typeof m.error === 'string' ? m.error : JSON.stringify(m.error));
  });
  const bytesPerChunk = (rate * 2 * CHUNK_MS) / 1000;
  const start = performance.now();
  for (let i = 0, n = 0; i < pcm.length; i += bytesPerChunk, n++) {
    ws.send(JSON.stringify({ source_media_chunk: { data: pcm.subarray(i, i + bytesPerChunk).toString('base64') } }));
    const sentMs = ((i + bytesPerChunk) / (rate * 2)) * 1000;
    ends.forEach((e, u) => {
      if (endSentAt[u] === undefined && sentMs >= e) endSentAt[u] = performance.now();
    });
    const wait = start + (n + 1) * CHUNK_MS - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  ws.send(JSON.stringify({ end_of_source_media: {} }));
  await closed;
  return {
    transcriptLatency: ends.map((_, u) => (transcriptAt.get(u) ?? NaN) - endSentAt[u]!),
    audioLatency: ends.map((_, u) => (audioAt.get(u) ?? NaN) - endSentAt[u]!),
    text: texts.join(''),
    errors,
  };
}

/** The q-quantile (nearest rank); a missing value (NaN: never concluded) counts as infinitely late. */
const quantile = (xs: number[], q: number) => {
  const s = xs.map((x) => (Number.isNaN(x) ? Infinity : x)).sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]! : NaN;
};
export const p50 = (xs: number[]) => quantile(xs, 0.5);
export const p90 = (xs: number[]) => quantile(xs, 0.9);
