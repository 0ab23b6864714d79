// Builds the voice service: PocketSphinx (the no-download default) or Whisper from an installed model for
// speech-to-text, espeak-ng/flite for speech.
import { join } from 'node:path';
import type { UsageService } from '../accounts/usage-service.js';
import type { Logger } from '../lib/logger.js';
import type { TranslationCore } from '../translate/translation-core.js';
import type { SpokenTermsService } from './spoken-terms/spoken-terms-service.js';
import { PocketSphinxEngine } from './stt/pocketsphinx.js';
import type { SpeechToTextEngine } from './stt/engine.js';
import { InstalledSpeechEngine } from './stt/installed-engine.js';
import { EspeakFliteEngine } from './tts/engine.js';
import { VoiceService, type VoiceServiceOptions } from './voice-service.js';

export interface VoiceBuildOptions {
  usage: UsageService;
  /** The translation core: the pairs, glossaries and formality rules of /v2/translate. */
  translation: TranslationCore;
  spokenTerms: SpokenTermsService;
  /** TOLK_STT_ENGINE, TOLK_MODELS_DIR and TOLK_STT_DECODER_IDLE_SECONDS (as ms). */
  stt: { engine: 'auto' | 'pocketsphinx' | 'whisper'; modelsDir: string; decoderIdleMs?: number };
  sessionStore: VoiceServiceOptions['sessionStore'];
  keyContext: VoiceServiceOptions['keyContext'];
  logger: Logger;
  now?: () => number;
}

/**
 * The speech-to-text engine the configuration asks for: PocketSphinx, or the installed Whisper model (MODELS_DIR/whisper,
 * followed while running; auto falls back to PocketSphinx while there is none).
 */
export function sttEngine(config: VoiceBuildOptions['stt'], logger: Logger): SpeechToTextEngine {
  const pocketSphinx = () => new PocketSphinxEngine(config.decoderIdleMs === undefined ? {} : { decoderIdleMs: config.decoderIdleMs });
  if (config.engine === 'pocketsphinx') return pocketSphinx();
  return new InstalledSpeechEngine({ mode: config.engine, dir: join(config.modelsDir, 'whisper'), logger, ...(config.engine === 'auto' ? { fallback: pocketSphinx } : {}) });
}

export function buildVoiceService(options: VoiceBuildOptions): VoiceService {
  return new VoiceService({
    stt: sttEngine(options.stt, options.logger),
    tts: new EspeakFliteEngine(),
    usage: options.usage,
    translation: options.translation,
    spokenTerms: (accountId, id, lang) => options.spokenTerms.termsFor(accountId, id, lang),
    sessionStore: options.sessionStore,
    keyContext: options.keyContext,
    logger: options.logger,
    ...(options.now ? { now: options.now } : {}),
  });
}

export { VoiceService } from './voice-service.js';
export { SpokenTermsService } from './spoken-terms/spoken-terms-service.js';
