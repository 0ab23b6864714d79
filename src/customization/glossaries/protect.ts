// Carries glossary terms through an engine that knows nothing of glossaries (Apertium): each matched source term is
// replaced by a placeholder the engine passes through untouched, and the placeholder is replaced by the target term
// afterwards. Placeholders are capitalised letter+digit tokens ("ZJQ3"), which Apertium treats as unknown words and
// copies verbatim (measured in test/customization/glossary-apertium.test.ts).
import type { GlossaryMatcher } from './matcher.js';

export interface ProtectedSegments {
  /** Segments to give the engine. */
  segments: string[];
  /** Puts the target terms into the engine's outputs (one per segment, same order). */
  restore(outputs: string[]): string[];
  /** Number of terms protected. */
  termCount: number;
  /** The target terms put in, as written. */
  terms: readonly string[];
}

const PLACEHOLDER = /ZJQ(\d+)/gi;

function capitalise(s: string): string {
  return s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1);
}

/**
 * Applies one or more matchers (several glossaries: the first that matches a span wins; matchers are tried in
 * order on the text left after earlier ones).
 */
export function applyGlossary(segments: readonly string[], matchers: readonly GlossaryMatcher[]): ProtectedSegments {
  const terms: string[] = [];
  const out = segments.map((segment) => {
    let text = segment;
    for (const matcher of matchers) {
      const matches = matcher.find(text);
      if (matches.length === 0) continue;
      let rebuilt = '';
      let last = 0;
      for (const m of matches) {
        const entry = matcher.entries[m.entry]!;
        const original = text.slice(m.start, m.end);
        // A generic (lower-case) source found capitalised at a sentence start keeps the capital in the target.
        const upperStart = original[0] !== undefined && original[0] !== original[0].toLowerCase() && entry.source[0] === entry.source[0]?.toLowerCase();
        const target = upperStart ? capitalise(entry.target) : entry.target;
        rebuilt += text.slice(last, m.start) + `ZJQ${terms.length}`;
        terms.push(target);
        last = m.end;
      }
      text = rebuilt + text.slice(last);
    }
    return text;
  });
  return {
    segments: out,
    termCount: terms.length,
    terms,
    restore: (outputs) =>
      outputs.map((o) => (terms.length === 0 ? o : o.replace(PLACEHOLDER, (whole, n: string) => terms[Number(n)] ?? whole))),
  };
}
