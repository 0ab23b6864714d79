// The voice service: validates session requests against the installed engines and quotas, issues tokens, and
// connects WebSocket connections to their session's stream (built once in services.ts, used by the voice routes).
import type { AuthContext } from '../accounts/accounts-service.js';
import type { UsageService } from '../accounts/usage-service.js';
import { invalid } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { NO_CUSTOMIZATION, textOptions, type TranslationSpec } from '../translate/translate-job.js';
import type { PreparedTranslation, TranslationCore } from '../translate/translation-core.js';
import { voiceErrors, type MessageFormat, type VoiceProtocolError } from './protocol.js';
import { SOURCE_LANGS, type VoiceCapabilities, type VoiceSessionConfig } from './session-request.js';
import { VoiceSessionRegistry, type VoiceSession } from './sessions.js';
import type { ChangeFeed } from '../store/change-feed.js';
import type { VoiceSessionRepository } from '../store/repositories/voice-session-repository.js';
import type { SpeechToTextEngine } from './stt/engine.js';
import { VoiceStream, type StreamSink } from './stream.js';
import type { TextToSpeechEngine } from './tts/engine.js';

export interface VoiceServiceOptions {
  stt: SpeechToTextEngine;
  tts: TextToSpeechEngine;
  usage: UsageService;
  /** The translation core: recognised segments are translated as /v2/translate texts are, glossary included. */
  translation: Pick<TranslationCore, 'canTranslate' | 'prepare' | 'translateSegments'>;
  /** The terms of a spoken terms collection for a language (404 when it does not exist for the account). */
  spokenTerms(accountId: string, id: string, lang: string): Promise<string[]>;
  /** Where sessions and tokens are kept (the database, shared by every node) and how nodes hear of their changes. */
  sessionStore: { repository: VoiceSessionRepository; changes: ChangeFeed };
  /** The current context of a key (null when deactivated or gone), for sessions requested on another node. */
  keyContext(keyId: string): Promise<AuthContext | null>;
  logger: Logger;
  now?: () => number;
  idleTimeoutMs?: number;
}

/**
 * Resources of a session resolved at request time: spoken terms for the recognizer, a prepared translation per
 * source (the session's, or one detected in auto mode) and target, keyed by translationKey.
 */
interface SessionResources {
  spokenTerms: string[];
  translations: Map<string, PreparedTranslation>;
}

const translationKey = (source: string, target: string) => `${source}>${target}`;

/**
 * A recognised segment is one text (no sentence splitting); voice formality is a preference: applied where the
 * engine route supports it, never an error mid-stream. A glossary is for the session's source language, not for one
 * detected in its place.
 */
function voiceSpec(config: VoiceSessionConfig, source: string, target: string): TranslationSpec {
  const formality = config.formality === 'more' ? 'prefer_more' : config.formality === 'less' ? 'prefer_less' : 'default';
  const glossaryId = source === config.sourceLanguage ? config.glossaryId : null;
  return {
    sourceLang: source,
    targetLang: target,
    options: textOptions({ formality, splitSentences: '0' }),
    customization: glossaryId !== null ? { ...NO_CUSTOMIZATION, glossaryIds: [glossaryId] } : NO_CUSTOMIZATION,
  };
}

export interface SessionGrant {
  sessionId: string;
  token: string;
}

export type ConnectOutcome = { ok: true; stream: VoiceStream; session: VoiceSession } | { ok: false; error: VoiceProtocolError; format: MessageFormat };

export class VoiceService {
  readonly sessions: VoiceSessionRegistry;

  constructor(private readonly opts: VoiceServiceOptions) {
    this.sessions = new VoiceSessionRegistry({
      ...opts.sessionStore,
      logger: opts.logger,
      ...(opts.now ? { now: opts.now } : {}),
      // A session requested on another node: its key as it is now, its spoken terms and glossaries resolved again.
      restore: async (row, config) => {
        const ctx = await opts.keyContext(row.key_id);
        return ctx ? { ctx, resources: await this.resolveResources(ctx, config) } : null;
      },
    });
  }

  capabilities(): VoiceCapabilities {
    return {
      transcribable: this.opts.stt.languages,
      canTranslate: (source, target) => this.opts.translation.canTranslate(source, target),
      canSpeak: (lang) => this.opts.tts.supports(lang),
    };
  }

