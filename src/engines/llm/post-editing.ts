// Formality, custom instructions and style rules that need a model, for engines that cannot follow them (Apertium, Bergamot): the engine translates,
// then the language model rewrites its translations under the instruction. Every rewrite is checked (one answer
// per text, placeholders kept, no added commentary); a refused one keeps the engine's translation, with the reason
// logged. A model too busy to start in time is the caller's answer (busy, 429), not a quiet fallback. Without a
// usable model the wrapped engine is offered exactly as it is.
import type { EngineFeatures, EnginePairInfo, EngineTranslateOptions, LanguagePair, TranslationEngine } from '../engine.js';
import { EngineError } from '../engine.js';
import type { Logger } from '../../lib/logger.js';
import type { LlmEngine } from './llm-engine.js';
import type { PostEditPromptInput } from './prompts.js';

/** Targets whose formality the reference honours (German, French, Italian, Spanish, Dutch, Polish, Portuguese, Japanese, Russian). */
export const REGISTER_TARGETS = new Set(['de', 'fr', 'it', 'es', 'nl', 'pl', 'pt', 'ja', 'ru']);

/** Outcomes of post-edits, per text: the model's rewrite was used, or refused and the engine's text kept. */
export interface PostEditCounts {
  used: number;
  refused: number;
}

const baseOf = (code: string) => code.split('-')[0]!;

export class PostEditedEngine implements TranslationEngine {
  constructor(
    private readonly inner: TranslationEngine,
    private readonly editor: LlmEngine,
    private readonly counts: PostEditCounts,
    private readonly log: Logger,
  ) {}

  get name(): string {
    return this.inner.name;
  }

  get features(): EngineFeatures {
    return this.editor.available() ? { ...this.inner.features, customInstructions: true, styleRules: true } : this.inner.features;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  onPairsChanged(listener: () => void): void {
    this.inner.onPairsChanged?.(listener);
  }

  pairs(): EnginePairInfo[] {
    const editing = this.editor.available();
    return this.inner.pairs().map((p) => (p.formality || !editing || !REGISTER_TARGETS.has(baseOf(p.target)) ? p : { ...p, formality: true }));
  }

  async translate(pair: LanguagePair, segments: string[], options: EngineTranslateOptions): Promise<string[]> {
    const native = this.inner.pairs().find((p) => p.source === pair.source && p.target === pair.target)?.formality === true;
    const register = (options.formality === 'more' || options.formality === 'less') && !native ? options.formality : undefined;
    const instructions = this.inner.features.customInstructions ? [] : (options.customInstructions ?? []);
    const styleRules = this.inner.features.styleRules ? [] : (options.styleRules ?? []);
    if ((!register && instructions.length === 0 && styleRules.length === 0) || !this.editor.available()) return this.inner.translate(pair, segments, options);
    const drafts = await this.inner.translate(pair, segments, register ? { ...options, formality: 'default' } : options);
    const input: PostEditPromptInput = { target: pair.target };
    if (register) input.formality = register;
    if (instructions.length) input.customInstructions = instructions;
    if (styleRules.length) input.styleRules = styleRules;
    let edits;
    try {
      edits = await this.editor.postEdit(drafts, input, options.signal, options.requester);
    } catch (err) {
      // busy: the model was never asked, and the client may come back for what it asked (429 with Retry-After)
      if (options.signal?.aborted || !(err instanceof EngineError) || err.kind === 'busy') throw err;
      this.counts.refused += drafts.length;
      this.log.warn({ engine: this.name, pair: `${pair.source}-${pair.target}`, reason: err.message }, "language-model post-edit failed; the engine's translations are used");
      return drafts;
    }
    return edits.map((edit, i) => {
      if ('text' in edit) {
        this.counts.used++;
        return edit.text;
      }
      this.counts.refused++;
      this.log.warn(
        { engine: this.name, pair: `${pair.source}-${pair.target}`, segment: i, problems: edit.problems },
        "language-model post-edit refused; the engine's translation is used",
      );
      return drafts[i]!;
    });
  }
}
