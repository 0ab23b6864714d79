// Shared by the voice suites: synthesized speech fixtures (flite), container encoding (ffmpeg), a WebSocket client
// that records every server message, and word error rate.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { decode as msgpackDecode, encode as msgpackEncode } from '@msgpack/msgpack';
import { parseWav, resample } from '../../src/voice/audio/pcm.js';
import { HUNG_TEST_MS } from '../helpers/wait.js';

/** 16 kHz mono s16le speech for `text` (flite's slt voice is 16 kHz). */
export function synthesize(text: string, voice: 'slt' | 'rms' = 'slt'): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'tolk-voice-'));
  let wav;
  try {
    const r = spawnSync('flite', ['-voice', voice, '-o', join(dir, 'a.wav'), '-t', text]);
    if (r.status !== 0) throw new Error('flite failed');
    wav = parseWav(readFileSync(join(dir, 'a.wav')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const samples = resample(wav.samples, wav.sampleRate, 16000);
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}

/** Encodes 16 kHz mono s16le with ffmpeg into a container (e.g. ['-c:a','libopus','-f','ogg']). */
export function encode(pcm: Buffer, args: string[]): Buffer {
  const r = spawnSync('ffmpeg', ['-loglevel', 'error', '-f', 's16le', '-ar', '16000', '-ac', '1', '-i', 'pipe:0', ...args, 'pipe:1'], {
    input: pcm,
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`ffmpeg failed: ${r.stderr.toString()}`);
  return r.stdout;
}

/** Decodes any audio with ffmpeg to 16 kHz s16le; throws when ffmpeg cannot read it. */
export function decodeAudio(bytes: Buffer, inputFormat?: string[]): Buffer {
  const r = spawnSync('ffmpeg', ['-loglevel', 'error', ...(inputFormat ?? []), '-i', 'pipe:0', '-ac', '1', '-ar', '16000', '-f', 's16le', 'pipe:1'], {
    input: bytes,
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`ffmpeg could not decode: ${r.stderr.toString()}`);
  return r.stdout;
}

export function words(text: string): string[] {
  return text.toLowerCase().replace(/[^\p{L}\p{N}' ]+/gu, ' ').split(/\s+/).filter(Boolean);
}

/** Word error rate: word-level edit distance / reference length. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = words(reference);
  const hyp = words(hypothesis);
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const cur = [i];
    for (let j = 1; j <= hyp.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[hyp.length]! / Math.max(1, ref.length);
}

export type Msg = Record<string, any>;

export interface VoiceClient {
  ws: WebSocket;
  messages: Msg[];
  /** Resolves when the server closes the connection. */
  closed: Promise<{ code: number; reason: string }>;
  send(msg: unknown): void;
  sendRaw(data: string | Buffer): void;
  /** Streams `audio` in chunks of `chunkBytes`, one every `intervalMs`, then end_of_source_media. */
  stream(audio: Buffer, chunkBytes: number, intervalMs: number, end?: boolean): Promise<void>;
  /** Resolves with the first message matching `pred` (or rejects after timeoutMs). */
  waitFor(pred: (m: Msg) => boolean, timeoutMs?: number): Promise<Msg>;
}

/** `maxPayload`: the largest message the client reads (the reference client's library stops at 1 MiB). */
export async function connectVoice(url: string, format: 'json' | 'msgpack' = 'json', options: { maxPayload?: number } = {}): Promise<VoiceClient> {
  const ws = new WebSocket(url, options);
  const messages: Msg[] = [];
  const waiters: { pred: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    const msg = (isBinary ? msgpackDecode(data) : JSON.parse(data.toString())) as Msg;
    messages.push(msg);
    for (const w of waiters.splice(0)) (w.pred(msg) ? w.resolve(msg) : waiters.push(w));
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const send = (msg: unknown) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    if (format === 'msgpack') ws.send(msgpackEncode(msg));
    else ws.send(JSON.stringify(msg));
  };
  return {
    ws,
    messages,
    closed,
    send,
    sendRaw: (data) => ws.readyState === WebSocket.OPEN && ws.send(data),
    async stream(audio, chunkBytes, intervalMs, end = true) {
      const start = Date.now();
      for (let i = 0, n = 0; i < audio.length; i += chunkBytes, n++) {
        const chunk = audio.subarray(i, Math.min(audio.length, i + chunkBytes));
        send({ source_media_chunk: { data: format === 'msgpack' ? chunk : chunk.toString('base64') } });
        const wait = start + (n + 1) * intervalMs - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      if (end) send({ end_of_source_media: {} });
    },
    waitFor(pred, timeoutMs = HUNG_TEST_MS) {
      const found = messages.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('timed out waiting for a message')), timeoutMs);
        waiters.push({ pred, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      });
    },
  };
}

/** The concluded segments joined as the reference client joins them: with "" (segments carry their spacing). */
export function concludedText(messages: Msg[], kind: 'source' | string): string {
  const parts: string[] = [];
  for (const m of messages) {
    const u = kind === 'source' ? m.source_transcript_update : m.target_transcript_update?.language === kind ? m.target_transcript_update : null;
    if (u) for (const s of u.concluded as { text: string }[]) parts.push(s.text);
  }
  return parts.join('');
}

/** 16 kHz s16le resampled by ffmpeg to `rate` (a high-quality resampler, so only the server's own is tested). */
export function atRate(pcm16k: Buffer, rate: number): Buffer {
  return encode(pcm16k, ['-af', 'aresample=resampler=soxr', '-ar', String(rate), '-f', 's16le']);
}