  private async assertSpeechQuota(ctx: AuthContext): Promise<void> {
    await this.opts.usage.assertSpeechToTextAvailable(ctx);
  }

  /** `config`: a request checked against capabilities() (parseVoiceSessionRequest). */
  async requestSession(ctx: AuthContext, config: VoiceSessionConfig, reportingTag: string | null): Promise<SessionGrant> {
    const resources = await this.resolveResources(ctx, config);
    await this.assertSpeechQuota(ctx);
    const { session, token } = await this.sessions.create(ctx, config, reportingTag, resources);
    return { sessionId: session.id, token };
  }

  /** Checks the session's spoken terms and glossary (through the core's prepare) before any token is issued. */
  private async resolveResources(ctx: AuthContext, config: VoiceSessionConfig): Promise<SessionResources> {
    const accountId = ctx.account.id;
    const source = config.sourceLanguage;
    let spokenTerms: string[] = [];
    if (config.spokenTermsId) {
      spokenTerms = await this.opts.spokenTerms(accountId, config.spokenTermsId, source);
      if (spokenTerms.length === 0) throw invalid(`Spoken terms ${config.spokenTermsId} have no terms for the source language '${source}'.`);
    }
    const translated = config.targets.filter((t) => t.code.split('-')[0] !== source);
    if (config.glossaryId && translated.length === 0) throw invalid("Parameter 'glossary_id' needs a target language other than the source language.");
    const translations = new Map<string, PreparedTranslation>();
    for (const t of translated) {
      translations.set(translationKey(source, t.code), await this.opts.translation.prepare(accountId, voiceSpec(config, source, t.code)));
    }
    return { spokenTerms, translations };
  }

  async reconnect(ctx: AuthContext, token: string): Promise<SessionGrant> {
    const outcome = await this.sessions.reconnect(ctx, token);
    if ('error' in outcome) {
      throw invalid(outcome.error === 'outdated' ? 'Outdated token: the session was invalidated. Request a new session.' : 'Invalid or expired token.');
    }
    await this.assertSpeechQuota(ctx);
    return outcome;
  }

  /** Languages the recogniser may detect in auto mode: the reference's source languages it knows that translate to every target. */
  private detectable(config: VoiceSessionConfig): ReadonlySet<string> {
    const ok = (l: string) => SOURCE_LANGS.has(l) && config.targets.every((t) => t.code.split('-')[0] === l || this.opts.translation.canTranslate(l, t.code));
    return new Set([...this.opts.stt.languages].filter(ok));
  }

  /** Claims a token for a WebSocket connection and attaches the sink to the session's stream. */
  async connect(token: string | undefined, sink: StreamSink): Promise<ConnectOutcome> {
    const claim = token ? await this.sessions.claim(token) : ({ ok: false, reason: 'invalid' } as const);
    // A reused token belongs to a known session: its error goes out in that session's framing.
    if (!claim.ok) {
      return claim.reason === 'reused'
        ? { ok: false, error: voiceErrors.tokenReused(), format: claim.config.messageFormat }
        : { ok: false, error: voiceErrors.tokenInvalid(), format: 'json' };
    }
    const session = claim.session;
    let stream = session.state as VoiceStream | null;
    if (!stream) {
      const { ctx, reportingTag } = session;
      const resources = (session.resources as SessionResources | null) ?? { spokenTerms: [], translations: new Map() };
      const prepared = async (source: string, target: string) => {
        const key = translationKey(source, target);
        let translation = resources.translations.get(key);
        if (!translation) {
          translation = await this.opts.translation.prepare(ctx.account.id, voiceSpec(session.config, source, target));
          resources.translations.set(key, translation);
        }
        return translation;
      };
      stream = new VoiceStream(session.config, {
        stt: this.opts.stt,
        tts: this.opts.tts,
        spokenTerms: resources.spokenTerms,
        ...(session.config.sourceLanguageMode === 'auto' && this.opts.stt.detectsLanguage ? { detectAmong: this.detectable(session.config) } : {}),
        translate: async (source, target, texts) => this.opts.translation.translateSegments(await prepared(source, target), texts),
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
    if (!stream.detach(sink)) return;
    session.connection = null;
    this.sessions.released(session);
  }

  async close(): Promise<void> {
    for (const session of this.sessions.all()) (session.state as VoiceStream | null)?.abort();
    await this.opts.stt.close();
  }
}
