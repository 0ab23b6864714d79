// Media time of an encoder's byte-stream output (WebM/Matroska, FLAC, MPEG-TS), read from the container's own
// timestamps as the bytes arrive, so each target_media_chunk reports the audio it carries and the transcript text
// goes on the chunk where its speech starts. Only the few fields needed for timing are read; nothing is decoded.
// (npm's EBML/TS parsers decode whole documents or are unmaintained; this needs three timestamp fields.)

/** Reads a container byte stream as it is written; `push` returns the media time (ms) its complete frames reach. */
export interface StreamClock {
  push(data: Buffer): number;
}

/** A stream the clock cannot follow (unexpected layout): the writer falls back to attributing written audio. */
export class ClockLost extends Error {}

/** Keeps the bytes a reader could not use yet (an element, header or packet cut by a pipe read). */
abstract class BufferedClock implements StreamClock {
  protected buf: Buffer = Buffer.alloc(0);

  protected append(data: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, data]) : data;
  }

  abstract push(data: Buffer): number;
}

/** Frame start times as a container states them; the stream reaches the last start plus one frame. */
class FrameTimeline {
  private lastStart: number | null = null;
  endMs = 0;

  /** `frameMs`: the codec's frame length, used until two frames show the real spacing. */
  constructor(private frameMs: number) {}

  frameAt(startMs: number): void {
    if (this.lastStart !== null && startMs > this.lastStart) this.frameMs = startMs - this.lastStart;
    this.lastStart = startMs;
    this.endMs = Math.max(this.endMs, startMs + this.frameMs);
  }

  /** The container states the last frame's duration (Matroska BlockDuration). */
  lastFrameLasts(ms: number): void {
    if (this.lastStart !== null) this.endMs = Math.max(this.endMs, this.lastStart + ms);
  }
}

/** A container that states when each frame starts (Matroska blocks, MPEG-TS PES timestamps). */
abstract class TimestampedClock extends BufferedClock {
  protected readonly timeline: FrameTimeline;

  constructor(frameMs: number) {
    super();
    this.timeline = new FrameTimeline(frameMs);
  }
}

// ---- Matroska / WebM (EBML) ----

const EBML = {
  segment: 0x18538067,
  info: 0x1549a966,
  timecodeScale: 0x2ad7b1,
  cluster: 0x1f43b675,
  timecode: 0xe7,
  simpleBlock: 0xa3,
  blockGroup: 0xa0,
  block: 0xa1,
  blockDuration: 0x9b,
} as const;
/** Master elements entered rather than read whole (a live Segment or Cluster may have an unknown size). */
const ENTERED: ReadonlySet<number> = new Set([EBML.segment, EBML.info, EBML.cluster, EBML.blockGroup]);

/** An EBML variable-length integer at `at`: its length and value (with `keepMarker` for element ids); null if incomplete. */
function readVint(buf: Buffer, at: number, keepMarker: boolean): { len: number; value: number; unknown: boolean } | null {
  if (at >= buf.length) return null;
  const first = buf[at]!;
  let len = 1;
  while (len <= 8 && !(first & (0x80 >> (len - 1)))) len++;
  if (len > 8) throw new ClockLost('invalid EBML length');
  if (at + len > buf.length) return null;
  let value = keepMarker ? first : first & (0xff >> len);
  let allOnes = value === 0xff >> len;
  for (let i = 1; i < len; i++) {
    value = value * 256 + buf[at + i]!;
    if (buf[at + i] !== 0xff) allOnes = false;
  }
  return { len, value, unknown: !keepMarker && allOnes };
}

/** An EBML unsigned integer (0 to 8 bytes, big-endian). */
function readUint(body: Buffer): number {
  let value = 0;
  for (const byte of body.subarray(0, 8)) value = value * 256 + byte;
  return value;
}

export class MatroskaClock extends TimestampedClock {
  private scaleNs = 1_000_000;
  private clusterTime = 0;

  push(data: Buffer): number {
    this.append(data);
    let at = 0;
    for (;;) {
      const id = readVint(this.buf, at, true);
      const size = id && readVint(this.buf, at + id.len, false);
      if (!id || !size) break;
      const body = at + id.len + size.len;
      if (ENTERED.has(id.value)) {
        at = body;
        continue;
      }
      if (size.unknown) throw new ClockLost('unknown-size EBML element');
      if (body + size.value > this.buf.length) break;
      this.element(id.value, this.buf.subarray(body, body + size.value));
      at = body + size.value;
    }
    this.buf = this.buf.subarray(at);
    return this.timeline.endMs;
  }

  private element(id: number, body: Buffer): void {
    if (id === EBML.timecodeScale) this.scaleNs = readUint(body) || 1_000_000;
    else if (id === EBML.timecode) this.clusterTime = readUint(body);
    else if (id === EBML.simpleBlock || id === EBML.block) {
      const track = readVint(body, 0, false);
      if (!track || body.length < track.len + 2) throw new ClockLost('short block');
      this.timeline.frameAt(((this.clusterTime + body.readInt16BE(track.len)) * this.scaleNs) / 1e6);
    } else if (id === EBML.blockDuration) {
      this.timeline.lastFrameLasts((readUint(body) * this.scaleNs) / 1e6);
    }
  }
}

// ---- FLAC (native stream) ----

