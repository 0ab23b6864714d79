// Builds the voice service: PocketSphinx (the no-download default) or Whisper from an installed model for
// speech-to-text, espeak-ng/flite for speech.
import { join } from 'node:path';
import type { UsageService } from '../accounts/usage-service.js';
import type { Logger } from '../lib/logger.js';
import type { TranslateCustomization } from '../customization/translate-hook.js';
import type { SpokenTermsService } from './spoken-terms/spoken-terms-service.js';
import { PocketSphinxEngine } from './stt/pocketsphinx.js';
import type { SpeechToTextEngine } from './stt/engine.js';
import { findWhisperModel, WhisperEngine } from './stt/whisper.js';
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
  /** TOLK_STT_ENGINE and TOLK_MODELS_DIR. */
  stt: { engine: 'auto' | 'pocketsphinx' | 'whisper'; modelsDir: string };
  logger: Logger;
  now?: () => number;
}

/** The speech-to-text engine the configuration asks for; Whisper needs a model under MODELS_DIR/whisper. */
export function sttEngine(config: VoiceBuildOptions['stt'], logger: Logger): SpeechToTextEngine {
  const dir = join(config.modelsDir, 'whisper');
  const model = config.engine === 'pocketsphinx' ? null : findWhisperModel(dir);
  if (config.engine === 'whisper' && !model) throw new Error(`TOLK_STT_ENGINE=whisper, but there is no Whisper model (ggml-*.bin) in ${dir}`);
  if (!model) return new PocketSphinxEngine();
  logger.info({ model }, 'speech-to-text: Whisper');
  return new WhisperEngine({ modelPath: model });
}

export function buildVoiceService(options: VoiceBuildOptions): VoiceService {
  const { router } = options;
  return new VoiceService({
    stt: sttEngine(options.stt, options.logger),
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
