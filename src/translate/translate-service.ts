// The engine side of the translation core: validates a spec against the installed engines (plan), loads its
// customization, and translates planned texts (segmentation, markup, identifiers, engine routing). Called only by
// TranslationCore (translation-core.ts), which owns the order and the billing.
import { ServiceError, invalid } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { EngineTranslateOptions } from '../engines/engine.js';
import { DEFAULT_TARGET_VARIANT, baseLang, toApiCode } from './languages.js';
import type { TextOptions, TranslationSpec } from './translate-job.js';
import { chunkText, joinPieces, restoreFormatting, segmentText, type SegmentedText } from './segmentation.js';
import { parseMarkup, translateKeepingIdentifiers, type InlineStrategy, type MarkupPlan } from '../markup/index.js';
import type { EngineCapabilities, SegmentHook, TranslateCustomization } from '../customization/translate-hook.js';

/** Which inline-tag strategy each tag_handling_version applies (measured in docs/benchmarks.md, "Markup"). */
export const TAG_STRATEGY: Record<'v1' | 'v2', InlineStrategy> = { v1: 'placeholders', v2: 'realign' };
export const DEFAULT_TAG_HANDLING_VERSION = 'v2';
/** A segment longer than this (no sentence break for pages) goes to the engine in pieces cut at blanks. */
export const MAX_SEGMENT_CHARS = 8000;
/** Characters per engine call (a bounded amount of work for the engine's deadline), and such calls at once. */
export const MAX_CALL_CHARS = 16_000;
const CALLS_IN_FLIGHT = 2;
/** Characters segmented between two turns of the event loop. */
const YIELD_EVERY_CHARS = 10_000;

/** What the service needs from the engine router (src/translate/engine-router.ts). */
export interface PairRouter {
  /** True when some engine (directly or through a pivot) translates source → target. */
  canTranslate(source: string, target: string): boolean;
  /** True when the route for source → target honours formality. */
  supportsFormality(source: string, target: string): boolean;
  translate(source: string, target: string, segments: string[], options: EngineTranslateOptions): Promise<string[]>;
  /** What the route's engine takes natively (glossary terms, style rules, custom instructions): direct routes only. */
  capabilities(source: string, target: string): EngineCapabilities;
  /** True when some engine translates into the target (or its base) from any language. */
  servesTarget(target: string): boolean;
}

/** The language a text is translated from, as the detector (and its fallback for unsure texts) chose it. */
export interface SourceChoice {
  /**
   * Tolk code; undefined when the text has no detectable language (digits, symbols: `detected`), or when it is
   * unsure and none of the languages it may be in can be translated to the target (not `detected`).
   */
  source: string | undefined;
  /** False when detection was unsure and the source is a fallback (the default source, a likely candidate). */
  detected: boolean;
}

/** What the service needs from language detection (src/detect/). */
export interface SourceDetector {
  detectSource(text: string, target: string): Promise<SourceChoice>;
}

export interface TranslationResult {
  detectedSourceLanguage: string;
  text: string;
  billedCharacters: number;
  /** Applied tag handling version, present when tag_handling was set. */
  tagHandlingVersion?: 'v1' | 'v2';
}

/** A spec's texts checked against the engines: the source of each text, tagged texts parsed once, the bill. */
export interface TextPlan {
  texts: string[];
  sources: string[];
  /** The parsed text of each input when tag handling is on. */
  markup: MarkupPlan[] | undefined;
  billedCharacters: number;
}

export interface TranslateOutcome {
  results: TranslationResult[];
  billedCharacters: number;
}

function targetUnsupported(targetLang: string): string {
  return `Target language '${toApiCode(targetLang)}' is not supported by the installed engines.`;
}

