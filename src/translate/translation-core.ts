// The translation core: the one door to translation. Routes call translateText(job) (plan → customize → quota →
// engine → charge); callers that own their segmentation (the document worker, voice sessions) call prepare(spec)
// once and translateSegments(prepared, segments) per piece, and bill in their own units. The policies of
// translation live here: source detection with its short-text fallback, engine errors as API errors, the catalogue.
import type { AuthContext } from '../accounts/accounts-service.js';
import type { TranslateCustomization, SegmentHook } from '../customization/translate-hook.js';
import type { LanguageDetection } from '../detect/language-detector.js';
import type { Logger } from '../lib/logger.js';
import type { EngineRouter } from './engine-router.js';
import { engineErrorToServiceError } from './engine-errors.js';
import { Languages } from './language-catalogue.js';
import { baseLang } from './languages.js';
import { sourceDetector } from './source-detection.js';
import { NO_CUSTOMIZATION, textOptions, type TranslateJob, type TranslationSpec } from './translate-job.js';
import type { SplitSentences } from './translate-job.js';
import { TranslateService, type PairRouter, type TextPlan, type TranslateOutcome } from './translate-service.js';

/** Quota and billing of translated characters (UsageService). */
export interface CharacterMeter {
  assertCharactersAvailable(ctx: AuthContext, characters: number): Promise<void>;
  charge(ctx: AuthContext, product: 'text_translation', characters: number, reportingTag: string | null): Promise<void>;
}

export interface TranslationCoreDeps {
  router: EngineRouter;
  detector: LanguageDetection;
  usage: CharacterMeter;
  /** Glossaries, style rules, translation memories, custom instructions; without it their parameters are refused. */
  customization?: TranslateCustomization | undefined;
  /** TOLK_DEFAULT_SOURCE_LANG: the source assumed for texts too short to detect. */
  defaultSourceLang?: string | undefined;
  logger: Logger;
}

/** A spec validated against the engines with its customization loaded, ready for segments. */
export interface PreparedTranslation {
  readonly accountId: string;
  readonly spec: TranslationSpec;
  /** Undefined only when the spec has no source (an upload checked before its text is read). */
  readonly source: string | undefined;
  readonly hook: SegmentHook | undefined;
}

export interface SegmentRun {
  /** Overrides the spec's split_sentences (markup formats pass units that keep their own newlines). */
  splitSentences?: SplitSentences | undefined;
  signal?: AbortSignal | undefined;
}

export class TranslationCore {
  private readonly text: TranslateService;
  /** Engine routes, with engine failures turned into API errors. */
  readonly pairs: PairRouter;
  /** What the engines translate from and to, and which sources the detector recognises. */
  readonly languages: Languages;

  constructor(private readonly deps: TranslationCoreDeps) {
    const { router } = deps;
    this.pairs = {
      canTranslate: (source, target) => router.resolve(source, target) !== null,
      supportsFormality: (source, target) => router.resolve(source, target)?.formality ?? false,
      capabilities: (source, target) => router.capabilities(source, target),
      // Asked only when a request is refused: the routable pairs are computed once and cached by the router.
      servesTarget: (target) => router.pairs().some((p) => p.target === target || baseLang(p.target) === baseLang(target)),
      translate: async (source, target, segments, opts) => {
        try {
          return await router.translate(source, target, segments, opts);
        } catch (err) {
          throw engineErrorToServiceError(err);
        }
      },
    };
    const detector = sourceDetector({
      detector: deps.detector,
      canTranslate: (source, target) => router.resolve(source, target) !== null || router.resolve(source, baseLang(target)) !== null,
      servesTarget: (target) => this.pairs.servesTarget(target),
      defaultSourceLang: deps.defaultSourceLang,
    });
    this.text = new TranslateService({ router: this.pairs, detector, logger: deps.logger, customization: deps.customization });
    this.languages = new Languages(router, deps.detector.languages);
  }

  /** True when some engine (directly or through a pivot) translates source → target. */
  canTranslate(source: string, target: string): boolean {
    return this.pairs.canTranslate(source, target);
  }

  /** Translates a job's texts and charges its key: nothing is billed when any step before the engine refuses. */
  async translateText(job: TranslateJob): Promise<TranslateOutcome> {
    const accountId = job.caller.account.id;
    const plan = await this.text.plan(job, job.texts);
    const hook = await this.text.customize(accountId, job, plan.sources);
    await this.deps.usage.assertCharactersAvailable(job.caller, plan.billedCharacters);
    const outcome = await this.text.translate(job, plan, { signal: job.signal, hook, requester: accountId });
    await this.deps.usage.charge(job.caller, 'text_translation', outcome.billedCharacters, job.reportingTag);
    return outcome;
  }

  /**
   * The language to translate a sample into `targetLang` from (the target's base when undetectable); a 400 when the
   * detected language cannot be translated to the target.
   */
  async detectSource(sample: string, targetLang: string): Promise<string> {
    const spec: TranslationSpec = { sourceLang: undefined, targetLang, options: textOptions(), customization: NO_CUSTOMIZATION };
    return (await this.text.plan(spec, [sample])).sources[0]!;
  }

  /** Validates the spec (pair, formality) and loads its customization (404/400 with the reference's messages). */
  async prepare(accountId: string, spec: TranslationSpec): Promise<PreparedTranslation> {
    const source = spec.sourceLang;
    const plan = await this.text.plan(spec, source === undefined ? [] : ['']);
    const hook = await this.text.customize(accountId, spec, plan.sources);
    return { accountId, spec, source, hook };
  }

  /** Translates segments of a prepared translation, in order; billing is the caller's (documents, voice). */
  async translateSegments(prepared: PreparedTranslation, segments: string[], run: SegmentRun = {}): Promise<string[]> {
    const { source, hook, accountId } = prepared;
    if (source === undefined) throw new Error('translateSegments needs a translation prepared with its source language');
    let spec = prepared.spec;
    if (run.splitSentences !== undefined && run.splitSentences !== spec.options.splitSentences) {
      spec = { ...spec, options: { ...spec.options, splitSentences: run.splitSentences } };
    }
    const plan: TextPlan = { texts: segments, sources: segments.map(() => source), markup: undefined, billedCharacters: 0 };
    const outcome = await this.text.translate(spec, plan, { signal: run.signal, hook, requester: accountId });
    return outcome.results.map((r) => r.text);
  }
}
