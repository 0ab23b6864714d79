// What a voice session is configured to do (POST /v3/voice/realtime), what the installed engines can do, and the
// reference's source languages; the wire parser is src/http/requests/session-request.ts.
import type { SourceMedia, TargetMedia } from './audio/media-types.js';
import type { MessageFormat } from './protocol.js';

export type VoiceChoice = 'male' | 'female' | 'match';

export interface VoiceSessionConfig {
  sourceMedia: SourceMedia;
  messageFormat: MessageFormat;
  /** The language transcribed (a base code such as en). */
  sourceLanguage: string;
  sourceLanguageMode: 'auto' | 'fixed';
  /** Tolk codes (lower case) with the code the client used, echoed in messages. */
  targets: { code: string; label: string }[];
  targetMedia: { code: string; label: string; media: TargetMedia; voice: VoiceChoice } | null;
  formality: 'default' | 'more' | 'less';
  /** Resources checked by the voice service after parsing (existence, languages). */
  spokenTermsId: string | null;
  glossaryId: string | null;
}

export interface VoiceCapabilities {
  /** Base languages a speech-to-text engine transcribes. */
  transcribable: ReadonlySet<string>;
  canTranslate(source: string, target: string): boolean;
  canSpeak(language: string): boolean;
}

/** Source languages of the reference's voice API (base codes). */
export const SOURCE_LANGS = new Set('ar bg bn cs da de el en es et fi fr ga he hr hu id it ja ko lt lv mt nb nl pl pt ro ru sk sl sv th tl tr uk vi zh'.split(' '));
