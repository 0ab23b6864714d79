// Turns synthesized speech into target_media_chunk payloads in the session's target format: PCM and G.711 in-process,
// every other format through one long-lived ffmpeg encoder per stream (so the container is one continuous stream).
import { alawEncode, resample, samplesToS16le, ulawEncode } from '../audio/pcm.js';
import { createEncoder, type FfmpegStream } from '../audio/ffmpeg.js';
import type { TargetMedia } from '../audio/media-types.js';
import { FlacClock, MatroskaClock, MpegTsClock, type StreamClock } from './media-clock.js';

export interface MediaChunk {
  content_type?: string;
  headers?: number;
  data: Buffer[];
  duration: number;
  text?: string;
}

/** Longest PCM target chunk. */
export const PCM_CHUNK_MS = 200;

const WEBM_CLUSTER = Buffer.from([0x1f, 0x43, 0xb6, 0x75]);

/** The packets of one Ogg page (segments of 255 bytes continue a packet; a packet spanning pages is joined). */
function pagePackets(page: Buffer, partial: Buffer[]): Buffer[] {
  const nsegs = page[26]!;
  let offset = 27 + nsegs;
  const packets: Buffer[] = [];
  for (let i = 0; i < nsegs; i++) {
    const len = page[27 + i]!;
    partial.push(page.subarray(offset, offset + len));
    offset += len;
    if (len < 255) packets.push(Buffer.concat(partial.splice(0)));
  }
  return packets;
}

/** Splits an Ogg byte stream into whole pages and reads each page's granule position. */
class OggPager {
  private buf = Buffer.alloc(0);
  push(data: Buffer): { page: Buffer; granule: bigint }[] {
    this.buf = Buffer.concat([this.buf, data]);
    const pages: { page: Buffer; granule: bigint }[] = [];
    while (this.buf.length >= 27 && this.buf.toString('ascii', 0, 4) === 'OggS') {
      const nsegs = this.buf[26]!;
      if (this.buf.length < 27 + nsegs) break;
      let body = 0;
      for (let i = 0; i < nsegs; i++) body += this.buf[27 + i]!;
      const size = 27 + nsegs + body;
      if (this.buf.length < size) break;
      pages.push({ page: this.buf.subarray(0, size), granule: this.buf.readBigInt64LE(6) });
      this.buf = this.buf.subarray(size);
    }
    return pages;
  }
}

/** A transcript segment's speech: where it starts in the target audio, and its text until a chunk carries it. */
interface SpokenSegment {
  startMs: number;
  text: string;
}

export class TargetMediaWriter {
  private first = true;
  private encoder: FfmpegStream | null = null;
  private encoderDone: Promise<string | null> | null = null;
  private readonly pager = new OggPager();
  /** Segments whose first chunk has not been sent yet, in order. */
  private unannounced: SpokenSegment[] = [];
  private writtenMs = 0;
  private reportedMs = 0;
  /** Ogg Opus pre-skip (encoder delay) in ms, read from OpusHead; the granule counts it. */
  private preSkipMs = 0;
  private headerPending = true;
  /** Ogg header pages held back until the first audio page, so the first chunk carries every header. */
  private heldPages: { page: Buffer; granule: bigint }[] = [];
  private partialPacket: Buffer[] = [];
  /** Timing of byte-stream containers; null after it lost track (the written audio is attributed instead). */
  private clock: StreamClock | null;

  constructor(
    private readonly media: TargetMedia,
    private readonly emit: (chunk: MediaChunk) => void,
  ) {
    this.clock =
      media.kind !== 'ffmpeg'
        ? null
        : media.packets === 'matroska'
          ? new MatroskaClock(media.frameMs)
          : media.packets === 'flac'
            ? new FlacClock(media.rate)
            : media.packets === 'mpegts'
              ? new MpegTsClock(media.frameMs)
              : null;
  }

  private head(chunk: MediaChunk, headers?: number): MediaChunk {
    if (!this.first) return chunk;
    this.first = false;
    return { content_type: this.media.contentType, ...(headers ? { headers } : {}), ...chunk };
  }

