// Picks the engine (or chain of engines through a pivot language) for a language pair and runs it.

import {
  EngineError,
  type EngineTranslateOptions,
  type LangCode,
  type TranslationEngine,
} from '../engines/engine.js';
import { silentLogger, type Logger } from '../lib/logger.js';

export interface RoutingRule {
  /** "en-es" (Tolk codes, source-target) or "*" for every pair. */
  pair: string;
  /** Engine name (TranslationEngine.name). */
  engine: string;
}

export interface EngineRouterOptions {
  /** Rules are tried in order; a rule only applies when its engine really has the pair. Default: every pair to the first engine listing it. */
  routing?: RoutingRule[];
  /** Most engine calls chained for one request (1 = no pivots). Default 2. */
  maxLegs?: number;
  /** Variant used when a base target is asked for and no base pair exists, e.g. { pt: "pt-br" }. Default: first variant alphabetically. */
  defaultVariants?: Record<string, string>;
  logger?: Logger;
}

export interface RouteLeg {
  engine: TranslationEngine;
  source: LangCode;
  target: LangCode;
  formality: boolean;
}

export interface Route {
  kind: 'direct' | 'pivot';
  /** What was asked for. */
  source: LangCode;
  target: LangCode;
  /** One leg for direct, two or more for pivots; legs[i].target feeds legs[i+1]. */
  legs: RouteLeg[];
  /** Formality can be honoured (only the last leg produces target text). */
  formality: boolean;
}

export interface RoutablePair {
  source: LangCode;
  target: LangCode;
  formality: boolean;
  kind: 'direct' | 'pivot';
  /** Intermediate languages for pivots, empty for direct. */
  via: LangCode[];
  engines: string[];
}

const baseOf = (code: string): string => code.split('-')[0]!;

export class EngineRouter {
  private readonly log: Logger;
  private readonly maxLegs: number;
  private readonly defaultVariants: Record<string, string>;
  private readonly rules: RoutingRule[];
  /** Adjacency: source → edges chosen by routing rules (one engine per direct pair). */
  private edges = new Map<LangCode, RouteLeg[]>();
  private cache = new Map<string, Route | null>();

  constructor(
    private readonly engines: TranslationEngine[],
    options: EngineRouterOptions = {},
  ) {
    this.log = options.logger ?? silentLogger;
    this.maxLegs = Math.max(1, options.maxLegs ?? 2);
    this.defaultVariants = Object.fromEntries(Object.entries(options.defaultVariants ?? {}).map(([k, v]) => [k.toLowerCase(), v.toLowerCase()]));
    this.rules = (options.routing ?? []).map((r) => ({ pair: r.pair.toLowerCase(), engine: r.engine }));
    this.refresh();
  }

  /** Rebuilds the pair graph from the engines' current pairs() (call after the engines have started). */
  refresh(): void {
    const direct = new Map<string, RouteLeg>();
    const byName = new Map(this.engines.map((e) => [e.name, e]));
    // pair → engine name → formality
    const offers = new Map<string, { source: LangCode; target: LangCode; byEngine: Map<string, boolean> }>();
    for (const engine of this.engines) {
      for (const p of engine.pairs()) {
        const source = p.source.toLowerCase();
        const target = p.target.toLowerCase();
        const key = `${source}-${target}`;
        if (!offers.has(key)) offers.set(key, { source, target, byEngine: new Map() });
        offers.get(key)!.byEngine.set(engine.name, p.formality);
      }
    }
    for (const [key, { source, target, byEngine }] of offers) {
      let chosen: string | undefined;
      for (const rule of this.rules) {
        if ((rule.pair === key || rule.pair === '*') && byEngine.has(rule.engine)) {
          chosen = rule.engine;
          break;
        }
      }
      chosen ??= this.engines.find((e) => byEngine.has(e.name))!.name;
      direct.set(key, { engine: byName.get(chosen)!, source, target, formality: byEngine.get(chosen)! });
    }
    this.edges = new Map();
    for (const leg of direct.values()) {
      if (!this.edges.has(leg.source)) this.edges.set(leg.source, []);
      this.edges.get(leg.source)!.push(leg);
    }
    for (const list of this.edges.values()) list.sort((a, b) => a.target.localeCompare(b.target));
    this.cache.clear();
  }

  /** Targets to try for a requested target, best first: exact, then base, then the default/first variant of the base. */
  private targetCandidates(target: LangCode, allTargets: Set<LangCode>): LangCode[] {
    const out = [target];
    const base = baseOf(target);
    if (base !== target) out.push(base);
    else {
      const preferred = this.defaultVariants[base];
      if (preferred) out.push(preferred);
      for (const t of [...allTargets].sort()) if (baseOf(t) === base && t !== base) out.push(t);
    }
    return [...new Set(out)];
  }

