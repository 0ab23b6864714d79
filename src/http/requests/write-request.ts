// Parses /v2/write/rephrase and /v2/write/correct bodies (JSON or form) with the reference's exact messages.
import { invalid, unsupportedValue } from '../../lib/errors.js';
import type { WritingStyle, WritingTone } from '../../engines/llm/index.js';
import { STYLE_TARGETS, WRITE_TARGETS, type WriteRequest } from '../../write/write-request.js';

const STYLES = ['academic', 'business', 'casual', 'simple'] as const;
const TONES = ['confident', 'diplomatic', 'enthusiastic', 'friendly'] as const;

function single(body: Record<string, unknown>, name: string): unknown {
  const v = body[name];
  return Array.isArray(v) && v.length === 1 ? v[0] : v;
}

/** style/tone value → the one to apply ('default' = none); prefer_* falls back silently where unsupported. */
function parseChoice<T extends string>(
  raw: unknown,
  name: 'writing_style' | 'tone',
  allowed: readonly T[],
  target: string | undefined,
  targetRaw: string | undefined,
): T | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string') throw unsupportedValue(name);
  const value = raw.toLowerCase();
  const prefer = value.startsWith('prefer_');
  const plain = prefer ? value.slice('prefer_'.length) : value;
  if (plain === 'default') return undefined;
  if (!(allowed as readonly string[]).includes(plain)) throw unsupportedValue(name);
  const supported = target === undefined || STYLE_TARGETS.has(target);
  if (!supported) {
    if (prefer) return undefined;
    throw invalid(`Language ${targetRaw} does not support setting a ${name === 'tone' ? 'tone' : 'writing style'}.`);
  }
  return plain as T;
}

export function parseWriteRequest(rawBody: unknown, options: { allowStyle: boolean }): WriteRequest {
  const body = (typeof rawBody === 'object' && rawBody !== null ? rawBody : {}) as Record<string, unknown>;
  const rawText = body.text;
  if (rawText === undefined || rawText === null || (Array.isArray(rawText) && rawText.length === 0)) {
    throw invalid("Parameter 'text' not specified");
  }
  const texts = Array.isArray(rawText) ? rawText : [rawText];
  if (texts.some((t) => typeof t !== 'string')) throw unsupportedValue('text');

  const rawTarget = single(body, 'target_lang');
  let targetLang: string | undefined;
  let targetLangRaw: string | undefined;
  if (rawTarget !== undefined && rawTarget !== null && rawTarget !== '') {
    if (typeof rawTarget !== 'string') throw unsupportedValue('target_lang');
    const code = rawTarget.trim().toLowerCase().replace(/_/g, '-');
    if (!(WRITE_TARGETS as readonly string[]).includes(code)) throw unsupportedValue('target_lang');
    targetLang = code;
    targetLangRaw = rawTarget.trim();
  }

  let style: WritingStyle | undefined;
  let tone: WritingTone | undefined;
  if (options.allowStyle) {
    const rawStyle = single(body, 'writing_style');
    const rawTone = single(body, 'tone');
    // 'default' (what the clients send when nothing is chosen) sets nothing, so it never conflicts with the other
    const given = (v: unknown) => v !== undefined && v !== null && v !== '' && !(typeof v === 'string' && v.toLowerCase() === 'default');
    if (given(rawStyle) && given(rawTone)) {
      throw invalid(
        'Bad request. Reason: Both writing_style and tone defined. Currently only style OR tone can be chosen for a single request.',
      );
    }
    style = parseChoice(rawStyle, 'writing_style', STYLES, targetLang, targetLangRaw);
    tone = parseChoice(rawTone, 'tone', TONES, targetLang, targetLangRaw);
  }
  return { texts: texts as string[], targetLang, targetLangRaw, style, tone };
}