/** Billed characters: Unicode code points. */
export function countCharacters(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export interface TranslateServiceDeps {
  router: PairRouter;
  detector: SourceDetector;
  logger: Logger;
  /** Glossaries, style rules, translation memories, custom instructions; without it their parameters are refused. */
  customization?: TranslateCustomization;
}

/** What one translation run carries besides the texts: cancellation, the customization hook, who asked. */
export interface TranslateRun {
  signal?: AbortSignal | undefined;
  hook?: SegmentHook | undefined;
  requester?: string | undefined;
}

export class TranslateService {
  constructor(private readonly deps: TranslateServiceDeps) {}

  /** The engine target code for an API target: a variant when asked, else the base. */
  private resolveTarget(source: string, target: string): string {
    const { router } = this.deps;
    if (router.canTranslate(source, target)) return target;
    const base = baseLang(target);
    if (base !== target && router.canTranslate(source, base)) return base;
    const variant = DEFAULT_TARGET_VARIANT[target];
    if (variant && router.canTranslate(source, variant)) return variant;
    return target;
  }

  /** Without customization, its parameters are refused rather than silently ignored. */
  private rejectUnavailableFeatures({ customization: req }: TranslationSpec): void {
    if (this.deps.customization) return;
    const unavailable = (param: string, feature: string) =>
      new ServiceError('feature_not_available', `Parameter '${param}' is not supported by this server yet: ${feature} are not available.`);
    if (req.glossaryIds.length > 0) throw unavailable(req.glossaryIds.length > 1 ? 'glossary_ids' : 'glossary_id', 'glossaries');
    if (req.styleId !== undefined) throw unavailable('style_id', 'style rules');
    if (req.translationMemoryId !== undefined) throw unavailable('translation_memory_id', 'translation memories');
    if (req.customInstructions.length > 0) throw unavailable('custom_instructions', 'custom instructions (they need a language-model engine)');
  }

  /**
   * Validates the spec against the installed engines before any work or billing, and returns the source language
   * per text (detected where the spec has none).
   */
  async plan(spec: TranslationSpec, texts: string[]): Promise<TextPlan> {
    this.rejectUnavailableFeatures(spec);
    const { router, detector } = this.deps;
    const { sourceLang, targetLang, options } = spec;
    const { formality } = options;
    const targetBase = baseLang(targetLang);
    // With tag handling, a malformed XML text is a 400 before any work; detection and billing see text content only.
    const markup = options.tagHandling !== undefined ? texts.map((t) => this.parseMarkup(spec, t)) : undefined;
    const sources: string[] = [];
    if (sourceLang !== undefined) sources.push(...texts.map(() => sourceLang));
    // asked together, the texts reach the detector's thread as one message
    const choices = sourceLang === undefined ? await Promise.all(texts.map((text, i) => detector.detectSource(markup ? markup[i]!.plainText : text, targetLang))) : [];
    for (const choice of choices) {
      if (choice.source !== undefined) sources.push(choice.source);
      else if (choice.detected) sources.push(targetBase);
      // An unsure guess is never named: the user is told what can be done about it.
      else {
        throw invalid(
          router.servesTarget(targetLang)
            ? `The source language could not be detected with confidence; specify source_lang.`
            : targetUnsupported(targetLang),
        );
      }
    }
    for (const source of new Set(sources)) {
      if (source === targetBase) {
        // text already in the target ("Protonenstrahl" → DE) is returned as it is only where an engine serves the
        // target: a 200 never labels a language the server does not serve
        if (!router.servesTarget(targetLang)) throw invalid(targetUnsupported(targetLang));
        continue;
      }
      const target = this.resolveTarget(source, targetLang);
      if (!router.canTranslate(source, target)) {
        if (sourceLang === undefined) {
          // With no engine into the target, the target is the problem, whatever the text's language.
          if (!router.servesTarget(targetLang)) throw invalid(targetUnsupported(targetLang));
          throw invalid(
            `Detected source language '${toApiCode(source)}' cannot be translated to '${toApiCode(targetLang)}' by the installed engines.`,
          );
        }
        throw invalid(`Translation from '${toApiCode(source)}' to '${toApiCode(targetLang)}' is not supported by the installed engines.`);
      }
      if ((formality === 'more' || formality === 'less') && !router.supportsFormality(source, target)) {
        throw invalid(`Target language '${toApiCode(targetLang)}' doesn't support formality.`);
      }
    }
    if (sourceLang !== undefined && sourceLang === targetBase && (formality === 'more' || formality === 'less')) {
      throw invalid(`Target language '${toApiCode(targetLang)}' doesn't support formality.`);
    }
    const billedCharacters = markup ? markup.reduce((n, m) => n + m.textCharacters, 0) : texts.reduce((n, t) => n + countCharacters(t), 0);
    return { texts, sources, markup, billedCharacters };
  }

  /**
   * Loads the spec's glossaries, style rule list and translation memory after plan() and before billing (404/400
   * with the reference's messages); undefined when the spec uses none. Engine-native features count only where
   * every text's route offers them.
   */
  async customize(accountId: string, spec: TranslationSpec, sources: string[]): Promise<SegmentHook | undefined> {
    const { customization, router } = this.deps;
    if (!customization) return undefined;
    const targetBase = baseLang(spec.targetLang);
    const routes = [...new Set(sources)].filter((s) => s !== targetBase).map((s) => router.capabilities(s, this.resolveTarget(s, spec.targetLang)));
    const all = (feature: keyof EngineCapabilities) => routes.length > 0 && routes.every((c) => c[feature] === true);
    const req = { sourceLang: spec.sourceLang, targetLang: spec.targetLang, ...spec.customization };
    return customization.prepare(accountId, req, { glossary: all('glossary'), styleRules: all('styleRules'), customInstructions: all('customInstructions') });
  }

  /** One engine call, through the request's customization when it has one. */
  private engineCall(source: string, target: string, segments: string[], options: EngineTranslateOptions, hook: SegmentHook | undefined): Promise<string[]> {
    const { router } = this.deps;
    if (segments.length === 0) return Promise.resolve([]);
    if (!hook) return router.translate(source, target, segments, options);
    return hook.run(source, target, segments, (segs, extras) => router.translate(source, target, segs, { ...options, ...extras }));
  }

  /**
   * Translates planned texts (after customize()); results come back in input order. `requester` (the account) is
   * passed to the engines so that queued work is shared fairly between accounts.
   */
  async translate(spec: TranslationSpec, plan: TextPlan, run: TranslateRun = {}): Promise<TranslateOutcome> {
    const { signal, hook, requester } = run;
    const { texts, sources } = plan;
    const options = spec.options;
    const targetBase = baseLang(spec.targetLang);
    const results: TranslationResult[] = new Array(texts.length);
    const groups = new Map<string, number[]>();
    sources.forEach((source, i) => {
      const list = groups.get(source);
      if (list) list.push(i);
      else groups.set(source, [i]);
    });

    const formality = options.formality === 'prefer_more' ? 'more' : options.formality === 'prefer_less' ? 'less' : options.formality;
    await Promise.all(
      [...groups].map(async ([source, indexes]) => {
        // Text already in the target language comes back as it is.
        if (source === targetBase) {
          for (const i of indexes) {
            results[i] = this.result(source, texts[i]!, texts[i]!);
            if (plan.markup) {
              results[i]!.billedCharacters = plan.markup[i]!.textCharacters;
              results[i]!.tagHandlingVersion = options.tagHandlingVersion ?? DEFAULT_TAG_HANDLING_VERSION;
            }
          }
          return;
        }
        const target = this.resolveTarget(source, spec.targetLang);
        const useFormality = formality !== 'default' && this.deps.router.supportsFormality(source, target) ? formality : 'default';
        if (plan.markup) {
          await this.translateMarkup(options, plan.markup, source, target, indexes, results, { formality: useFormality, signal, hook, requester });
          return;
        }
        // Plain texts are units without tags: their identifiers travel past the engine as empty tags.
        const units = indexes.map((i) => ({ text: texts[i]!, marks: [] }));
        const translated = await translateKeepingIdentifiers(
          units,
          (segs) => this.translatePlain(options, source, target, segs, { formality: useFormality, signal, hook, requester }),
          'placeholders',
        );
        indexes.forEach((i, j) => {
          results[i] = this.result(source, texts[i]!, translated[j]!.text);
        });
      }),
    );
    return { results, billedCharacters: results.reduce((n, r) => n + r.billedCharacters, 0) };
  }

  private result(source: string, input: string, output: string): TranslationResult {
    return { detectedSourceLanguage: toApiCode(source), text: output, billedCharacters: countCharacters(input) };
  }

  private parseMarkup({ options, targetLang }: TranslationSpec, text: string): MarkupPlan {
    return parseMarkup(text, {
      format: options.tagHandling!,
      outlineDetection: options.outlineDetection,
      splittingTags: options.splittingTags,
      nonSplittingTags: options.nonSplittingTags,
      ignoreTags: options.ignoreTags,
      targetLang: toApiCode(targetLang).replace(/^([A-Z]+)/u, (l) => l.toLowerCase()),
    });
  }

  /** Plain-text translation with sentence splitting and formatting rules: the segment translator of the markup layer. */
  private async translatePlain(
    textOptions: Pick<TextOptions, 'splitSentences' | 'preserveFormatting' | 'context'>,
    source: string,
    target: string,
    texts: string[],
    options: { formality: EngineTranslateOptions['formality'] } & TranslateRun,
  ): Promise<string[]> {
    // Sentence splitting of a large request takes ~100 ms: done in slices, so other requests' work runs in between.
    const perText: SegmentedText[] = [];
    let sinceYield = 0;
    for (const text of texts) {
      perText.push(segmentText(text, textOptions.splitSentences, source));
      sinceYield += text.length;
      if (sinceYield >= YIELD_EVERY_CHARS) {
        sinceYield = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    // A segment without sentence breaks for pages is translated in pieces, so that no engine call is unbounded.
    const pieces = perText.flatMap((s) => s.segments.map((seg) => (seg.core.length > MAX_SEGMENT_CHARS ? chunkText(seg.core, MAX_SEGMENT_CHARS) : [seg.core])));
    const engineOptions: EngineTranslateOptions = { formality: options.formality ?? 'default' };
    if (textOptions.context !== undefined) engineOptions.context = textOptions.context;
    if (options.signal) engineOptions.signal = options.signal;
    if (options.requester !== undefined) engineOptions.requester = options.requester;
    const translated = await this.boundedEngineCalls(source, target, pieces.flat(), engineOptions, options.hook);
    let k = 0;
    const joined = pieces.map((parts) => joinPieces(parts, translated.slice(k, (k += parts.length))));
    k = 0;
    return perText.map((seg) =>
      restoreFormatting(seg, seg.segments.map(() => joined[k++]!), textOptions.preserveFormatting, options.hook?.terms),
    );
  }

  /**
   * Engine calls of at most MAX_CALL_CHARS characters each (a segment alone may reach MAX_SEGMENT_CHARS), a few at a
   * time: each call has the engine's deadline, and a long document is many bounded calls, not one unbounded one.
   */
  private async boundedEngineCalls(source: string, target: string, segments: string[], options: EngineTranslateOptions, hook: SegmentHook | undefined): Promise<string[]> {
    const calls: string[][] = [];
    let size = Infinity;
    for (const segment of segments) {
      if (size + segment.length > MAX_CALL_CHARS) {
        calls.push([]);
        size = 0;
      }
      calls.at(-1)!.push(segment);
      size += segment.length;
    }
    const results: string[][] = new Array(calls.length);
    let next = 0;
    // after a failed call no further one starts: the request fails as a whole
    const lane = async () => {
      for (let i = next++; i < calls.length; i = next++) {
        try {
          results[i] = await this.engineCall(source, target, calls[i]!, options, hook);
        } catch (err) {
          next = calls.length;
          throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CALLS_IN_FLIGHT, calls.length) }, lane));
    return results.flat();
  }

  /** Tag handling: the group's parsed texts have their units translated together, then are rebuilt. */
  private async translateMarkup(
    textOptions: TextOptions,
    markup: MarkupPlan[],
    source: string,
    target: string,
    indexes: number[],
    results: TranslationResult[],
    options: { formality: EngineTranslateOptions['formality'] } & TranslateRun,
  ): Promise<void> {
    const version = textOptions.tagHandlingVersion ?? DEFAULT_TAG_HANDLING_VERSION;
    const plans = indexes.map((i) => markup[i]!);
    const all = plans.flatMap((p) => p.units);
    const translated = await translateKeepingIdentifiers(all, (segs) => this.translatePlain(textOptions, source, target, segs, options), TAG_STRATEGY[version]);
    let k = 0;
    indexes.forEach((i, j) => {
      const plan = plans[j]!;
      const outputs = translated.slice(k, k + plan.units.length);
      k += plan.units.length;
      results[i] = {
        detectedSourceLanguage: toApiCode(source),
        text: plan.render(outputs),
        billedCharacters: plan.textCharacters,
        tagHandlingVersion: version,
      };
    });
  }
}
