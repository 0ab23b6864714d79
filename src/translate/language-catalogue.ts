// The languages the installed engines translate from and to (pivots included), recomputed when their pairs change.
import type { RoutablePair } from './engine-router.js';
import { DEFAULT_TARGET_VARIANT } from './languages.js';

export interface LanguageCatalogue {
  sources: string[];
  targets: { code: string; formality: boolean }[];
}

/** Bare targets the reference lists whenever their default variant is served (not EN or PT: only their variants). */
const TARGETS_LISTED_WITH_THEIR_DEFAULT = ['zh'];

export function buildCatalogue(pairs: RoutablePair[]): LanguageCatalogue {
  const sources = [...new Set(pairs.map((p) => p.source))].sort();
  const targets = new Map<string, boolean>();
  for (const p of pairs) targets.set(p.target, (targets.get(p.target) ?? false) || p.formality);
  // A bare target with variants the engines lack is still requestable through its default variant name, and English
  // through both (EN-US routes to a plain English engine as EN-GB does; the clients ask for EN-US).
  for (const [base, variant] of Object.entries(DEFAULT_TARGET_VARIANT)) {
    for (const v of base === 'en' ? [variant, 'en-us'] : [variant]) {
      if (targets.has(base) && !targets.has(v)) targets.set(v, targets.get(base)!);
    }
  }
  // The reference lists ZH (meaning simplified Chinese) beside ZH-HANS: a server with a zh-hans model lists both.
  for (const base of TARGETS_LISTED_WITH_THEIR_DEFAULT) {
    const variant = DEFAULT_TARGET_VARIANT[base]!;
    if (targets.has(variant) && !targets.has(base)) targets.set(base, targets.get(variant)!);
  }
  return { sources, targets: [...targets].sort(([a], [b]) => a.localeCompare(b)).map(([code, formality]) => ({ code, formality })) };
}

/** The catalogue and the detectable sources, kept current by refresh() when engines gain or lose pairs. */
export class Languages {
  private current: LanguageCatalogue = { sources: [], targets: [] };
  /** Source languages the detector can recognise (for the auto_detection feature). */
  readonly detectableSources = new Set<string>();

  constructor(
    private readonly router: { pairs(): RoutablePair[]; refresh(): void },
    private readonly detectable: ReadonlySet<string>,
  ) {
    // The routes too: pairs may have changed while the services were being built, before anyone listened.
    this.refresh();
  }

  catalogue(): LanguageCatalogue {
    return this.current;
  }

  /** Pairs found working on first use (Apertium) or models installed/removed while running (Bergamot). */
  refresh(): void {
    this.router.refresh();
    this.current = buildCatalogue(this.router.pairs());
    this.refreshDetectable();
  }

  private refreshDetectable(): void {
    this.detectableSources.clear();
    for (const s of this.current.sources) if (this.detectable.has(s)) this.detectableSources.add(s);
  }
}
