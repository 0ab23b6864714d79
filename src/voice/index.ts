// Builds the voice service: PocketSphinx (the no-download default) or Whisper from an installed model for
// speech-to-text, espeak-ng/flite for speech.
import { join } from 'node:path';
import type { UsageService } from '../accounts/usage-service.js';
import type { Logger } from '../lib/logger.js';
import type { TranslationCore } from '../translate/translation-core.js';
import type { SpokenTermsService } from './spoken-terms/spoken-terms-service.js';
import { PocketSphinxEngine } from './stt/pocketsphinx.js';
import type { SpeechToTextEngine } from './stt/engine.js';
import { findWhisperModel, WhisperEngine } from './stt/whisper.js';
import { EspeakFliteEngine } from './tts/engine.js';
import { VoiceService, type VoiceServiceOptions } from './voice-service.js';

export interface VoiceBuildOptions {
  usage: UsageService;
  /** The translation core: the pairs, glossaries and formality rules of /v2/translate. */
  translation: TranslationCore;
  spokenTerms: SpokenTermsService;
  /** TOLK_STT_ENGINE and TOLK_MODELS_DIR. */
  stt: { engine: 'auto' | 'pocketsphinx' | 'whisper'; modelsDir: string };
  sessionStore: VoiceServiceOptions['sessionStore'];
  keyContext: VoiceServiceOptions['keyContext'];
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
