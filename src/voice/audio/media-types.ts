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
      /** How the output splits into indivisible packets: Ogg pages, raw Opus packets taken out of Ogg, WebM/Matroska, or bytes. */
      packets: 'ogg' | 'opus' | 'webm' | 'stream';
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

const OPUS = ['-c:a', 'libopus', '-b:a', '32k', '-application', 'voip', '-frame_duration', '20'];

/** Parses a target_media_content_type; null when it is not one of the reference's formats. */
export function parseTargetMedia(value: string): TargetMedia | null {
  const { type, params } = normalizeContentType(value);
  const codecs = params.get('codecs');
  if (type === 'audio/pcm') {
    const pcm = parsePcm(params, PCM_TARGET_RATES);
    return pcm ? { kind: 'pcm', contentType: value, ...pcm } : null;
  }
  if (!onlyParams(params, ['codecs'])) return null;
  const media = (rate: number, args: string[], packets: 'ogg' | 'opus' | 'webm' | 'stream'): TargetMedia => ({
    kind: 'ffmpeg',
    contentType: value,
    rate,
    args,
    packets,
  });
  switch (type) {
    case 'audio/webm':
      return codecs === undefined || codecs === 'opus' ? media(48000, [...OPUS, '-f', 'webm', '-cluster_time_limit', '200'], 'webm') : null;
    case 'audio/ogg':
      if (codecs === undefined || codecs === 'opus') return media(48000, [...OPUS, '-f', 'ogg', '-page_duration', '200000'], 'ogg');
      if (codecs === 'flac') return media(24000, ['-c:a', 'flac', '-f', 'ogg', '-page_duration', '200000'], 'ogg');
      return null;
    case 'audio/opus':
      return codecs === undefined ? media(48000, [...OPUS, '-f', 'ogg', '-page_duration', '200000'], 'opus') : null;
    case 'audio/flac':
      return codecs === undefined ? media(24000, ['-c:a', 'flac', '-f', 'flac'], 'stream') : null;
    case 'audio/x-matroska':
      if (codecs === 'opus') return media(48000, [...OPUS, '-f', 'matroska', '-cluster_time_limit', '200'], 'webm');
      if (codecs === 'flac') return media(24000, ['-c:a', 'flac', '-f', 'matroska', '-cluster_time_limit', '200'], 'webm');
      if (codecs === 'aac') return media(24000, ['-c:a', 'aac', '-b:a', '70k', '-f', 'matroska', '-cluster_time_limit', '200'], 'webm');
      return null;
    case 'video/mp2t':
      if (codecs === 'aac') return media(24000, ['-c:a', 'aac', '-b:a', '70k', '-f', 'mpegts'], 'stream');
      if (codecs === 'opus') return media(48000, [...OPUS, '-f', 'mpegts'], 'stream');
      return null;
    default:
      return null;
  }
}
