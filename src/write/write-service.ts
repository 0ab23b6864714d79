// Text improvement: rephrase through the language-model engine; correct with Hunspell offline, and spelling plus
// grammar through the language model when one is configured (falling back to Hunspell when it fails). improve(job)
// is the use case of /v2/write: plan → quota → improve → charge, as translateText is for /v2/translate.
import type { AuthContext } from '../accounts/accounts-service.js';
import { EngineError } from '../engines/engine.js';
import type { ImprovePromptInput, TextImprover } from '../engines/llm/index.js';
import { ServiceError, invalid, unsupportedValue } from '../lib/errors.js';
import { silentLogger, type Logger } from '../lib/logger.js';
import { engineErrorToServiceError } from '../translate/engine-errors.js';
import { toBcp47 } from '../translate/languages.js';
import { countCharacters } from '../translate/translate-service.js';
import { STYLE_TARGETS, WRITE_TARGETS, type WriteRequest } from './write-request.js';
import type { SpellCheckOptions } from './hunspell.js';
import { correctSpelling, editDistance, type SpellChecker } from './spelling-corrector.js';

export interface SpellingDictionaries extends SpellChecker {
  /** True when a dictionary covers the language (exact variant or its base). */
  has(lang: string): boolean;
}

export interface WriteDetector {
  /** Tolk code of the text's language, or undefined when it cannot be told. */
  detect(text: string): Promise<string | undefined>;
}

export interface WriteServiceDeps {
  improver?: TextImprover | undefined;
  dictionaries: SpellingDictionaries;
  detector: WriteDetector;
  logger?: Logger;
  /** Quota and billing of improved characters (UsageService). */
  usage: {
    assertCharactersAvailable(ctx: AuthContext, characters: number): Promise<void>;
    charge(ctx: AuthContext, product: 'text_improvement', characters: number, reportingTag: string | null): Promise<void>;
  };
  /** How long a correction may take, queueing for a spelling checker included; default 10 s. */
  timeoutMs?: number;
  /** Told of texts answered without the model's output: unchanged (rephrase), or spelling-corrected (correct). */
  onFallback?: (kind: 'rephrase_unchanged' | 'correct_spelling', texts: number) => void;
}

/** One metered improvement request: the parsed texts and the key that is charged. */
export interface WriteJob {
  mode: 'rephrase' | 'correct';
  request: WriteRequest;
  caller: AuthContext;
  reportingTag: string | null;
  /** Aborted when the client goes away. */
  signal?: AbortSignal | undefined;
}

export interface Improvement {
  text: string;
  targetLanguage: string;
  detectedSourceLanguage: string;
}

export interface WriteLanguage {
  code: string;
  rephrase: boolean;
  correct: boolean;
  /** writing_style and tone can be set. */
  style: boolean;
}

export const NEEDS_LLM_MESSAGE =
  'Rephrasing needs a language-model engine, and this server has none configured (set TOLK_LLM_URL and TOLK_LLM_MODEL, or install a model: tolk models install llm-NAME).';

/** What failed, in the errors of text improvement. */
const LANGUAGE_MODEL = 'the language model';

/** An LLM correction that rewrites more than this share of the words is not minimal: Hunspell's result is used. */
const MAX_CORRECTION_CHANGE = 0.4;

const baseOf = (code: string) => code.split('-')[0]!;

/**
 * The spelling checkers' failures as API errors: out of time 504, one account's queue full 529, else 500. A request
 * whose client went away gets a 408 no one reads (nor counted as a server failure).
 */
function spellingError(err: unknown, signal: AbortSignal | undefined): never {
  if (signal?.aborted) throw new ServiceError('request_timeout', 'The client went away before the correction was done.');
  if (err instanceof EngineError && err.kind === 'timeout') {
    throw new ServiceError('engine_timeout', 'Spelling correction did not finish in time. Send shorter texts or try again.', { retryAfterSeconds: 1 });
  }
  if (err instanceof EngineError && err.kind === 'overloaded') {
    throw new ServiceError('overloaded', 'Too many correction requests of this account are waiting. Please try again later.', { retryAfterSeconds: 1 });
  }
  throw err instanceof ServiceError ? err : new ServiceError('internal', 'Spelling correction failed. Please try again.');
}

