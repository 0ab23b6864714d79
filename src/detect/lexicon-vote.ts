// Short text the n-gram vote is unsure about ("Hola", "Obrigado", "Bon dia") decided by the installed lexicons:
// Hunspell's dictionaries and Apertium's morphological analysers know which language a word belongs to. A language
// whose lexicons know every word of the text while the other languages' do not decides, where eld does not rank it
// far behind; when several know them all, a clear lead in eld's scores singles one out, else the text stays unsure. Lookups run in child processes (never on the event loop) under one deadline; a lexicon that is not
// installed does not vote, and one that fails or is late leaves the text unsure (its language could not compete).

import { profileScripts } from './script-profile.js';

/** A source of words known per language: Hunspell's dictionaries, Apertium's analysers. */
export interface Lexicon {
  /** Tolk base codes it has a lexicon for. */
  languages(): readonly string[];
  /** How many of the words (distinct, as written) the language's lexicon knows. */
  knownWords(lang: string, words: readonly string[], deadlineMs: number): Promise<number>;
}

/** What the detector's thread hands over for an unsure short text: its words and the evidence of eld and the vote. */
export interface LexiconQuestion {
  /** The text's distinct words, as written. */
  words: string[];
  /** eld's score per language (Tolk codes, its 60 languages, 0–1); empty when eld scored nothing ("Hola"). */
  eldScores: Record<string, number>;
  /** The n-gram vote's candidates, best first. */
  candidates: readonly string[];
}

/** Text of more words is left to the n-gram vote: a lexicon knowing four words of another language is rare. */
const MAX_WORDS = 3;

/** Fewer letters than this are never decided by a lexicon either ("die": German, Dutch, Afrikaans). */
const MIN_LETTERS = 4;

