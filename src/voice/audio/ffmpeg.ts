// ffmpeg child processes for the container formats: a streaming decoder (any source container → 16 kHz mono s16le)
// and a streaming encoder (PCM → the requested target container), so the event loop never decodes codecs itself.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface FfmpegStreamOptions {
  ffmpegPath?: string;
  /** After the input ends, ffmpeg must flush and exit within this long (default 10 s), else it is killed. */
  finishTimeoutMs?: number;
  onData(chunk: Buffer): void;
  /** Called once: null on a clean end, else a short reason. */
  onEnd(error: string | null): void;
}

class FfmpegStream {
  private readonly proc: ChildProcessWithoutNullStreams;
  private stderr = '';
  private ended = false;
  private finishTimer: NodeJS.Timeout | undefined;

  constructor(args: string[], private readonly opts: FfmpegStreamOptions) {
    this.proc = spawn(opts.ffmpegPath ?? 'ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'error', ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.proc.stdout.on('data', (chunk: Buffer) => opts.onData(chunk));
    this.proc.stderr.on('data', (chunk: Buffer) => {
      if (this.stderr.length < 4000) this.stderr += chunk.toString();
    });
    // EPIPE when ffmpeg gave up on bad input: reported through the exit code instead.
    this.proc.stdin.on('error', () => {});
    this.proc.on('error', (err) => this.finish(`ffmpeg could not start: ${err.message}`));
    this.proc.on('close', (code, signal) => {
      this.finish(code === 0 ? null : signal ? `ffmpeg stopped (${signal})` : this.stderr.trim().split('\n').pop() || `ffmpeg exited with ${code}`);
    });
  }

  private finish(error: string | null): void {
    clearTimeout(this.finishTimer);
    if (this.ended) return;
    this.ended = true;
    this.opts.onEnd(error);
  }

  write(data: Uint8Array): void {
    if (!this.ended && this.proc.stdin.writable) this.proc.stdin.write(data);
  }

  /** No more input: ffmpeg flushes and exits, or is killed with an error when it does not in time. */
  end(): void {
    if (this.proc.stdin.writable) this.proc.stdin.end();
    if (this.ended || this.finishTimer) return;
    const ms = this.opts.finishTimeoutMs ?? 10_000;
    this.finishTimer = setTimeout(() => {
      this.finish(`ffmpeg did not finish within ${ms / 1000} s of the end of the audio`);
      this.proc.kill('SIGKILL');
    }, ms);
  }

  /** The session is over: the process ends now, without a report. */
  kill(): void {
    clearTimeout(this.finishTimer);
    this.ended = true;
    this.proc.kill('SIGKILL');
  }
}

/** Decodes a streamed container to 16 kHz mono s16le; small probe sizes keep the first output early. */
export function createDecoder(demuxer: string | undefined, opts: FfmpegStreamOptions): FfmpegStream {
  return new FfmpegStream(
    [
      '-fflags', 'nobuffer',
      '-probesize', '4096',
      '-analyzeduration', '0',
      ...(demuxer ? ['-f', demuxer] : []),
      '-i', 'pipe:0',
      '-vn', '-ac', '1', '-ar', '16000', '-f', 's16le', 'pipe:1',
    ],
    opts,
  );
}

/**
 * Resamples streamed mono s16le at `rate` to 16 kHz with ffmpeg's resampler (a filtering one: averaging windows in JS
 * cost 5–8 WER points at 44.1 kHz). No `nobuffer` here: it drops the bytes read while probing, the first 46 ms.
 */
export function createResampler(rate: number, opts: FfmpegStreamOptions): FfmpegStream {
  return new FfmpegStream(
    ['-probesize', '32', '-analyzeduration', '0', '-f', 's16le', '-ar', String(rate), '-ac', '1', '-i', 'pipe:0', '-ar', '16000', '-f', 's16le', 'pipe:1'],
    opts,
  );
}

/**
 * Encodes mono s16le at `rate` into the target format, flushing packets as soon as they are muxed. The input needs no
 * probing (its format is given); without the small probe ffmpeg holds every packet back until it has read 5 s of
 * audio or the end of the input.
 */
export function createEncoder(rate: number, outputArgs: string[], opts: FfmpegStreamOptions): FfmpegStream {
  return new FfmpegStream(
    ['-probesize', '32', '-analyzeduration', '0', '-f', 's16le', '-ar', String(rate), '-ac', '1', '-i', 'pipe:0', ...outputArgs, '-flush_packets', '1', 'pipe:1'],
    opts,
  );
}

export type { FfmpegStream };
