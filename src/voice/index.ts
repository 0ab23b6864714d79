// Builds the voice service with the offline default engines: PocketSphinx for speech-to-text, espeak-ng/flite for speech.
import type { UsageService } from '../accounts/usage-service.js';
import type { Logger } from '../lib/logger.js';
import type { TranslateCustomization } from '../customization/translate-hook.js';
import type { SpokenTermsService } from './spoken-terms/spoken-terms-service.js';
import { PocketSphinxEngine } from './stt/pocketsphinx.js';
import { EspeakFliteEngine } from './tts/engine.js';
import { VoiceService } from './voice-service.js';

export interface VoiceBuildOptions {
  usage: UsageService;
  /** The same pair routing as text translation (formality honoured where the route supports it). */
  router: {
    canTranslate(source: string, target: string): boolean;
    supportsFormality(source: string, target: string): boolean;
    translate(source: string, target: string, segments: string[], opts: { formality?: 'default' | 'more' | 'less' }): Promise<string[]>;
  };
  spokenTerms: SpokenTermsService;
  /** The customization of /v2/translate: voice applies glossaries through the same hook. */
  customization: TranslateCustomization;
  logger: Logger;
  now?: () => number;
}

export function buildVoiceService(options: VoiceBuildOptions): VoiceService {
  const { router } = options;
  return new VoiceService({
    stt: new PocketSphinxEngine(),
    tts: new EspeakFliteEngine(),
    usage: options.usage,
    canTranslate: (s, t) => router.canTranslate(s, t),
    // Voice formality is a preference: applied where the engine route supports it, never an error mid-stream.
    translate: (s, t, texts, formality) =>
      router.translate(s, t, texts, { formality: formality !== 'default' && router.supportsFormality(s, t) ? formality : 'default' }),
    spokenTerms: (accountId, id, lang) => options.spokenTerms.termsFor(accountId, id, lang),
    glossary: (accountId, glossaryId, source, target) =>
      options.customization.prepare(accountId, {
        sourceLang: source,
        targetLang: target,
        glossaryIds: [glossaryId],
        styleId: undefined,
        translationMemoryId: undefined,
        translationMemoryThreshold: undefined,
        customInstructions: [],
      }),
    logger: options.logger,
    ...(options.now ? { now: options.now } : {}),
  });
}

export { VoiceService } from './voice-service.js';
export { SpokenTermsService } from './spoken-terms/spoken-terms-service.js';