/** A word as the lexicons take it: letters (with their marks), an inner apostrophe or Catalan middle dot kept ("aujourd'hui", "cancel·la"). */
const WORD = /[\p{L}\p{M}]+(?:['’·][\p{L}\p{M}]+)*/gu;

/** The question for an unsure text as the detector cleaned it, or undefined when it is not short Latin or Cyrillic. */
export function lexiconQuestion(
  cleaned: string,
  candidates: readonly string[],
  eldScores: () => Array<[language: string, score: number]>,
): LexiconQuestion | undefined {
  const { dominant, letters } = profileScripts(cleaned);
  if ((dominant !== 'latin' && dominant !== 'cyrillic') || letters < MIN_LETTERS) return undefined;
  const seen = new Set<string>();
  const words: string[] = [];
  for (const [word] of cleaned.matchAll(WORD)) {
    if (seen.has(word.toLowerCase())) continue;
    seen.add(word.toLowerCase());
    words.push(word);
  }
  if (words.length === 0 || words.length > MAX_WORDS) return undefined;
  return { words, eldScores: Object.fromEntries(eldScores()), candidates };
}

/** eld's lead (0–1 score) that singles out one of several languages whose lexicons all know the words. */
const ELD_LEAD = 0.05;

/** A language decided by the lexicons scores at least eld's best less this, when eld scored the text. */
const ELD_NEAR = 0.03;

/** eld's scores closer than this are a tie ("Американск": Russian 0.8239, Bulgarian 0.8234). */
const ELD_TIE = 0.005;

/** Per language, of its installed lexicons how many there are and how many know every word of the text. */
export interface LexiconTally {
  lexicons: number;
  knowAll: number;
}

/**
 * The language the lexicons decide for, or undefined. Only a language all of whose lexicons know every word competes
 * ("Cancel": both English ones; only one of Spanish's two). One such language decides when eld, if it scored the text,
 * ranks it near its best (a name or loanword in one dictionary does not outvote eld on Dutch or Czech); of several,
 * eld's clear lead decides, or, when eld scored nothing ("Hola"), the vote's candidates' order ("hola" is also a form
 * of Norwegian "hole"). `decidable`: the languages that may be reported (the detector's); others only compete.
 * `voted`: the languages of the n-gram vote.
 */
export function decideByLexicons(
  question: LexiconQuestion,
  tally: ReadonlyMap<string, LexiconTally>,
  decidable: ReadonlySet<string>,
  voted: ReadonlySet<string> = new Set(),
): string | undefined {
  const full = [...tally].filter(([, t]) => t.lexicons > 0 && t.knowAll === t.lexicons).map(([lang]) => lang);
  const eld = (lang: string) => question.eldScores[lang] ?? 0;
  const eldBest = Math.max(0, ...Object.values(question.eldScores));
  const [first, second] = [...full].sort((a, b) => eld(b) - eld(a));
  let chosen: string | undefined;
  if (first === undefined) return undefined;
  if (eldBest === 0) chosen = second === undefined ? first : question.candidates.find((lang) => full.includes(lang));
  else if (eld(first) >= eldBest - ELD_NEAR && (second === undefined || eld(first) - eld(second) >= ELD_LEAD)) chosen = first;
  // where eld scored the text, a language the n-gram vote knows must also be its first candidate (names and
  // loanwords at the start of Dutch or Swedish sentences are in the English dictionaries)
  if (chosen === undefined || (eldBest > 0 && voted.has(chosen) && question.candidates[0] !== chosen)) return undefined;
  // where eld scored the text, the chosen language must lead every other language it scored, those outside the
  // detected ones included (Belarusian ties with Ukrainian, Croatian with Romanian on a word both spell alike)
  if (eldBest > 0 && Object.entries(question.eldScores).some(([lang, score]) => lang !== chosen && score > eld(chosen) - ELD_TIE)) return undefined;
  // words other likely languages' lexicons know too are no evidence: a name at the start of a sentence is in several
  // ("Schumacher", "Luxembourg"), Galician words in Portuguese's; one such rival is allowed ("hola" is also Norwegian)
  const rivals = [...tally].filter(([lang, t]) => lang !== chosen && t.knowAll > 0 && (question.candidates.includes(lang) || eld(lang) > 0));
  if (rivals.length > MAX_RIVALS) return undefined;
  return decidable.has(chosen) ? chosen : undefined;
}

/** Other languages the vote or eld names whose lexicons may know every word too, and the lexicons still decide. */
const MAX_RIVALS = 1;

/** The lexicons' vote over every language they know, each asked in parallel under one deadline. */
export class LexiconVote {
  constructor(
    private readonly lexicons: readonly Lexicon[],
    private readonly decidable: ReadonlySet<string>,
    private readonly voted: ReadonlySet<string>,
    private readonly deadlineMs = 5000,
  ) {}

  private warmUps: (() => Promise<unknown>)[] = [];

  /** Starts every lexicon's process in the background (with the detector's thread), so the first vote meets them warm. */
  warm(): void {
    // one language's processes started per turn: spawning every dictionary's at once held the event loop ~250 ms of CPU
    this.warmUps = this.lexicons.flatMap((lexicon) => lexicon.languages().map((lang) => () => lexicon.knownWords(lang, ['a'], this.deadlineMs).catch(() => {})));
    const next = () => {
      const start = this.warmUps.shift();
      if (!start) return;
      void start();
      setImmediate(next);
    };
    setImmediate(next);
  }

  /** Drops the warm-ups not started yet (shutdown: their processes would outlive the lexicons' close). */
  stop(): void {
    this.warmUps = [];
  }

  async decide(question: LexiconQuestion): Promise<string | undefined> {
    const tally = new Map<string, LexiconTally>();
    let failed = false;
    const asks = this.lexicons.flatMap((lexicon) =>
      lexicon.languages().map(async (lang) => {
        try {
          const known = await lexicon.knownWords(lang, question.words, this.deadlineMs);
          const entry = tally.get(lang) ?? { lexicons: 0, knowAll: 0 };
          entry.lexicons++;
          if (known >= question.words.length) entry.knowAll++;
          tally.set(lang, entry);
        } catch {
          // failed or late: a language left out could not compete, so nobody wins
          failed = true;
        }
      }),
    );
    await Promise.all(asks);
    return failed ? undefined : decideByLexicons(question, tally, this.decidable, this.voted);
  }
}

/** Hunspell's dictionaries (src/write/hunspell.ts) as a lexicon: a word is known when Hunspell accepts it. */
export function hunspellLexicon(hunspell: {
  languages(): string[];
  accepted(lang: string, words: string[], options: { deadlineAt?: number }): Promise<Set<string>>;
}): Lexicon {
  return {
    // the base languages: a variant's dictionary (en-gb) would only compete with its own base
    languages: () => hunspell.languages().filter((lang) => !lang.includes('-')),
    // the words accepted as written: Hunspell splits "Mae'r" and accepts its piece "r", which is no word of the text
    knownWords: async (lang, words, deadlineMs) => {
      const accepted = await hunspell.accepted(lang, [...words], { deadlineAt: Date.now() + deadlineMs });
      return words.filter((word) => accepted.has(word)).length;
    },
  };
}
