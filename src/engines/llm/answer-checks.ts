// What a model puts around or instead of a text, found by comparing its answer with the text: a preface ("Here is
// the translation:", "Sure, …") or an appended note, a leaked role label or chat-template token, markdown or a link
// the text did not have, and an answer about something else (the text's numbers, links and names gone, or a length
// no translation has). Each shape counts only where the text itself does not have it, so a text that starts with
// "Note:" or holds a markdown link may keep it. Tuned on FLORES sentences: real translations between 60 languages and
// English pass (test/engines/llm-answer-checks.test.ts).
import { CHAT_TEMPLATE_TOKENS, ROLE_WORDS } from './chat-markers.js';

export interface AnswerCheckOptions {
  /** The answer is in the text's language (a rewrite or correction): it must share some of its words. */
  sameLanguage?: boolean;
}

const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;
/** More occurrences in the answer than in the text. */
const added = (source: string, output: string, pattern: RegExp) => count(output, pattern) > count(source, pattern);

/** An answer opening with a reply to the request rather than the text ("Sure, …", "Certainly! …"). */
const REPLY_OPENER = /^[\s*_"'“«]*(sure|certainly|of course|okay|ok|absolutely|alright)\s*[,!.]/i;
/** "Here is the translation …": counts where a word naming the answer follows. */
const HERE_IS = /^[\s*_"'“«]*(?:here(?:'s| is| are)|below is|the following is)\b[^\n]{0,40}/i;
/** A lead-in label ending in a colon that names what follows ("Translation:", "Voici la traduction :"). */
const LEAD_IN = /^[\s*_#]*([^\n:：]{1,60}?)\s*[:：]\s*\S/u;
const META_WORDS =
  /(?<![\p{L}])(?:here|translat\p{L}*|rephrased?|rephrasing|rewritten|rewrite|corrected|correction|improved|revised|edited|output|answer|result|response|version|übersetzung|übersetzt|traducción|traducido|traduction|traduit|traduzione|tradotto|vertaling|tłumaczenie|tradução|traduzido|перевод|翻訳|翻译|번역)(?![\p{L}])/iu;
/** A note or explanation appended (or put first), in the languages models write them in. */
const NOTE_LABEL =
  /(?:^|[\s.!?。)(\[])(?:note|notes|n\.b\.|explanation|translator'?s note|translation note|anmerkung|hinweis|remarque|nota|opmerking|uwaga|примечание|注)\s*[:：]/giu;

const ROLE_LABEL = new RegExp(`(?:^|\\n)[\\s*_>#]*(?:${ROLE_WORDS})\\s*[:：]`, 'giu');

const MARKDOWN: [RegExp, string][] = [
  [/\[[^\]\n]*\]\([^)\s]*\)/g, 'a markdown link'],
  [/\*\*|__/g, 'markdown bold'],
  [/(?:^|\n)[ \t]{0,3}#{1,6}[ \t]/g, 'a markdown heading'],
  [/```/g, 'a code fence'],
  [/(?:^|\n)[ \t]*[-*•+][ \t]/g, 'a list bullet'],
];

const URL_OR_EMAIL = /\b(?:https?:\/\/|www\.)[^\s<>"'`)\]]+|[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/giu;
const trimUrl = (u: string) => u.replace(/[.,;:!?]+$/, '').toLowerCase();

/** Prefaces and appended notes: a reply opener, "Here is the translation", a lead-in label, a note. */
export function framingProblems(source: string, output: string): string[] {
  const problems: string[] = [];
  const opener = REPLY_OPENER.exec(output)?.[1];
  if (opener && !REPLY_OPENER.test(source)) problems.push(`answer opens with a reply ("${opener}…") instead of the text`);
  const here = HERE_IS.exec(output)?.[0];
  if (here && META_WORDS.test(here) && !HERE_IS.test(source)) problems.push(`answer opens with a preface ("${here.trim()}")`);
  const lead = LEAD_IN.exec(output)?.[1];
  // a text about translating may open with such a label in its translation too
  if (lead && META_WORDS.test(lead) && !LEAD_IN.test(source) && !META_WORDS.test(source.slice(0, 80))) problems.push(`answer opens with a label ("${lead.trim()}:")`);
  if (added(source, output, NOTE_LABEL)) problems.push('answer adds a note');
  return problems;
}

/** Role labels at the start of a line and chat-template tokens: the prompt's structure leaking into the answer. */
export function chatMarkerProblems(source: string, output: string): string[] {
  const problems: string[] = [];
  if (added(source, output, ROLE_LABEL)) problems.push('answer has a role label (SYSTEM:, USER:, ASSISTANT:)');
  if (added(source, output, CHAT_TEMPLATE_TOKENS)) problems.push('answer has chat-template tokens');
  return problems;
}

/** Markdown and links the text did not have (markup tags are the placeholder check's). */
export function markdownProblems(source: string, output: string): string[] {
  const problems = MARKDOWN.filter(([pattern]) => added(source, output, pattern)).map(([, what]) => `answer adds ${what}`);
  const sourceLinks = new Set((source.match(URL_OR_EMAIL) ?? []).map(trimUrl));
  const outputLinks = new Set((output.match(URL_OR_EMAIL) ?? []).map(trimUrl));
  for (const link of sourceLinks) if (!outputLinks.has(link)) problems.push(`answer lost ${link}`);
  for (const link of outputLinks) if (!sourceLinks.has(link)) problems.push(`answer adds ${link}`);
  return problems;
}

// ---- unrelated answers

/** A digit's value in any script (Arabic-Indic, Devanagari, …): Unicode puts each script's 0–9 in a run of ten. */
function digitValue(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (cp >= 0x30 && cp <= 0x39) return ch;
  let start = cp;
  while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
  return String((cp - start) % 10);
}

/** Every digit of a text in order, as ASCII: numbers compare whatever their separators and script. */
const digitsOf = (text: string) => (text.match(/\p{Nd}/gu) ?? []).map(digitValue).join('');
/**
 * Numbers of two digits or more, as digit strings without leading zeros (1,000 and 1 000 alike, 05:00 as 500);
 * single digits are often written out.
 */
const numbersOf = (text: string) =>
  (text.match(/\p{Nd}+(?:[.,:'’\u00a0\u202f ]\p{Nd}+)*/gu) ?? [])
    .map(digitsOf)
    .filter((n) => n.length >= 2)
    .map((n) => n.replace(/^0+(?=\d)/, ''));

/** Weight of a character in a length comparison: ideographs, kana and Hangul carry about a word each. */
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
function weightedLength(text: string): number {
  let n = 0;
  for (const ch of text) if (!/\s/.test(ch)) n += WIDE.test(ch) ? 2.5 : 1;
  return n;
}
/** Answer length over text length (weighted) outside which no translation between FLORES languages falls (0.37–2.7). */
const MIN_LENGTH_RATIO = 0.25;
const MAX_LENGTH_RATIO = 4;
/** Below this weighted length the ratio says little ("OK" → "De acuerdo"). */
const RATIO_FROM = 12;

const wordsOf = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? []);

/**
 * An answer about something else: none of the text's numbers (where it has three at least: one or two are often
 * written out, "the 19th and 20th centuries" → "los siglos XIX y XX"), a length no translation has, or, for a
 * rewrite, no word in common. A short text's answer may be longer by 40 characters of slack instead.
 */
export function unrelatedProblems(source: string, output: string, options: AnswerCheckOptions = {}): string[] {
  const problems: string[] = [];
  const numbers = numbersOf(source);
  const outputDigits = digitsOf(output);
  if (numbers.length >= 3 && numbers.every((n) => !outputDigits.includes(n))) problems.push(`answer lost the text's numbers (${numbers.slice(0, 3).join(', ')})`);
  const sourceLength = weightedLength(source);
  const ratio = weightedLength(output) / Math.max(1, sourceLength);
  if (sourceLength >= RATIO_FROM && (ratio < MIN_LENGTH_RATIO || ratio > MAX_LENGTH_RATIO)) {
    problems.push(`answer length is ${ratio.toFixed(1)} times the text's: not a version of it`);
  } else if (sourceLength < RATIO_FROM && weightedLength(output) > sourceLength * 3 + 40) {
    problems.push('answer far longer than the text (added commentary?)');
  }
  if (options.sameLanguage) {
    const words = wordsOf(source);
    const kept = wordsOf(output);
    if (words.size >= 3 && ![...words].some((w) => kept.has(w))) problems.push('answer shares no word with the text');
  }
  return problems;
}
