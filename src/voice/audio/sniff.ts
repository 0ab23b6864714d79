// Recognises a container from the first bytes of a stream, so audio that does not match its declared type is
// refused at its first chunk instead of after ffmpeg has read the whole stream looking for a frame.

export type SniffedFormat = 'flac' | 'mp3' | 'ogg' | 'matroska' | 'wav' | 'mpegts' | 'aac';

/** Enough bytes for any decision: a prefix this long without a recognisable start is not a known container. */
export const SNIFF_LIMIT = 16 * 1024;

/** Plain names for messages. */
export const FORMAT_NAMES: Record<SniffedFormat, string> = {
  flac: 'FLAC',
  mp3: 'MP3',
  ogg: 'Ogg',
  matroska: 'WebM/Matroska',
  wav: 'WAV',
  mpegts: 'MPEG-TS',
  aac: 'AAC (ADTS)',
};

/** The bytes after an ID3v2 tag (MP3 and FLAC files may start with one); null when the tag is not complete yet. */
function skipId3(b: Buffer): number | null {
  if (b.length < 10 || b.toString('latin1', 0, 3) !== 'ID3') return 0;
  const size = ((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f);
  const end = 10 + size + (b[5]! & 0x10 ? 10 : 0);
  return end <= b.length ? end : null;
}

const MP3_KBPS = [
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384], // MPEG-1 layer II
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320], // MPEG-1 layer III
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160], // MPEG-2/2.5 layers II, III
];
const MP3_RATES = [44100, 48000, 32000];

/** Length of the MPEG audio frame (layer II or III) whose header is at `at`, or 0 when there is none. */
function mpegFrameLength(b: Buffer, at: number): number {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return 0;
  const version = (b[at + 1]! >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5, 1: reserved
  const layer = (b[at + 1]! >> 1) & 3; // 1: III, 2: II (layer I and reserved are not MP3)
  const bitrate = b[at + 2]! >> 4;
  const rateIndex = (b[at + 2]! >> 2) & 3;
  if (version === 1 || (layer !== 1 && layer !== 2) || bitrate === 0 || bitrate === 15 || rateIndex === 3) return 0;
  const kbps = MP3_KBPS[version === 3 ? (layer === 2 ? 0 : 1) : 2]![bitrate]!;
  const rate = MP3_RATES[rateIndex]! / (version === 3 ? 1 : version === 2 ? 2 : 4);
  const padding = (b[at + 2]! >> 1) & 1;
  const perFrame = version !== 3 && layer === 1 ? 72 : 144;
  return Math.floor((perFrame * kbps * 1000) / rate) + padding;
}

/**
 * The container the prefix starts with; 'more' while the prefix is too short to tell, null when it is none of them
 * (raw PCM, text, noise). MP3 needs two consecutive frame headers, since PCM samples can look like one.
 */
export function sniffContainer(b: Buffer): SniffedFormat | 'more' | null {
  if (b.length < 4) return 'more';
  const magic = b.toString('latin1', 0, 4);
  if (magic === 'OggS') return 'ogg';
  if (b.readUInt32BE(0) === 0x1a45dfa3) return 'matroska';
  if (magic === 'RIFF') return b.length < 12 ? 'more' : b.toString('latin1', 8, 12) === 'WAVE' ? 'wav' : null;
  const start = skipId3(b);
  if (start === null) return b.length < SNIFF_LIMIT ? 'more' : null;
  if (b.length < start + 4) return 'more';
  if (b.toString('latin1', start, start + 4) === 'fLaC') return 'flac';
  if (b[start] === 0x47) {
    if (b.length < start + 189) return 'more';
    if (b[start + 188] === 0x47) return 'mpegts';
  }
  // ADTS: 12-bit sync, layer 00, a valid sampling-frequency index
  if (b[start] === 0xff && (b[start + 1]! & 0xf6) === 0xf0 && ((b[start + 2]! >> 2) & 0xf) < 13) return 'aac';
  const frame = mpegFrameLength(b, start);
  if (frame > 0) {
    if (b.length < start + frame + 4) return 'more';
    if (mpegFrameLength(b, start + frame) > 0) return 'mp3';
  }
  return null;
}

/** Whether the declared demuxer (named as the sniffed formats are; undefined for audio/auto) reads what was found. */
export function sniffMatches(demuxer: string | undefined, found: SniffedFormat): boolean {
  return demuxer === undefined || demuxer === found;
}
