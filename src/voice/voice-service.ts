// The voice service: validates session requests against the installed engines and quotas, issues tokens, and
// connects WebSocket connections to their session's stream (built once in services.ts, used by the voice routes).
import type { AuthContext } from '../accounts/accounts-service.js';
import type { UsageService } from '../accounts/usage-service.js';
import { invalid } from '../lib/errors.js';
import type { SegmentHook } from '../customization/translate-hook.js';
import type { Logger } from '../lib/logger.js';
import { voiceErrors, type MessageFormat, type VoiceProtocolError } from './protocol.js';
import { parseVoiceSessionRequest, type VoiceCapabilities, type VoiceSessionConfig } from './session-request.js';
import { VoiceSessionRegistry, type VoiceSession } from './sessions.js';
import type { SpeechToTextEngine } from './stt/engine.js';
import { VoiceStream, type StreamSink } from './stream.js';
import type { TextToSpeechEngine } from './tts/engine.js';

export interface VoiceServiceOptions {
  stt: SpeechToTextEngine;
  tts: TextToSpeechEngine;
  usage: UsageService;
  canTranslate(source: string, target: string): boolean;
  translate(source: string, target: string, texts: string[], formality: 'default' | 'more' | 'less'): Promise<string[]>;
  /** The terms of a spoken terms collection for a language (404 when it does not exist for the account). */
  spokenTerms(accountId: string, id: string, lang: string): Promise<string[]>;
  /** The glossary application of /v2/translate for one pair (404/400 with its messages). */
  glossary(accountId: string, glossaryId: string, source: string, target: string): Promise<SegmentHook | undefined>;
  logger: Logger;
  now?: () => number;
  idleTimeoutMs?: number;
}

/** Resources of a session resolved at request time: spoken terms for the recognizer, glossary hooks per target. */
interface SessionResources {
  spokenTerms: string[];
  glossaries: Map<string, SegmentHook>;
}

export interface SessionGrant {
  sessionId: string;
  token: string;
}

export type ConnectOutcome = { ok: true; stream: VoiceStream; session: VoiceSession } | { ok: false; error: VoiceProtocolError; format: MessageFormat };

export class VoiceService {
  readonly sessions: VoiceSessionRegistry;

  constructor(private readonly opts: VoiceServiceOptions) {
    this.sessions = new VoiceSessionRegistry(opts.now);
  }

  capabilities(): VoiceCapabilities {
    return {
      transcribable: this.opts.stt.languages,
      canTranslate: this.opts.canTranslate,
      canSpeak: (lang) => this.opts.tts.supports(lang),
    };
  }

  private async assertSpeechQuota(ctx: AuthContext): Promise<void> {
    await this.opts.usage.assertSpeechToTextAvailable(ctx);
  }

  async requestSession(ctx: AuthContext, body: unknown, reportingTag: string | null): Promise<SessionGrant> {
    const config = parseVoiceSessionRequest(body, this.capabilities());
    const resources = await this.resolveResources(ctx, config);
    await this.assertSpeechQuota(ctx);
    const { session, token } = this.sessions.create(ctx, config, reportingTag);
    session.resources = resources;
    return { sessionId: session.id, token };
  }

  /** Checks the session's spoken terms and glossary before any token is issued. */
  private async resolveResources(ctx: AuthContext, config: VoiceSessionConfig): Promise<SessionResources> {
    const accountId = ctx.account.id;
    const source = config.sourceLanguage;
    let spokenTerms: string[] = [];
    if (config.spokenTermsId) {
      spokenTerms = await this.opts.spokenTerms(accountId, config.spokenTermsId, source);
      if (spokenTerms.length === 0) throw invalid(`Spoken terms ${config.spokenTermsId} have no terms for the source language '${source}'.`);
    }
    const glossaries = new Map<string, SegmentHook>();
    if (config.glossaryId) {
      const translated = config.targets.filter((t) => t.code.split('-')[0] !== source);
      if (translated.length === 0) throw invalid("Parameter 'glossary_id' needs a target language other than the source language.");
      for (const t of translated) {
        const hook = await this.opts.glossary(accountId, config.glossaryId, source, t.code);
        if (hook) glossaries.set(t.code, hook);
      }
    }
    return { spokenTerms, glossaries };
  }

  async reconnect(ctx: AuthContext, token: unknown): Promise<SessionGrant> {
    if (typeof token !== 'string' || token === '') throw invalid("Missing required parameter 'token'.");
    const outcome = this.sessions.reconnect(ctx, token);
    if ('error' in outcome) {
      throw invalid(outcome.error === 'outdated' ? 'Outdated token: the session was invalidated. Request a new session.' : 'Invalid or expired token.');
    }
    await this.assertSpeechQuota(ctx);
    return { sessionId: outcome.session.id, token: outcome.token };
  }

  /** Claims a token for a WebSocket connection and attaches the sink to the session's stream. */
  connect(token: unknown, sink: StreamSink): ConnectOutcome {
    const claim = typeof token === 'string' ? this.sessions.claim(token) : ({ ok: false, reason: 'invalid' } as const);
    // A reused token belongs to a known session: its error goes out in that session's framing.
    if (!claim.ok) {
      return claim.reason === 'reused'
        ? { ok: false, error: voiceErrors.tokenReused(), format: claim.session.config.messageFormat }
        : { ok: false, error: voiceErrors.tokenInvalid(), format: 'json' };
    }
    const session = claim.session;
    let stream = session.state as VoiceStream | null;
    if (!stream) {
      const { ctx, reportingTag } = session;
      const resources = (session.resources as SessionResources | null) ?? { spokenTerms: [], glossaries: new Map() };
      stream = new VoiceStream(session.config, {
        stt: this.opts.stt,
        tts: this.opts.tts,
        spokenTerms: resources.spokenTerms,
        translate: (source, target, texts, formality) => {
          const hook = resources.glossaries.get(target);
          const engine = (segments: string[]) => this.opts.translate(source, target, segments, formality);
          return hook ? hook.run(source, target, texts, engine) : engine(texts);
        },
        charge: (ms) => this.opts.usage.charge(ctx, 'speech_to_text', ms, reportingTag),
        onDone: () => this.sessions.terminate(session, 'ended'),
        logger: this.opts.logger,
        ...(this.opts.now ? { now: this.opts.now } : {}),
        ...(this.opts.idleTimeoutMs ? { idleTimeoutMs: this.opts.idleTimeoutMs } : {}),
      });
      session.state = stream;
    }
    const live = stream;
    session.connection = {
      terminate: (reason) => {
        if (reason === 'token_reused') live.fail(voiceErrors.tokenReused());
        else {
          // Reconnected elsewhere: the session goes on, so no error message; the close frame says why.
          live.detach(sink);
          sink.close('Session reconnected: a new token was issued for this session; connect with it.');
        }
      },
    };
    live.attach(sink);
    return { ok: true, stream: live, session };
  }

  /** The connection closed (client left or the 1 h limit): the session stays reconnectable. */
  disconnect(session: VoiceSession, stream: VoiceStream, sink: StreamSink): void {
    if (stream.detach(sink)) session.connection = null;
  }

  async close(): Promise<void> {
    for (const session of this.sessions.all()) (session.state as VoiceStream | null)?.abort();
    await this.opts.stt.close();
  }
}
