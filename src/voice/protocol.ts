// The Voice API WebSocket messages: client frames parsed (JSON text frames or MessagePack binary frames, maps with
// string keys), server messages encoded in the session's format, and the error catalogue.
import { decode as msgpackDecode, encode as msgpackEncode } from '@msgpack/msgpack';

export type MessageFormat = 'json' | 'msgpack';

export type ClientMessage = { kind: 'source_media_chunk'; data: Buffer } | { kind: 'end_of_source_media' };

export interface Segment {
  language?: string;
  text: string;
  start_time: number;
  end_time: number;
}

export type ServerMessage =
  | { source_transcript_update: { concluded: Segment[]; tentative: Segment[] } }
  | { target_transcript_update: { language: string; concluded: Segment[]; tentative: Segment[] } }
  | {
      target_media_chunk: {
        language: string;
        content_type?: string;
        headers?: number;
        data: Buffer[];
        duration: number;
        text?: string;
      };
    }
  | { end_of_source_transcript: Record<string, never> }
  | { end_of_target_transcript: { language: string } }
  | { end_of_target_media: { language: string } }
  | { end_of_stream: Record<string, never> }
  | { error: VoiceErrorBody };

export interface VoiceErrorBody {
  request_type: string;
  error_code: number;
  reason_code: number;
  error_message: string;
}

/**
 * A protocol error: ends the session. Reason codes extend the reference's one example (4000403 "Audio format not
 * supported"): the HTTP-style code followed by a four-digit reason.
 */
export class VoiceProtocolError extends Error {
  constructor(
    readonly requestType: string,
    readonly errorCode: number,
    readonly reasonCode: number,
    message: string,
  ) {
    super(message);
  }

  body(): VoiceErrorBody {
    return { request_type: this.requestType, error_code: this.errorCode, reason_code: this.reasonCode, error_message: this.message };
  }
}

export const voiceErrors = {
  badFrame: (why: string, requestType = 'unknown') => new VoiceProtocolError(requestType, 400, 4000400, `Malformed message: ${why}`),
  wrongFrameType: (format: MessageFormat) =>
    new VoiceProtocolError('unknown', 400, 4000401, `Wrong frame type: this session uses ${format === 'json' ? 'JSON in TEXT' : 'MessagePack in BINARY'} frames.`),
  unknownMessage: (kind: string) => new VoiceProtocolError(kind || 'unknown', 400, 4000402, `Unknown message type '${kind}'.`),
  /** The audio is not what source_media_content_type declares (or, for audio/auto, no container Tolk reads). */
  audioMismatch: (declared: string, found: string | null) =>
    new VoiceProtocolError(
      'source_media_chunk',
      400,
      4000403,
      found
        ? `Audio format not supported: the audio is ${found}, not the declared '${declared}'. Set source_media_content_type to the format you send.`
        : `Audio format not supported: the audio is not ${declared === 'audio/auto' ? 'in a container Tolk recognises (FLAC, MP3, Ogg, WebM/Matroska, WAV, MPEG-TS, AAC)' : `'${declared}' as declared`}. Raw PCM needs 'audio/pcm;encoding=…;rate=…'.`,
    ),
  /** ffmpeg could not decode it: the user gets the declared type, never ffmpeg's own words. */
  undecodable: (declared: string) =>
    new VoiceProtocolError('source_media_chunk', 400, 4000403, `Audio format not supported: the audio could not be decoded as '${declared}'. Check that it matches source_media_content_type.`),
  chunkTooLarge: () => new VoiceProtocolError('source_media_chunk', 400, 4000413, 'Chunk too large: at most 100 kB or 1 s of audio per chunk.'),
  partialFrame: () => new VoiceProtocolError('source_media_chunk', 400, 4000404, 'PCM chunks must contain whole frames.'),
  afterEnd: (requestType = 'source_media_chunk') =>
    new VoiceProtocolError(requestType, 400, 4000405, 'No message may follow end_of_source_media.'),
  tooFast: () => new VoiceProtocolError('source_media_chunk', 429, 4290001, 'Audio sent faster than 2x real time; pace the chunks.'),
  idle: () => new VoiceProtocolError('source_media_chunk', 408, 4080001, 'No audio received for 30 seconds; the session ended.'),
  quota: () => new VoiceProtocolError('source_media_chunk', 456, 4560001, 'Quota for this billing period has been exceeded.'),
  tokenReused: () => new VoiceProtocolError('connect', 401, 4010001, 'Token already used; the session was terminated.'),
  tokenInvalid: () => new VoiceProtocolError('connect', 401, 4010002, 'Invalid or expired token.'),
  internal: () => new VoiceProtocolError('unknown', 500, 5000001, 'Internal error while processing the stream.'),
};

function asObject(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) ? (v as Record<string, unknown>) : null;
}

/** Parses one client frame; throws VoiceProtocolError for anything the protocol does not allow. */
export function parseClientFrame(raw: Buffer, isBinary: boolean, format: MessageFormat): ClientMessage {
  if (isBinary !== (format === 'msgpack')) throw voiceErrors.wrongFrameType(format);
  let value: unknown;
  try {
    value = format === 'json' ? JSON.parse(raw.toString('utf8')) : msgpackDecode(raw);
  } catch {
    throw voiceErrors.badFrame(format === 'json' ? 'not valid JSON' : 'not valid MessagePack');
  }
  const obj = asObject(value);
  if (!obj) throw voiceErrors.badFrame('expected an object');
  const keys = Object.keys(obj);
  if (keys.length !== 1) throw voiceErrors.badFrame('expected exactly one message type key');
  const kind = keys[0]!;
  const payload = asObject(obj[kind]);
  if (kind === 'end_of_source_media') {
    if (!payload) throw voiceErrors.badFrame('end_of_source_media must be an object', kind);
    return { kind };
  }
  if (kind !== 'source_media_chunk') throw voiceErrors.unknownMessage(kind);
  if (!payload) throw voiceErrors.badFrame('source_media_chunk must be an object', kind);
  const data = payload.data;
  if (format === 'json') {
    if (typeof data !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw voiceErrors.badFrame("'data' must be a base64 string", kind);
    return { kind, data: Buffer.from(data, 'base64') };
  }
  if (!(data instanceof Uint8Array)) throw voiceErrors.badFrame("'data' must be binary", kind);
  return { kind, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) };
}

/** Encodes a server message: JSON with base64 audio, or MessagePack with raw bytes. */
export function encodeServerMessage(msg: ServerMessage, format: MessageFormat): string | Uint8Array {
  if (format === 'msgpack') return msgpackEncode(msg, { ignoreUndefined: true });
  if ('target_media_chunk' in msg) {
    const chunk = msg.target_media_chunk;
    return JSON.stringify({ target_media_chunk: { ...chunk, data: chunk.data.map((b) => b.toString('base64')) } });
  }
  return JSON.stringify(msg);
}