  /** Queues one synthesized segment (speech only, no silence). */
  speak(samples: Int16Array, sampleRate: number, text: string): void {
    const pcm = resample(samples, sampleRate, this.media.rate);
    const durationMs = (pcm.length * 1000) / this.media.rate;
    if (this.media.kind === 'pcm') {
      // Chunks of at most 200 ms as the containers' (a whole segment could exceed a client's 1 MiB message limit);
      // the segment's text goes on its first chunk.
      const step = (this.media.rate * PCM_CHUNK_MS) / 1000;
      for (let at = 0; at < pcm.length; at += step) {
        const part = pcm.subarray(at, Math.min(pcm.length, at + step));
        const bytes = this.media.encoding === 'alaw' ? Buffer.from(alawEncode(part)) : this.media.encoding === 'ulaw' ? Buffer.from(ulawEncode(part)) : Buffer.from(samplesToS16le(part));
        const endMs = Math.round(((at + part.length) * 1000) / this.media.rate);
        const duration = endMs - Math.round((at * 1000) / this.media.rate);
        this.emit(this.head({ data: [bytes], duration, ...(at === 0 ? { text } : {}) }));
      }
      return;
    }
    this.startEncoder();
    this.unannounced.push({ startMs: this.writtenMs, text });
    this.writtenMs += durationMs;
    this.encoder!.write(samplesToS16le(pcm));
  }

  private startEncoder(): void {
    if (this.encoder || this.media.kind !== 'ffmpeg') return;
    const media = this.media;
    this.encoderDone = new Promise((resolve) => {
      this.encoder = createEncoder(media.rate, media.args, {
        onData: (data) => this.onEncoded(data),
        onEnd: (error) => resolve(error),
      });
    });
  }

  private onEncoded(data: Buffer): void {
    if (this.media.kind !== 'ffmpeg') return;
    let packets: Buffer[];
    let headers: number | undefined;
    /** Media time the output so far reaches, ms from the start of the target audio. */
    let endMs: number;
    if (this.media.packets === 'ogg' || this.media.packets === 'opus') {
      const pages = [...this.heldPages.splice(0), ...this.pager.push(data)];
      if (pages.length === 0) return;
      if (this.headerPending && pages.every((p) => p.granule === 0n)) {
        this.heldPages = pages;
        return;
      }
      if (this.media.packets === 'opus') {
        // Raw Opus (RFC 7845 header first): OpusHead is the one header packet; OpusTags is metadata, dropped.
        packets = pages
          .flatMap((p) => pagePackets(p.page, this.partialPacket))
          .filter((pkt) => pkt.subarray(0, 8).toString('ascii') !== 'OpusTags');
        if (this.headerPending) headers = 1;
      } else {
        packets = pages.map((p) => Buffer.from(p.page));
        if (this.headerPending) headers = pages.filter((p) => p.granule === 0n).length;
      }
      if (this.headerPending) this.readPreSkip(pages[0]!.page);
      const granule = pages.reduce((g, p) => (p.granule > g ? p.granule : g), 0n);
      endMs = (Number(granule) * 1000) / this.media.rate - this.preSkipMs;
    } else {
      packets = [Buffer.from(data)];
      if (this.headerPending && this.media.packets === 'matroska') {
        const at = data.indexOf(WEBM_CLUSTER);
        if (at > 0) packets = [Buffer.from(data.subarray(0, at)), Buffer.from(data.subarray(at))];
        headers = 1;
      }
      endMs = this.writtenMs;
      if (this.clock) {
        try {
          endMs = this.clock.push(data);
        } catch {
          // a layout the clock does not follow (ClockLost): from here on, audio written and not reported is attributed
          this.clock = null;
        }
      }
    }
    this.headerPending = false;
    // Never report audio not written yet (encoder padding) nor go back in time.
    endMs = Math.min(this.writtenMs, Math.max(this.reportedMs, endMs));
    const duration = Math.round(endMs) - Math.round(this.reportedMs);
    this.reportedMs = endMs;
    // text goes on the first chunk of each segment: the one its speech starts in
    let announce = 0;
    while (announce < this.unannounced.length && this.unannounced[announce]!.startMs < endMs) announce++;
    const texts = this.unannounced.splice(0, announce).map((s) => s.text);
    this.emit(this.head({ data: packets, duration, ...(texts.length ? { text: texts.join(' ') } : {}) }, headers));
  }

  /** OpusHead (RFC 7845 §5.1): bytes 10–11 are the pre-skip in 48 kHz samples. */
  private readPreSkip(firstPage: Buffer): void {
    const head = firstPage.indexOf('OpusHead');
    if (head >= 0 && head + 12 <= firstPage.length) this.preSkipMs = firstPage.readUInt16LE(head + 10) / 48;
  }

  /** Flushes the encoder; resolves when every chunk was emitted. Returns an error text when encoding failed. */
  async finish(): Promise<string | null> {
    if (!this.encoder) return null;
    this.encoder.end();
    return this.encoderDone!;
  }

  close(): void {
    this.encoder?.kill();
  }
}
