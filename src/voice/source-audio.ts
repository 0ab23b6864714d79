// A stream's source audio on its way to the recogniser's 16 kHz: PCM at 16 kHz passes through, PCM at other rates
// goes through ffmpeg's resampler, containers through ffmpeg's decoder once their first bytes show they are what
// the session declared.
import { s16leToSamples, samplesToS16le } from './audio/pcm.js';
import { createDecoder, createResampler, type FfmpegStream } from './audio/ffmpeg.js';
import type { SourceMedia } from './audio/media-types.js';
import { FORMAT_NAMES, SNIFF_LIMIT, sniffContainer, sniffMatches } from './audio/sniff.js';
import { voiceErrors } from './protocol.js';
import { STT_SAMPLE_RATE } from './stt/engine.js';
import type { Logger } from '../lib/logger.js';

/** Container audio that has decoded to nothing this long after its first chunk is refused as undecodable. */
export const FIRST_AUDIO_DEADLINE_MS = 2000;

export interface SourceAudioSink {
  /** 16 kHz samples; `decoded` when they came out of a container (their duration was not known before). */
  samples(samples: Int16Array, decoded: boolean): void;
  fail(err: unknown): void;
}

export class SourceAudio {
  private ffmpeg: FfmpegStream | null = null;
  private ffmpegDone: Promise<void> = Promise.resolve();
  /** An odd byte of ffmpeg output waiting for its other half. */
  private carry: Buffer | null = null;
  private decodedAny = false;
  /** The first bytes of container audio, until they show which container it is (null once decided). */
  private prefix: Buffer | null;

  constructor(
    private readonly media: SourceMedia,
    private readonly sink: SourceAudioSink,
    private readonly logger: Logger,
  ) {
    this.prefix = media.kind === 'container' ? Buffer.alloc(0) : null;
  }

  /** PCM samples at the source rate. */
  pushPcm(samples: Int16Array): void {
    if (this.media.kind !== 'pcm' || this.media.rate === STT_SAMPLE_RATE) this.sink.samples(samples, false);
    else this.feed(samplesToS16le(samples));
  }

  /**
   * Container bytes, `sinceFirstMs` after the stream's first chunk. Throws when they are not the declared container
   * (or, for audio/auto, any known one), or when ffmpeg has made nothing of them by the deadline.
   */
  pushContainer(data: Buffer, sinceFirstMs: number): void {
    this.check(data);
    if (!this.decodedAny && this.ffmpeg && sinceFirstMs >= FIRST_AUDIO_DEADLINE_MS) throw voiceErrors.undecodable(this.media.contentType);
    this.feed(data);
  }

  private check(data: Buffer): void {
    if (this.prefix === null) return;
    this.prefix = Buffer.concat([this.prefix, data.subarray(0, SNIFF_LIMIT)]);
    const found = sniffContainer(this.prefix);
    if (found === 'more' && this.prefix.length < SNIFF_LIMIT) return;
    this.prefix = null;
    const { contentType } = this.media;
    if (found === 'more' || found === null) throw voiceErrors.audioMismatch(contentType, null);
    const demuxer = this.media.kind === 'container' ? this.media.demuxer : undefined;
    if (!sniffMatches(demuxer, found)) throw voiceErrors.audioMismatch(contentType, FORMAT_NAMES[found]);
  }

  private feed(data: Buffer): void {
    if (!this.ffmpeg) {
      const media = this.media;
      this.ffmpegDone = new Promise((resolve) => {
        const opts = {
          onData: (pcm: Buffer) => {
            this.decodedAny = true;
            this.sink.samples(this.takeSamples(pcm), media.kind === 'container');
          },
          onEnd: (error: string | null) => {
            if (error) {
              this.logger.debug?.({ ffmpeg: error.slice(0, 200) }, 'voice source audio not decoded');
              this.sink.fail(voiceErrors.undecodable(media.contentType));
            }
            resolve();
          },
        };
        this.ffmpeg = media.kind === 'pcm' ? createResampler(media.rate, opts) : createDecoder(media.demuxer, opts);
      });
    }
    this.ffmpeg!.write(data);
  }

  /** ffmpeg's output as samples; a pipe read may end inside a sample, whose first byte waits for the next read. */
  private takeSamples(pcm: Buffer): Int16Array {
    let bytes = this.carry ? Buffer.concat([this.carry, pcm]) : pcm;
    this.carry = null;
    if (bytes.length % 2 === 1) {
      this.carry = Buffer.from(bytes.subarray(bytes.length - 1));
      bytes = bytes.subarray(0, bytes.length - 1);
    }
    return s16leToSamples(bytes);
  }

  /** End of input: resolves when ffmpeg has put out everything. */
  async end(): Promise<void> {
    if (!this.ffmpeg) return;
    this.ffmpeg.end();
    await this.ffmpegDone;
  }

  kill(): void {
    this.ffmpeg?.kill();
  }
}
