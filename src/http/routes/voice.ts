// Voice API: POST/GET /v3/voice/realtime (session request and reconnect) and the WebSocket at
// /v3/voice/realtime/connect. Never scoped (developer-key scopes do not apply to voice); the token is the WebSocket's auth.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import websocket from '@fastify/websocket';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { invalid } from '../../lib/errors.js';
import { parseVoiceSessionRequest } from '../requests/session-request.js';
import { encodeServerMessage, voiceErrors } from '../../voice/protocol.js';
import type { StreamSink, VoiceStream } from '../../voice/stream.js';
import { authOf } from '../plugins/auth.js';
import { publicOrigin } from '../public-origin.js';
import { errorResponses, handlerChecked } from '../schemas/common.js';
import { reportingTagHeader } from './translate.js';

/** A connection is closed after an hour; the session itself can be reconnected. */
export const CONNECTION_LIMIT_MS = 60 * 60_000;
/**
 * Largest WebSocket frame the socket reads: well above a 100 kB chunk base64-encoded inside JSON, so that a chunk over
 * the limit is read and answered with the protocol's error message rather than cut off by the socket.
 */
const MAX_FRAME_BYTES = 1024 * 1024;
/**
 * Pongs a connection may have queued before `ws` drops it as a ping flood (its default, 60, cut a burst of 100 pings
 * off with 1006). A pong echoes at most 125 bytes, so this bounds the queue at ~128 KB.
 */
const MAX_PENDING_PONGS = 1024;
// ws's options (maxPendingAutoPongs is not in @types/ws yet, hence no literal at the call)
const WS_OPTIONS = { maxPayload: MAX_FRAME_BYTES, maxPendingAutoPongs: MAX_PENDING_PONGS };
/** Frames a client may send before its token is checked (a few milliseconds); more closes the connection. */
const MAX_EARLY_FRAMES = 256;

const SessionResponse = Type.Object({ streaming_url: Type.String(), token: Type.String(), session_id: Type.String() });
const TokenQuery = Type.Object({ token: Type.Optional(Type.String()) }, { additionalProperties: true });

// Checked by src/http/requests/session-request.ts (the reference's messages).
const optional = (description: string) => Type.Optional(Type.String({ description }));
const SessionBody = handlerChecked({
  source_media_content_type: Type.String({ description: 'Media type of the audio sent, e.g. `audio/pcm;encoding=s16le;rate=16000`, `audio/ogg;codecs=opus`.' }),
  message_format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('msgpack')], { description: 'Encoding of the stream messages (default json).' })),
  source_language: optional('Language spoken; detected when absent in auto mode.'),
  source_language_mode: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('fixed')], { description: 'Whether source_language is a hint or fixed.' })),
  target_languages: Type.Optional(Type.Array(Type.String(), { maxItems: 5, description: 'Languages to translate the transcript into.' })),
  target_media_languages: Type.Optional(Type.Array(Type.String(), { maxItems: 1, description: 'Language to synthesize speech in.' })),
  target_media_content_type: optional('Media type of the synthesized speech.'),
  target_media_voice: Type.Optional(Type.Union(['male', 'female', 'match'].map((v) => Type.Literal(v)), { description: 'Voice of the synthesized speech.' })),
  spoken_terms_id: Type.Optional(Type.String({ format: 'uuid', description: 'Spoken terms guiding the transcription.' })),
  glossary_id: Type.Optional(Type.String({ format: 'uuid', description: 'Glossary for the translations.' })),
  formality: optional('Formality of the translations.'),
}, 'JSON only; unknown fields are refused.');

function streamingUrl(request: FastifyRequest): string {
  return `${publicOrigin(request).replace(/^http/, 'ws')}/v3/voice/realtime/connect`;
}

export async function voiceRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  // Shutdown: open voice connections end with 1001 Going Away before the plugin's own close (which sends no code);
  // the session stays reconnectable, e.g. on another node.
  app.addHook('preClose', (done) => {
    for (const client of app.websocketServer?.clients ?? []) client.close(1001, 'Server shutting down');
    done();
  });
  await app.register(websocket, { options: WS_OPTIONS });
  const voice = services.voice;

  app.post(
    '/v3/voice/realtime',
    { schema: { body: SessionBody, response: { 200: SessionResponse, ...errorResponses } } },
    async (request) => {
      const config = parseVoiceSessionRequest(request.body, voice.capabilities());
      const grant = await voice.requestSession(authOf(request), config, reportingTagHeader(request.headers));
      return { streaming_url: streamingUrl(request), token: grant.token, session_id: grant.sessionId };
    },
  );

  app.get(
    '/v3/voice/realtime',
    { schema: { querystring: TokenQuery, response: { 200: SessionResponse, ...errorResponses } } },
    async (request) => {
      const token = (request.query as { token?: unknown }).token;
      if (typeof token !== 'string' || token === '') throw invalid("Missing required parameter 'token'.");
      const grant = await voice.reconnect(authOf(request), token);
      return { streaming_url: streamingUrl(request), token: grant.token, session_id: grant.sessionId };
    },
  );

  app.get(
    '/v3/voice/realtime/connect',
    { websocket: true, config: { auth: 'none' }, schema: { querystring: TokenQuery } },
    (socket, request) => {
      let closed = false;
      const close = (code = 1000, reason?: string) => {
        if (closed) return;
        closed = true;
        socket.close(code, reason);
      };
      let format: 'json' | 'msgpack' = 'json';
      const sink: StreamSink = {
        send: (msg) => {
          if (!closed && socket.readyState === socket.OPEN) socket.send(encodeServerMessage(msg, format));
        },
        close: (reason) => close(1000, reason),
      };
      // Frames that arrive while the token is checked (in the database, shared by the nodes) wait for the stream.
      let stream: VoiceStream | undefined;
      let early: { data: Buffer; isBinary: boolean }[] | undefined = [];
      let tooLarge = false;
      socket.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
        const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
        if (stream) stream.onFrame(buf, isBinary);
        else if (early && early.length < MAX_EARLY_FRAMES) early.push({ data: buf, isBinary });
        else close(1008, 'Too many messages before the session was ready.');
      });
      socket.on('error', (err: Error & { code?: string }) => {
        // A frame above MAX_FRAME_BYTES: the socket is already closing (1009), but the session ends as for any chunk
        // that is too large, so its token cannot resume it.
        if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
          tooLarge = true;
          stream?.fail(voiceErrors.chunkTooLarge());
        }
        close(1011);
      });
      let release = () => {};
      socket.on('close', () => {
        closed = true;
        release();
      });
      const raw = (request.query as { token?: unknown }).token;
      voice.connect(typeof raw === 'string' ? raw : undefined, sink).then(
        (outcome) => {
          if (!outcome.ok) {
            if (!closed) socket.send(encodeServerMessage({ error: outcome.error.body() }, outcome.format));
            close(1008);
            return;
          }
          const { session } = outcome;
          const live = outcome.stream;
          format = session.config.messageFormat;
          const limit = setTimeout(() => close(1000), CONNECTION_LIMIT_MS);
          limit.unref();
          release = () => {
            clearTimeout(limit);
            voice.disconnect(session, live, sink);
          };
          if (tooLarge) live.fail(voiceErrors.chunkTooLarge());
          if (closed) return release();
          stream = live;
          const waiting = early ?? [];
          early = undefined;
          for (const frame of waiting) live.onFrame(frame.data, frame.isBinary);
        },
        (err: unknown) => {
          request.log.error({ err }, 'voice connection failed');
          close(1011);
        },
      );
    },
  );
}
