// Validation of POST /v3/voice/realtime bodies into a VoiceSessionConfig, checked against the installed engines so
// that an untranscribable source or untranslatable target fails at request time, not mid-stream.
import { ServiceError, invalid } from '../../lib/errors.js';
import { normalizeLangCode, toBcp47 } from '../../translate/languages.js';
import { DEFAULT_TARGET_MEDIA, parseSourceMedia, parseTargetMedia } from '../../voice/audio/media-types.js';
import { SOURCE_LANGS, type VoiceCapabilities, type VoiceChoice, type VoiceSessionConfig } from '../../voice/session-request.js';

const TARGET_LANGS = new Set([...SOURCE_LANGS, 'en-gb', 'en-us', 'pt-br', 'pt-pt', 'zh-hans', 'zh-hant']);
const MEDIA_LANGS = new Set(['ar', 'bg', 'cs', 'da', 'de', 'el', 'en', 'en-gb', 'en-us', 'es', 'fi', 'fr', 'hu', 'id', 'it', 'ja', 'ko', 'nb', 'nl', 'pl', 'pt', 'pt-br', 'pt-pt', 'ro', 'ru', 'sk', 'sv', 'tr', 'uk', 'vi', 'zh', 'zh-hans', 'zh-hant']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KNOWN_FIELDS = new Set([
  'source_media_content_type', 'message_format', 'source_language', 'source_language_mode', 'target_languages',
  'target_media_languages', 'target_media_content_type', 'target_media_voice', 'spoken_terms_id', 'glossary_id', 'formality',
]);

function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(`Parameter '${name}' must be a string.`);
  return v;
}

function languageList(body: Record<string, unknown>, name: string, allowed: Set<string>, max: number): { code: string; label: string }[] {
  const v = body[name];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid(`Parameter '${name}' must be an array of language codes.`);
  if (v.length > max) throw invalid(`Parameter '${name}' accepts at most ${max} language${max === 1 ? '' : 's'}.`);
  const out: { code: string; label: string }[] = [];
  for (const item of v) {
    if (typeof item !== 'string') throw invalid(`Parameter '${name}' must be an array of language codes.`);
    const code = item.trim().toLowerCase().replace(/_/g, '-');
    if (!allowed.has(code)) throw invalid(`Value for '${name}' not supported: '${item}'.`);
    if (!out.some((o) => o.code === code)) out.push({ code, label: item.trim() });
  }
  return out;
}

export function parseVoiceSessionRequest(raw: unknown, caps: VoiceCapabilities): VoiceSessionConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid('The request body must be a JSON object.');
  const body = raw as Record<string, unknown>;
  const unknown = Object.keys(body).filter((k) => !KNOWN_FIELDS.has(k));
  if (unknown.length > 0) throw invalid(`Unknown parameter '${unknown[0]}'.`);

  const contentType = optionalString(body, 'source_media_content_type');
  if (contentType === undefined || contentType.trim() === '') throw invalid("Missing required parameter 'source_media_content_type'.");
  const sourceMedia = parseSourceMedia(contentType);
  if (!sourceMedia) throw invalid(`Value for 'source_media_content_type' not supported: '${contentType}'.`);

  const messageFormat = optionalString(body, 'message_format') ?? 'json';
  if (messageFormat !== 'json' && messageFormat !== 'msgpack') throw invalid("Value for 'message_format' not supported: use 'json' or 'msgpack'.");

  const mode = optionalString(body, 'source_language_mode') ?? 'auto';
  if (mode !== 'auto' && mode !== 'fixed') throw invalid("Value for 'source_language_mode' not supported: use 'auto' or 'fixed'.");

  const rawSource = (optionalString(body, 'source_language') ?? '').trim().toLowerCase();
  if (rawSource !== '' && !SOURCE_LANGS.has(rawSource)) throw invalid(`Value for 'source_language' not supported: '${rawSource}'.`);
  const available = [...caps.transcribable].sort();
  if (available.length === 0) throw new ServiceError('not_ready', 'No speech recognition engine is installed on this server.');
  let sourceLanguage = rawSource;
  if (sourceLanguage === '') {
    if (mode === 'fixed') throw invalid("Parameter 'source_language' is required when 'source_language_mode' is 'fixed'.");
    // Without a hint, the only language there is a recogniser for (English with the default engine).
    sourceLanguage = available.includes('en') ? 'en' : available[0]!;
  }
  if (!caps.transcribable.has(sourceLanguage)) {
    throw invalid(
      `Source language '${sourceLanguage}' cannot be transcribed: no speech recognition engine for it is installed (available: ${available.join(', ')}).`,
    );
  }

  const targets = languageList(body, 'target_languages', TARGET_LANGS, 5);
  const mediaLangs = languageList(body, 'target_media_languages', MEDIA_LANGS, 1);
  for (const m of mediaLangs) if (!targets.some((t) => t.code === m.code)) targets.push(m);
  if (targets.length > 5) throw invalid("At most 5 target languages (including 'target_media_languages') are allowed.");
  for (const t of targets) {
    const tolk = normalizeLangCode(t.code) ?? t.code;
    if (tolk.split('-')[0] !== sourceLanguage && !caps.canTranslate(sourceLanguage, tolk)) {
      throw invalid(`Target language '${t.label}' is not supported for source language '${sourceLanguage}' by the installed translation engines.`);
    }
    t.code = tolk;
    t.label = toBcp47(t.label.toLowerCase());
  }

  const mediaType = optionalString(body, 'target_media_content_type');
  const media = parseTargetMedia(mediaType ?? DEFAULT_TARGET_MEDIA);
  if (!media) throw invalid(`Value for 'target_media_content_type' not supported: '${mediaType}'.`);
  const voice = optionalString(body, 'target_media_voice');
  if (voice !== undefined && voice !== 'male' && voice !== 'female' && voice !== 'match') {
    throw invalid("Value for 'target_media_voice' not supported: use 'male', 'female' or 'match'.");
  }
  let targetMedia: VoiceSessionConfig['targetMedia'] = null;
  if (mediaLangs.length === 1) {
    const target = targets.find((t) => t.code === (normalizeLangCode(mediaLangs[0]!.code) ?? mediaLangs[0]!.code))!;
    if (!caps.canSpeak(target.code)) throw invalid(`Translated speech is not available for '${target.label}' on this server.`);
    targetMedia = { code: target.code, label: target.label, media, voice: (voice as VoiceChoice | undefined) ?? 'female' };
  }

  const formalityRaw = optionalString(body, 'formality') ?? 'default';
  const formality = ({ default: 'default', formal: 'more', more: 'more', informal: 'less', less: 'less' } as const)[formalityRaw as 'default'];
  if (!formality) throw invalid("Value for 'formality' not supported: use default, formal, more, informal or less.");

  const spokenTermsId = optionalString(body, 'spoken_terms_id');
  if (spokenTermsId !== undefined && !UUID.test(spokenTermsId)) throw invalid("Value for 'spoken_terms_id' not supported: it must be a UUID.");
  const glossaryId = optionalString(body, 'glossary_id');
  if (glossaryId !== undefined && !UUID.test(glossaryId)) throw invalid("Value for 'glossary_id' not supported: it must be a UUID.");
  return {
    sourceMedia, messageFormat, sourceLanguage, sourceLanguageMode: mode, targets, targetMedia, formality,
    spokenTermsId: spokenTermsId?.toLowerCase() ?? null,
    glossaryId: glossaryId?.toLowerCase() ?? null,
  };
}