/** CRC-8 (poly 0x07) of a FLAC frame header, which tells a real frame header from sync-like audio bytes. */
function crc8(buf: Buffer, from: number, to: number): number {
  let crc = 0;
  for (let i = from; i < to; i++) {
    crc ^= buf[i]!;
    for (let b = 0; b < 8; b++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

/** Block sizes of the FLAC frame header's 4-bit code (0b0110/0b0111: stored at the end of the header). */
function blockSizeOf(code: number): number | 'tail8' | 'tail16' | null {
  if (code === 1) return 192;
  if (code >= 2 && code <= 5) return 576 << (code - 2);
  if (code === 6) return 'tail8';
  if (code === 7) return 'tail16';
  if (code >= 8) return 256 << (code - 8);
  return null;
}

export class FlacClock extends BufferedClock {
  private headerDone = false;
  private samples = 0;

  constructor(private readonly rate: number) {
    super();
  }

  push(data: Buffer): number {
    this.append(data);
    let at = 0;
    if (!this.headerDone) {
      // "fLaC" then metadata blocks, the last one flagged in its first bit
      if (this.buf.length < 4) return 0;
      if (this.buf.toString('latin1', 0, 4) !== 'fLaC') throw new ClockLost('not a FLAC stream');
      at = 4;
      for (;;) {
        if (at + 4 > this.buf.length) return 0;
        const last = this.buf[at]! & 0x80;
        const next = at + 4 + this.buf.readUIntBE(at + 1, 3);
        if (next > this.buf.length) return 0;
        at = next;
        if (last) break;
      }
      this.headerDone = true;
      this.buf = this.buf.subarray(at);
      at = 0;
    }
    // Frame headers: sync 0xFFF8/0xFFF9, then the block size code; a header counts once its CRC-8 matches.
    let i = 0;
    for (; i + 1 < this.buf.length; i++) {
      if (this.buf[i] !== 0xff || (this.buf[i + 1]! & 0xfe) !== 0xf8) continue;
      const header = this.frameHeader(i);
      if (header === null) break;
      if (header.samples > 0) {
        this.samples += header.samples;
        i = header.end;
      }
    }
    // keep an incomplete header, or a last 0xFF that may start one
    this.buf = this.buf.subarray(i < this.buf.length - 1 ? i : this.buf[this.buf.length - 1] === 0xff ? this.buf.length - 1 : this.buf.length);
    return (this.samples * 1000) / this.rate;
  }

  /** The frame header at `i`: its samples (0: not a header) and last byte; null when more bytes are needed. */
  private frameHeader(i: number): { samples: number; end: number } | null {
    const b = this.buf;
    const no = { samples: 0, end: i };
    if (i + 5 > b.length) return null;
    const size = blockSizeOf(b[i + 2]! >> 4);
    const rateCode = b[i + 2]! & 0x0f;
    if (size === null || rateCode === 0x0f) return no;
    // the frame (or sample) number, coded like UTF-8 in 1 to 7 bytes
    let ones = 0;
    while (ones < 8 && b[i + 4]! & (0x80 >> ones)) ones++;
    if (ones === 1 || ones > 7) return no;
    const coded = ones === 0 ? 1 : ones;
    let end = i + 4 + coded;
    if (size === 'tail8') end += 1;
    else if (size === 'tail16') end += 2;
    if (rateCode === 12) end += 1;
    else if (rateCode === 13 || rateCode === 14) end += 2;
    if (end + 1 > b.length) return null;
    const samples = size === 'tail8' ? b[i + 4 + coded]! + 1 : size === 'tail16' ? b.readUInt16BE(i + 4 + coded) + 1 : size;
    return crc8(b, i, end) === b[end] ? { samples, end } : no;
  }
}

// ---- MPEG transport stream ----

const TS_PACKET = 188;

export class MpegTsClock extends TimestampedClock {
  private firstPts: number | null = null;

  push(data: Buffer): number {
    this.append(data);
    let at = 0;
    for (; at + TS_PACKET <= this.buf.length; at += TS_PACKET) {
      const p = this.buf.subarray(at, at + TS_PACKET);
      if (p[0] !== 0x47) throw new ClockLost('MPEG-TS sync lost');
      const unitStart = p[1]! & 0x40;
      const control = (p[3]! >> 4) & 3;
      if (!unitStart || !(control & 1)) continue;
      const payload = control & 2 ? 5 + p[4]! : 4;
      // PES of an audio stream (0xC0–0xDF) or private stream 1 (Opus) with a PTS
      if (payload + 14 > TS_PACKET || p[payload] !== 0 || p[payload + 1] !== 0 || p[payload + 2] !== 1) continue;
      const stream = p[payload + 3]!;
      if (!((stream >= 0xc0 && stream <= 0xdf) || stream === 0xbd) || !(p[payload + 7]! & 0x80)) continue;
      const q = payload + 9;
      const pts = ((p[q]! >> 1) & 7) * 2 ** 30 + (p.readUInt16BE(q + 1) >> 1) * 2 ** 15 + (p.readUInt16BE(q + 3) >> 1);
      this.firstPts ??= pts;
      this.timeline.frameAt((pts - this.firstPts) / 90);
    }
    this.buf = this.buf.subarray(at);
    return this.timeline.endMs;
  }
}