function wordChangeRatio(before: string, after: string): number {
  const a = before.split(/\s+/).filter(Boolean);
  const b = after.split(/\s+/).filter(Boolean);
  if (a.length === 0) return b.length === 0 ? 0 : 1;
  // word-level edit distance through the character routine: map each distinct word to one code point
  const ids = new Map<string, string>();
  const enc = (w: string) => {
    if (!ids.has(w)) ids.set(w, String.fromCodePoint(0xe000 + ids.size));
    return ids.get(w)!;
  };
  return editDistance(a.map(enc).join(''), b.map(enc).join('')) / a.length;
}

export class WriteService {
  private readonly log: Logger;

  constructor(private readonly deps: WriteServiceDeps) {
    this.log = deps.logger ?? silentLogger;
  }

  /** Asked each time: a local model installed or removed while the server runs changes it. */
  get hasLanguageModel(): boolean {
    return (this.deps.improver?.improveLanguages().length ?? 0) > 0;
  }

  private llmCovers(lang: string): boolean {
    const languages = this.deps.improver?.improveLanguages() ?? [];
    return languages.includes(lang) || languages.includes(baseOf(lang));
  }

  /** What /v3/languages?resource=write lists: targets of the reference's set that some engine here can improve. */
  languages(): WriteLanguage[] {
    return WRITE_TARGETS.filter((c) => c !== 'en' && c !== 'pt' && c !== 'zh')
      .map((code) => {
        const rephrase = this.llmCovers(code);
        return { code, rephrase, correct: rephrase || this.deps.dictionaries.has(code), style: rephrase && STYLE_TARGETS.has(code) };
      })
      .filter((l) => l.correct);
  }

  /**
   * Improves a job's texts and charges its key: nothing is billed when the request cannot be served, nor for a text
   * returned unchanged because the model's answers for it were refused.
   */
  async improve(job: WriteJob): Promise<Improvement[]> {
    const characters = this.plan(job.request, job.mode);
    await this.deps.usage.assertCharactersAvailable(job.caller, characters);
    const refused = new Set<number>();
    const improvements =
      job.mode === 'rephrase'
        ? await this.rephrase(job.request, job.signal, job.caller.account.id, refused)
        : await this.correct(job.request, job.signal, job.caller.account.id, refused);
    const unbilled = [...refused].reduce((n, i) => n + countCharacters(job.request.texts[i]!), 0);
    await this.deps.usage.charge(job.caller, 'text_improvement', characters - unbilled, job.reportingTag);
    return improvements;
  }

  /** Checks the request can be served before any billing; returns the characters to bill. */
  plan(req: WriteRequest, mode: 'rephrase' | 'correct'): number {
    if (mode === 'rephrase') {
      if (!this.hasLanguageModel) throw new ServiceError('feature_not_available', NEEDS_LLM_MESSAGE);
      if (req.targetLang !== undefined && !this.llmCovers(req.targetLang)) throw unsupportedValue('target_lang');
    } else if (req.targetLang !== undefined && !this.llmCovers(req.targetLang) && !this.deps.dictionaries.has(req.targetLang)) {
      throw new ServiceError(
        'feature_not_available',
        `Correcting '${req.targetLangRaw}' needs a language-model engine: no spelling dictionary for it is installed on this server.`,
      );
    }
    return req.texts.reduce((n, t) => n + countCharacters(t), 0);
  }

  /**
   * The language to improve each text in: target_lang, else the detected one (English when undetectable). Correction
   * stays within one language; rephrasing into another language translates as well (`from` is then set).
   */
  private languagesOf(req: WriteRequest, mode: 'rephrase' | 'correct'): Promise<{ lang: string; detected: string; from?: string }[]> {
    return Promise.all(
      req.texts.map(async (text) => {
        const detected = await this.deps.detector.detect(text);
        // variants may change within a language (en-US → en-GB) without translating
        if (req.targetLang !== undefined && detected !== undefined && baseOf(detected) !== baseOf(req.targetLang)) {
          if (mode === 'rephrase') return { lang: req.targetLang, detected, from: detected };
          throw invalid(
            `The text is in '${toBcp47(detected)}', not in the target language '${req.targetLangRaw}': text improvement works within one language.`,
          );
        }
        const lang = req.targetLang ?? detected ?? 'en';
        return { lang, detected: detected ?? baseOf(lang) };
      }),
    );
  }

  private improvement(text: string, lang: string, detected: string): Improvement {
    // a bare `en` answers as en-US, as the reference does
    return { text, targetLanguage: toBcp47(lang === 'en' ? 'en-us' : lang), detectedSourceLanguage: baseOf(detected) };
  }

