// The audio content types of the Voice API (source and target), parsed into what the decoders and encoders need.

export type PcmEncoding = 's16le' | 'alaw' | 'ulaw';

export type SourceMedia =
  | { kind: 'pcm'; contentType: string; encoding: PcmEncoding; rate: number }
  | { kind: 'container'; contentType: string; /** ffmpeg demuxer name, undefined = probe */ demuxer?: string };

export type TargetMedia =
  | { kind: 'pcm'; contentType: string; encoding: PcmEncoding; rate: number }
  | {
      kind: 'ffmpeg';
      contentType: string;
      rate: number;
      /** ffmpeg arguments after the input: codec, bitrate, muxer. */
      args: string[];
      /**
       * The encoder's container, which decides how its output splits into packets and where its timing is read: Ogg
       * pages (granule), raw Opus packets taken out of Ogg, WebM/Matroska (block timecodes), native FLAC (frame
       * headers), MPEG-TS (PES timestamps).
       */
      packets: 'ogg' | 'opus' | 'matroska' | 'flac' | 'mpegts';
      /** The codec's frame length in ms (Opus 20, AAC 1024 samples), until the stream's own timestamps show it. */
      frameMs: number;
    };

/** Lower-cases and removes blanks and a trailing ';' so "audio/pcm; encoding=s16le; rate=16000" matches. */
export function normalizeContentType(value: string): { type: string; params: Map<string, string> } {
  const parts = value.toLowerCase().replace(/\s+/g, '').replace(/;+$/, '').split(';');
  const params = new Map<string, string>();
  for (const p of parts.slice(1)) {
    const eq = p.indexOf('=');
    if (eq <= 0) return { type: '', params };
    params.set(p.slice(0, eq), p.slice(eq + 1));
  }
  return { type: parts[0] ?? '', params };
}

function onlyParams(params: Map<string, string>, allowed: string[]): boolean {
  return [...params.keys()].every((k) => allowed.includes(k));
}

const SOURCE_CONTAINERS: Record<string, { demuxer?: string; codecs: string[] }> = {
  'audio/auto': { codecs: [] },
  'audio/flac': { demuxer: 'flac', codecs: [] },
  'audio/mpeg': { demuxer: 'mp3', codecs: [] },
  'audio/ogg': { demuxer: 'ogg', codecs: ['flac', 'opus'] },
  'audio/webm': { demuxer: 'matroska', codecs: ['opus'] },
  'audio/x-matroska': { demuxer: 'matroska', codecs: ['aac', 'flac', 'mp3', 'opus'] },
};

export const PCM_SOURCE_RATES: Record<PcmEncoding, number[]> = { s16le: [8000, 16000, 44100, 48000], alaw: [8000], ulaw: [8000] };
export const PCM_TARGET_RATES: Record<PcmEncoding, number[]> = { s16le: [16000, 24000], alaw: [8000], ulaw: [8000] };

function parsePcm(params: Map<string, string>, rates: Record<PcmEncoding, number[]>): { encoding: PcmEncoding; rate: number } | null {
  if (!onlyParams(params, ['encoding', 'rate'])) return null;
  const encoding = params.get('encoding') as PcmEncoding | undefined;
  const rate = Number(params.get('rate'));
  if (!encoding || !(encoding in rates) || !rates[encoding].includes(rate)) return null;
  return { encoding, rate };
}

/** Parses a source_media_content_type; null when it is not one of the reference's formats. */
export function parseSourceMedia(value: string): SourceMedia | null {
  const { type, params } = normalizeContentType(value);
  if (type === 'audio/pcm') {
    const pcm = parsePcm(params, PCM_SOURCE_RATES);
    return pcm ? { kind: 'pcm', contentType: value, ...pcm } : null;
  }
  const container = SOURCE_CONTAINERS[type];
  if (!container || !onlyParams(params, ['codecs'])) return null;
  const codecs = params.get('codecs');
  if (codecs !== undefined && !container.codecs.includes(codecs)) return null;
  return { kind: 'container', contentType: value, ...(container.demuxer ? { demuxer: container.demuxer } : {}) };
}

export const DEFAULT_TARGET_MEDIA = 'audio/webm;codecs=opus';

const OPUS_FRAME_MS = 20;
const OPUS = ['-c:a', 'libopus', '-b:a', '32k', '-application', 'voip', '-frame_duration', String(OPUS_FRAME_MS)];
/** ffmpeg's FLAC encoder picks 2,304-sample blocks at 24 kHz. */
const FLAC_FRAME_MS = (2304 * 1000) / 24000;

/** Parses a target_media_content_type; null when it is not one of the reference's formats. */
export function parseTargetMedia(value: string): TargetMedia | null {
  const { type, params } = normalizeContentType(value);
  const codecs = params.get('codecs');
  if (type === 'audio/pcm') {
    const pcm = parsePcm(params, PCM_TARGET_RATES);
    return pcm ? { kind: 'pcm', contentType: value, ...pcm } : null;
  }
  if (!onlyParams(params, ['codecs'])) return null;
  const media = (rate: number, args: string[], packets: Extract<TargetMedia, { kind: 'ffmpeg' }>['packets'], frameMs: number): TargetMedia => ({
    kind: 'ffmpeg',
    contentType: value,
    rate,
    args,
    packets,
    frameMs,
  });
  const opus = (args: string[], packets: 'ogg' | 'opus' | 'matroska' | 'mpegts') => media(48000, [...OPUS, ...args], packets, OPUS_FRAME_MS);
  const aac = (args: string[], packets: 'matroska' | 'mpegts') => media(24000, ['-c:a', 'aac', '-b:a', '70k', ...args], packets, (1024 * 1000) / 24000);
  const flac = (args: string[], packets: 'ogg' | 'matroska' | 'flac') => media(24000, ['-c:a', 'flac', ...args], packets, FLAC_FRAME_MS);
  // One PES per audio frame in MPEG-TS: the muxer's default (2,930-byte PES) holds back a third of a second of audio.
  const ts = ['-f', 'mpegts', '-pes_payload_size', '0'];
  switch (type) {
    case 'audio/webm':
      return codecs === undefined || codecs === 'opus' ? opus(['-f', 'webm', '-cluster_time_limit', '200'], 'matroska') : null;
    case 'audio/ogg':
      if (codecs === undefined || codecs === 'opus') return opus(['-f', 'ogg', '-page_duration', '200000'], 'ogg');
      if (codecs === 'flac') return flac(['-f', 'ogg', '-page_duration', '200000'], 'ogg');
      return null;
    case 'audio/opus':
      return codecs === undefined ? opus(['-f', 'ogg', '-page_duration', '200000'], 'opus') : null;
    case 'audio/flac':
      return codecs === undefined ? flac(['-f', 'flac'], 'flac') : null;
    case 'audio/x-matroska':
      if (codecs === 'opus') return opus(['-f', 'matroska', '-cluster_time_limit', '200'], 'matroska');
      if (codecs === 'flac') return flac(['-f', 'matroska', '-cluster_time_limit', '200'], 'matroska');
      if (codecs === 'aac') return aac(['-f', 'matroska', '-cluster_time_limit', '200'], 'matroska');
      return null;
    case 'video/mp2t':
      if (codecs === 'aac') return aac(ts, 'mpegts');
      if (codecs === 'opus') return opus(ts, 'mpegts');
      return null;
    default:
      return null;
  }
}
