// The one entry point translation uses for customization: resolves a request's glossaries, style rule list,
// translation memory and custom instructions once, then wraps each engine call (TM hits skip the engine, glossary
// terms are protected through it, deterministic style rules rewrite its output).
import { ServiceError } from '../lib/errors.js';
import type { GlossaryService } from './glossaries/glossary-service.js';
import { applyGlossary } from './glossaries/protect.js';
import type { StyleRuleService, StyleRule } from './style-rules/style-rule-service.js';
import { applyStyleRules, isDeterministic } from './style-rules/deterministic-rules.js';
import type { MemoryService } from './memories/memory-service.js';

/** What customization needs of a translation: its languages and the ids of the resources it applies. */
export interface CustomizationRequest {
  sourceLang: string | undefined;
  targetLang: string;
  glossaryIds: readonly string[];
  styleId: string | undefined;
  translationMemoryId: string | undefined;
  translationMemoryThreshold: number | undefined;
  customInstructions: readonly string[];
}

/** What the engine of the pair can take natively (EngineFeatures of src/engines/engine.ts). */
export interface EngineCapabilities {
  glossary?: boolean;
  styleRules?: boolean;
  customInstructions?: boolean;
}

/** Extra engine options for capable engines (EngineTranslateOptions.glossary / styleRules / customInstructions). */
export interface EngineExtras {
  glossary?: { source: string; target: string }[];
  styleRules?: string[];
  customInstructions?: string[];
}

export type EngineCall = (segments: string[], extras: EngineExtras) => Promise<string[]>;

/** A catalogue rule as one plain-language instruction for a language model. */
function ruleInstruction(category: string, rule: string, option: string): string {
  const words = (s: string) => s.replace(/_/g, ' ');
  return `${words(category)}, ${words(rule)}: ${words(option)}`;
}

export interface SegmentHook {
  /** Translates `segments` (source → target) through `engine`, applying every customization of the request. */
  run(source: string, target: string, segments: string[], engine: EngineCall): Promise<string[]>;
  /** Glossary target terms put into outputs so far: their case is the glossary's, never the source's. */
  readonly terms: ReadonlySet<string>;
}

export class TranslateCustomization {
  constructor(
    private readonly glossaries: GlossaryService,
    private readonly styleRules: StyleRuleService,
    private readonly memories: MemoryService,
  ) {}

  /**
   * Validates and loads the request's resources (404/400 with the reference's messages) before any engine work or
   * billing; undefined when the request uses none. `capabilities` are those of the engine serving the pair: custom
   * instructions and style rules that need a language model are refused without them, never ignored.
   */
  async prepare(accountId: string, req: CustomizationRequest, capabilities: EngineCapabilities = {}): Promise<SegmentHook | undefined> {
    if (req.glossaryIds.length === 0 && req.styleId === undefined && req.translationMemoryId === undefined && req.customInstructions.length === 0) return undefined;
    if (req.customInstructions.length > 0 && !capabilities.customInstructions) {
      throw new ServiceError('feature_not_available', "Parameter 'custom_instructions' needs a language-model engine, which the engine for this language pair is not.");
    }
    const param = req.glossaryIds.length > 1 ? 'glossary_ids' : 'glossary_id';
    const glossaries =
      req.glossaryIds.length > 0 && req.sourceLang !== undefined
        ? await this.glossaries.resolve(accountId, req.glossaryIds, req.sourceLang, req.targetLang, param)
        : [];
    const style: StyleRule | undefined = req.styleId !== undefined ? await this.styleRules.resolve(accountId, req.styleId, req.targetLang, capabilities) : undefined;
    const memoryId = req.translationMemoryId;
    const threshold = req.translationMemoryThreshold ?? 75;
    // without a source (detected later) the memory must still exist and fit the target: a 404 now, not a failed job
    if (memoryId !== undefined) await this.memories.lookup(accountId, memoryId, req.sourceLang, req.targetLang, [], threshold);
    const matchers = glossaries.map((g) => g.matcher);
    const extras: EngineExtras = {};
    if (style && capabilities.styleRules) {
      const rules = Object.entries(style.configuredRules).flatMap(([c, set]) =>
        Object.entries(set).filter(([r, o]) => !isDeterministic(c, r, o)).map(([r, o]) => ruleInstruction(c, r, o)),
      );
      if (rules.length > 0) extras.styleRules = rules;
    }
    const usedTerms = new Set<string>();
    return {
      terms: usedTerms,
      run: async (source, target, segments, engine) => {
        const fromMemory = memoryId !== undefined ? await this.memories.lookup(accountId, memoryId, source, req.targetLang, segments, threshold) : segments.map(() => undefined);
        const misses = segments.map((s, i) => (fromMemory[i] === undefined ? i : -1)).filter((i) => i >= 0);
        const input = misses.map((i) => segments[i]!);
        const callExtras: EngineExtras = { ...extras };
        const instructions = [
          ...req.customInstructions,
          ...(style?.customInstructions ?? []).filter((c) => !c.sourceLanguage || c.sourceLanguage.split('-')[0] === source.split('-')[0]).map((c) => c.prompt),
        ];
        if (instructions.length > 0 && capabilities.customInstructions) callExtras.customInstructions = instructions;
        let translated: string[] = [];
        if (misses.length > 0 && capabilities.glossary) {
          // A glossary-capable engine gets the terms occurring in its input and enforces them itself.
          const terms = new Map<string, string>();
          for (const text of input) for (const m of matchers) for (const hit of m.find(text)) terms.set(m.entries[hit.entry]!.source, m.entries[hit.entry]!.target);
          if (terms.size > 0) callExtras.glossary = [...terms].map(([s, t]) => ({ source: s, target: t }));
          for (const t of terms.values()) usedTerms.add(t);
          translated = await engine(input, callExtras);
        } else if (misses.length > 0) {
          const protectedSegs = applyGlossary(input, matchers);
          translated = protectedSegs.restore(await engine(protectedSegs.segments, callExtras));
          for (const t of protectedSegs.terms) usedTerms.add(t);
        }
        const out = fromMemory.slice() as string[];
        misses.forEach((i, k) => (out[i] = translated[k]!));
        void target;
        return style ? applyStyleRules(style.configuredRules, out) : out;
      },
    };
  }
}