  private sourceCandidates(source: LangCode): LangCode[] {
    const base = baseOf(source);
    return base === source ? [source] : [source, base];
  }

  /** Edges leaving a node; a variant node ("en-us") also continues through its base ("en") edges. */
  private out(node: LangCode): RouteLeg[] {
    const own = this.edges.get(node) ?? [];
    const base = baseOf(node);
    return base === node ? own : [...own, ...(this.edges.get(base) ?? [])];
  }

  /** Best route for a request, or null when no chain of at most maxLegs engines connects the languages. */
  resolve(source: LangCode, target: LangCode): Route | null {
    const s = source.toLowerCase();
    const t = target.toLowerCase();
    const key = `${s}>${t}`;
    if (this.cache.has(key)) return this.cache.get(key)!;
    const route = this.compute(s, t);
    this.cache.set(key, route);
    return route;
  }

  private compute(source: LangCode, target: LangCode): Route | null {
    const allTargets = new Set<LangCode>();
    for (const list of this.edges.values()) for (const leg of list) allTargets.add(leg.target);
    const targets = this.targetCandidates(target, allTargets);
    let best = null as { legs: RouteLeg[]; rank: number } | null;
    for (const src of this.sourceCandidates(source)) {
      // BFS by number of legs; the first level that reaches any candidate wins, ties by candidate order
      let frontier: { node: LangCode; legs: RouteLeg[] }[] = [{ node: src, legs: [] }];
      const seen = new Set<LangCode>([src]);
      for (let depth = 1; depth <= this.maxLegs && frontier.length; depth++) {
        const next: typeof frontier = [];
        for (const { node, legs } of frontier) {
          for (const leg of this.out(node)) {
            if (seen.has(leg.target)) continue;
            const path = [...legs, leg];
            const rank = targets.indexOf(leg.target);
            if (rank >= 0 && (!best || path.length < best.legs.length || (path.length === best.legs.length && rank < best.rank))) {
              best = { legs: path, rank };
            }
            next.push({ node: leg.target, legs: path });
          }
        }
        for (const n of next) seen.add(n.node);
        if (best) break;
        frontier = next;
      }
      if (best) break;
    }
    if (!best) return null;
    const legs = best.legs;
    return {
      kind: legs.length === 1 ? 'direct' : 'pivot',
      source,
      target,
      legs,
      formality: legs[legs.length - 1]!.formality,
    };
  }

  /** Every routable (source, target) over the engines' own codes, direct and pivot, for /v2/languages. */
  pairs(): RoutablePair[] {
    const sources = [...this.edges.keys()].sort();
    const targets = new Set<LangCode>();
    for (const list of this.edges.values()) for (const leg of list) targets.add(leg.target);
    const out: RoutablePair[] = [];
    for (const s of sources) {
      for (const t of [...targets].sort()) {
        if (baseOf(s) === baseOf(t)) continue;
        const r = this.resolve(s, t);
        if (!r) continue;
        // only list pairs whose route really ends in the listed target (no base/variant substitution)
        if (r.legs[r.legs.length - 1]!.target !== t) continue;
        out.push({
          source: s,
          target: t,
          formality: r.formality,
          kind: r.kind,
          via: r.legs.slice(0, -1).map((l) => l.target),
          engines: r.legs.map((l) => l.engine.name),
        });
      }
    }
    return out;
  }

  /** Native customization features of the route's engine; only a direct route can pass them on. */
  capabilities(source: LangCode, target: LangCode): { glossary: boolean; styleRules: boolean; customInstructions: boolean } {
    const route = this.resolve(source, target);
    const features = route && route.legs.length === 1 ? route.legs[0]!.engine.features : undefined;
    return { glossary: features?.glossary === true, styleRules: features?.styleRules === true, customInstructions: features?.customInstructions === true };
  }

  /** Translates through the resolved route (pivot: each leg's output feeds the next). */
  async translate(source: LangCode, target: LangCode, segments: string[], options: EngineTranslateOptions = {}): Promise<string[]> {
    const route = this.resolve(source, target);
    if (!route) throw new EngineError('unsupported_pair', `no engine or pivot translates ${source} to ${target}`);
    if (route.kind === 'pivot') {
      this.log.info(
        { source: route.source, target: route.target, legs: route.legs.map((l) => ({ engine: l.engine.name, source: l.source, target: l.target })) },
        'translation via pivot',
      );
    }
    let texts = segments;
    for (const [i, leg] of route.legs.entries()) {
      const last = i === route.legs.length - 1;
      // formality only matters for the leg that produces the target text
      const legOptions: EngineTranslateOptions = last ? options : { ...options, formality: 'default' };
      texts = await leg.engine.translate({ source: leg.source, target: leg.target }, texts, legOptions);
    }
    return texts;
  }
}
