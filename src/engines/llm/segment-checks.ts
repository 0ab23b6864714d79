// What a model answer must keep: markup placeholders and required glossary terms, and nothing added around or
// instead of the text (answer-checks.ts); checked per segment so that only broken segments are retried or repaired.
import { chatMarkerProblems, framingProblems, markdownProblems, unrelatedProblems, type AnswerCheckOptions } from './answer-checks.js';

/** Must-preserve tokens: markup tags (`<b>`, `</x>`, `<br/>`) and Tolk placeholders (`⟦1⟧`, `⟦/1⟧`). */
const PROTECTED = /<\/?[A-Za-z_][^<>]*>|⟦[^⟦⟧\s]{1,16}⟧/g;

export function protectedTokens(text: string): string[] {
  return text.match(PROTECTED) ?? [];
}

function countTokens(tokens: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

/** Tokens of the source that the output lost (or has fewer of); extra invented tokens are reported as well. */
export function placeholderProblems(source: string, output: string): string[] {
  const want = countTokens(protectedTokens(source));
  const got = countTokens(protectedTokens(output));
  const problems: string[] = [];
  for (const [token, n] of want) if ((got.get(token) ?? 0) < n) problems.push(`missing ${token}`);
  for (const [token, n] of got) if ((want.get(token) ?? 0) < n) problems.push(`unexpected ${token}`);
  return problems;
}

export interface GlossaryTerm {
  source: string;
  target: string;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A term occurs as a whole word (or phrase), case-insensitively. */
function containsTerm(text: string, term: string): boolean {
  return new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(term)}(?![\\p{L}\\p{N}])`, 'iu').test(text);
}

/** Glossary terms whose source occurs in the segment: the ones the output must contain. */
export function requiredTerms(source: string, glossary: GlossaryTerm[]): GlossaryTerm[] {
  return glossary.filter((g) => g.source.trim() !== '' && containsTerm(source, g.source));
}

export function glossaryProblems(source: string, output: string, glossary: GlossaryTerm[]): string[] {
  return requiredTerms(source, glossary)
    .filter((g) => !containsTerm(output, g.target))
    .map((g) => `glossary term "${g.source}" must be translated as "${g.target}"`);
}

/** Signs of added commentary (notes below the text): an answer with more lines than its text. */
export function commentaryProblems(source: string, output: string): string[] {
  return output.split('\n').length > source.split('\n').length ? ['answer has more lines than the text'] : [];
}

/** Everything wrong with one segment's output; empty when it can be returned. */
export function segmentProblems(source: string, output: string | undefined, glossary: GlossaryTerm[], options: AnswerCheckOptions = {}): string[] {
  if (output === undefined) return ['no answer for this segment'];
  if (output.trim() === '' && source.trim() !== '') return ['empty answer'];
  return [
    ...placeholderProblems(source, output),
    ...glossaryProblems(source, output, glossary),
    ...commentaryProblems(source, output),
    ...framingProblems(source, output),
    ...chatMarkerProblems(source, output),
    ...markdownProblems(source, output),
    ...unrelatedProblems(source, output, options),
  ];
}