  /** `refused` collects the texts returned unchanged because every answer of the model for them was refused. */
  async rephrase(req: WriteRequest, signal?: AbortSignal, account?: string, refused = new Set<number>()): Promise<Improvement[]> {
    const improver = this.deps.improver;
    if (!improver) throw new ServiceError('feature_not_available', NEEDS_LLM_MESSAGE);
    const langs = await this.languagesOf(req, 'rephrase');
    for (const { lang } of langs) if (!this.llmCovers(lang)) throw invalid(`Detected language '${lang}' cannot be improved by the configured language model.`);
    const out: Improvement[] = new Array(req.texts.length);
    // one model call per target language and source language to translate from
    const groups = new Map<string, number[]>();
    langs.forEach(({ lang, from }, i) => groups.set(`${lang}|${from ?? ''}`, [...(groups.get(`${lang}|${from ?? ''}`) ?? []), i]));
    await Promise.all(
      [...groups].map(async ([key, indexes]) => {
        const [lang = 'en', from] = key.split('|');
        const input: ImprovePromptInput = { mode: 'rephrase', language: lang };
        if (from) input.from = from;
        if (req.style) input.style = req.style;
        if (req.tone) input.tone = req.tone;
        const texts = indexes.map((i) => req.texts[i]!);
        let results: string[];
        try {
          results = await improver.improve(texts, input, signal, account);
        } catch (err) {
          // A model that keeps breaking the texts (markup lost, commentary added) leaves them as they were, unless
          // they had to be translated as well.
          if (!(err instanceof EngineError && err.kind === 'failed') || from || signal?.aborted) throw engineErrorToServiceError(err, LANGUAGE_MODEL);
          this.log.warn({ lang, reason: err.message }, 'language-model rephrasing refused; the texts are returned unchanged');
          this.deps.onFallback?.('rephrase_unchanged', texts.length);
          results = texts;
          for (const i of indexes) refused.add(i);
        }
        indexes.forEach((i, k) => (out[i] = this.improvement(results[k]!, lang, langs[i]!.detected)));
      }),
    );
    return out;
  }

  /** `account` gets its own queue for the spelling checkers, so one account's backlog delays only itself. */
  async correct(req: WriteRequest, signal?: AbortSignal, account?: string, refused = new Set<number>()): Promise<Improvement[]> {
    const langs = await this.languagesOf(req, 'correct');
    const spell: SpellCheckOptions = { account, signal, deadlineAt: Date.now() + (this.deps.timeoutMs ?? 10_000) };
    return Promise.all(
      req.texts.map(async (text, i) => {
        const { lang, detected } = langs[i]!;
        return this.improvement(await this.correctOne(text, lang, spell, () => refused.add(i)), lang, detected);
      }),
    );
  }

  private async correctOne(text: string, lang: string, spell: SpellCheckOptions, onRefused: () => void): Promise<string> {
    const dictionaries = this.deps.dictionaries;
    const hasDictionary = dictionaries.has(lang);
    const signal = spell.signal;
    const spelling = async () => (hasDictionary ? correctSpelling(text, lang, dictionaries, spell).catch((err: unknown) => spellingError(err, signal)) : text);
    if (!this.llmCovers(lang)) {
      if (!hasDictionary) throw invalid(`Correcting '${lang}' needs a language-model engine: no spelling dictionary for it is installed on this server.`);
      return spelling();
    }
    try {
      const [corrected] = await this.deps.improver!.improve([text], { mode: 'correct', language: lang }, signal, spell.account);
      if (hasDictionary && wordChangeRatio(text, corrected!) > MAX_CORRECTION_CHANGE) {
        this.log.warn({ lang }, 'language-model correction rewrote too much; using the spelling correction');
        this.deps.onFallback?.('correct_spelling', 1);
        return spelling();
      }
      return corrected!;
    } catch (err) {
      // Offline correction still works when the model server is down; without a dictionary the error stands, but a
      // text whose corrections the model kept breaking is returned as it was, as a rephrase is (and not billed).
      if (hasDictionary && err instanceof EngineError && err.kind !== 'unsupported_pair') {
        this.log.warn({ err: err.message, lang }, 'language-model correction failed; using the spelling correction');
        this.deps.onFallback?.('correct_spelling', 1);
        return spelling();
      }
      if (err instanceof EngineError && err.kind === 'failed' && !signal?.aborted) {
        this.log.warn({ lang, reason: err.message }, 'language-model correction refused; the text is returned unchanged');
        onRefused();
        return text;
      }
      throw engineErrorToServiceError(err, LANGUAGE_MODEL);
    }
  }
}
