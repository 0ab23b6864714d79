// Why: short texts the n-gram vote is unsure of are decided by the installed lexicons (lexicon-vote.ts); this pins the
// decision rule, its graceful failure, the question's shape, and the real analysers and dictionaries it asks.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DETECTOR_LANGUAGES, EldLanguageDetector } from '../../src/detect/language-detector.js';
import { decideByLexicons, hunspellLexicon, LexiconVote, type Lexicon, type LexiconQuestion, type LexiconTally } from '../../src/detect/lexicon-vote.js';
import { knownWordCount, MorphAnalysers, unknownLetterUnits } from '../../src/engines/apertium/morph-analysers.js';
import { Hunspell } from '../../src/write/hunspell.js';

const question = (words: string[], eld: Record<string, number> = {}, candidates: string[] = []): LexiconQuestion => ({ words, eldScores: eld, candidates });
const tally = (entries: Record<string, [lexicons: number, knowAll: number]>) =>
  new Map<string, LexiconTally>(Object.entries(entries).map(([lang, [lexicons, knowAll]]) => [lang, { lexicons, knowAll }]));

describe('decideByLexicons', () => {
  it('a language whose lexicons alone know the words decides', () => {
    assert.equal(decideByLexicons(question(['Obrigado']), tally({ pt: [2, 2], es: [2, 0], it: [1, 0] }), DETECTOR_LANGUAGES), 'pt');
  });

  it('no lexicon knowing the words, or only one of a language the detector cannot report: no decision', () => {
    assert.equal(decideByLexicons(question(['Děkuji']), tally({ en: [2, 0], de: [1, 0] }), DETECTOR_LANGUAGES), undefined);
    assert.equal(decideByLexicons(question(['Eg']), tally({ nn: [1, 1], nb: [1, 0] }), DETECTOR_LANGUAGES), undefined);
  });

  it('only languages all of whose lexicons know the words compete, and eld must not rank the one far behind', () => {
    // English's two lexicons know "Settings", one of Spanish's two does
    assert.equal(decideByLexicons(question(['Settings'], { es: 0.6, en: 0.62 }), tally({ en: [2, 2], es: [2, 1] }), DETECTOR_LANGUAGES), 'en');
    // one of French's two lexicons knows "Bon" and "dia", Catalan's one does
    assert.equal(decideByLexicons(question(['Bon', 'dia'], { ca: 0.82, fr: 0.7 }), tally({ ca: [1, 1], fr: [2, 1] }), DETECTOR_LANGUAGES), 'ca');
    // Czech "Golf je": French's dictionaries know both words, but eld puts Slovene, Croatian, Yoruba well ahead
    assert.equal(decideByLexicons(question(['Golf', 'je'], { sl: 0.78, hr: 0.77, fr: 0.7 }), tally({ fr: [2, 2], en: [2, 1] }), DETECTOR_LANGUAGES), undefined);
  });

  it('no decision where eld scores another language as high, or several likely languages know the words (FLORES dev prefixes)', () => {
    // Belarusian "На думку": only Ukrainian's analyser knows it, but eld scores Belarusian as high as Ukrainian
    assert.equal(decideByLexicons(question(['На', 'думку'], { uk: 0.84, be: 0.84, sr: 0.83 }, ['uk', 'bg']), tally({ uk: [1, 1], ru: [1, 0] }), DETECTOR_LANGUAGES), undefined);
    // Bulgarian "Американск…" cut at 10 characters: Russian's analyser knows it, eld ties Russian and Bulgarian
    assert.equal(decideByLexicons(question(['Американск'], { ru: 0.8239, bg: 0.8234, uk: 0.8104 }, ['ru']), tally({ ru: [1, 1], uk: [1, 0] }), DETECTOR_LANGUAGES), undefined);
    // "Schumacher" opening an English sentence: German's dictionary knows the name, and so do English's, Danish's, one of French's
    const schumacher = tally({ de: [1, 1], en: [2, 2], da: [1, 1], nb: [1, 1], fr: [2, 1] });
    assert.equal(decideByLexicons(question(['Schumacher'], { de: 0.75, nl: 0.7, pl: 0.61, fr: 0.56, en: 0.5 }, ['de']), schumacher, DETECTOR_LANGUAGES), undefined);
    // one rival is allowed: "hola" is also a Norwegian form
    assert.equal(decideByLexicons(question(['Hola'], {}, ['sk', 'es', 'nb']), tally({ es: [2, 2], nb: [1, 1], nn: [1, 1], ca: [1, 1] }), DETECTOR_LANGUAGES), 'es');
  });

  it('several: a clear lead in eld, or, where eld scored nothing, the first of the candidates', () => {
    assert.equal(decideByLexicons(question(['Bon', 'dia'], { ca: 0.82, fr: 0.7 }), tally({ ca: [1, 1], fr: [1, 1] }), DETECTOR_LANGUAGES), 'ca');
    // "hola" is also a Norwegian form: the vote's order decides
    assert.equal(decideByLexicons(question(['Hola'], {}, ['sk', 'es', 'nb']), tally({ es: [2, 2], nb: [1, 1], ca: [1, 1] }), DETECTOR_LANGUAGES), 'es');
    // English names opening a Dutch sentence: English's dictionaries alone know them, but the vote's first is Swedish
    const voted = new Set(['en', 'sv', 'nl']);
    assert.equal(decideByLexicons(question(['John', 'Smith'], { en: 0.78, nb: 0.68 }, ['sv', 'nl']), tally({ en: [2, 2], sv: [1, 0] }), DETECTOR_LANGUAGES, voted), undefined);
    assert.equal(decideByLexicons(question(['John', 'Smith'], { en: 0.78, nb: 0.68 }, ['en', 'nl']), tally({ en: [2, 2], sv: [1, 0] }), DETECTOR_LANGUAGES, voted), 'en');
    // eld's lead too small and no candidate among them: unsure
    assert.equal(decideByLexicons(question(['Merci'], { it: 0.773, fr: 0.766 }, ['tr', 'pl']), tally({ it: [2, 2], fr: [2, 2] }), DETECTOR_LANGUAGES), undefined);
  });
});

/** A lexicon over fixed word lists, for the vote's own logic; `fail` answers nothing. */
function listLexicon(lists: Record<string, string[]>, fail?: string): Lexicon {
  return {
    languages: () => Object.keys(lists),
    knownWords: async (lang, words) => {
      if (lang === fail) throw new Error('broken');
      return words.filter((w) => lists[lang]!.includes(w.toLowerCase())).length;
    },
  };
}

describe('LexiconVote', () => {
  it('asks every language, and a failing lexicon leaves the text unsure', async () => {
    const lists = { pt: ['obrigado'], es: ['gracias'], gl: ['obrigado'] };
    const q = question(['Obrigado'], { pt: 0.8, es: 0.7 });
    assert.equal(await new LexiconVote([listLexicon({ pt: lists.pt, es: lists.es })], DETECTOR_LANGUAGES, new Set()).decide(q), 'pt');
    // Galician knows it too and eld does not tell them apart (it scored no Galician): unsure
    assert.equal(await new LexiconVote([listLexicon(lists)], DETECTOR_LANGUAGES, new Set()).decide(question(['Obrigado'])), undefined);
    assert.equal(await new LexiconVote([listLexicon(lists, 'es')], DETECTOR_LANGUAGES, new Set()).decide(q), undefined);
    // no lexicon installed: no vote
    assert.equal(await new LexiconVote([], DETECTOR_LANGUAGES, new Set()).decide(q), undefined);
  });
});

describe('the detector\'s question', () => {
  it('asked for unsure short Latin or Cyrillic text only', async () => {
    const detector = await EldLanguageDetector.create();
    const ask = (text: string) => detector.lexiconQuestion(text, detector.detect(text));
    assert.deepEqual(ask('Hola'), { words: ['Hola'], eldScores: {}, candidates: detector.detect('Hola').candidates });
    assert.deepEqual(ask('Bon dia Bon dia')?.words, ['Bon', 'dia']);
    assert.equal(ask('Tak'), undefined, 'three letters');
    const unsure = { status: 'insufficient_confidence' as const, confidence: 0 };
    assert.equal(detector.lexiconQuestion('Hola amigo mio bueno', unsure), undefined, 'four words');
    assert.deepEqual(detector.lexiconQuestion('Hola amigo mio', unsure)?.words, ['Hola', 'amigo', 'mio']);
    assert.equal(ask('Los niños juegan en el jardín'), undefined, 'a success');
    assert.equal(ask('東京'), undefined, 'not alphabetic');
  });
});

describe('the installed lexicons', () => {
  const analysers = new MorphAnalysers();
  const hunspell = new Hunspell();
  after(() => {
    analysers.close();
    hunspell.close();
  });

  it('lt-proc counts the words of known units, a multiword unit as its words', () => {
    assert.equal(knownWordCount('^Bon dia/Bon dia<ij>$\u0000'), 2);
    assert.equal(knownWordCount('^proton/*proton$ ^beam/*beam$'), 0);
    assert.equal(knownWordCount('^Hola/Hola<ij>$ ^amic/amic<n><m><sg>$ ^xq/*xq$'), 2);
    assert.equal(knownWordCount('^a\\/b/a\\/b<n>$'), 1);
  });

  it('Catalan\'s analyser knows "Bon dia", English\'s does not; Portuguese\'s dictionary knows "Obrigado"', async (t) => {
    if (!analysers.languages().includes('ca') || !hunspell.has('pt')) return t.skip('Apertium ca or Hunspell pt not installed');
    assert.equal(await analysers.knownWords('ca', ['Bon', 'dia'], 30_000), 2);
    assert.equal(await analysers.knownWords('en', ['Bon', 'dia'], 30_000), 0);
    const lexicon = hunspellLexicon(hunspell);
    assert.ok(!lexicon.languages().includes('pt-br'), 'variants do not compete with their base');
    assert.equal(await lexicon.knownWords('pt', ['Obrigado'], 30_000), 1);
    assert.equal(await lexicon.knownWords('es', ['Obrigado'], 30_000), 0);
  });

  it('a word is known only whole: Welsh "Mae\'r" is no Danish or Italian word though "r" is (FLORES dev cy)', async (t) => {
    assert.equal(unknownLetterUnits("^Mae/*Mae$^'/'<apos>$^r/r<n>$"), 1);
    assert.equal(unknownLetterUnits('^Bon dia/Bon dia<ij>$ ^,/,<cm>$'), 0);
    if (!analysers.languages().includes('da') || !hunspell.has('it')) return t.skip('Apertium da or Hunspell it not installed');
    assert.equal(await analysers.knownWords('da', ["Mae'r"], 30_000), 0);
    assert.equal(await analysers.knownWords('da', ["Mae'r", 'og'], 30_000), 1);
    const lexicon = hunspellLexicon(hunspell);
    assert.equal(await lexicon.knownWords('it', ["Mae'r"], 30_000), 0);
    assert.equal(await lexicon.knownWords('fr', ["aujourd'hui"], 30_000), 1);
  });

  it('an analyser that is not installed is no language at all', async () => {
    const none = new MorphAnalysers({ apertiumDir: '/nonexistent' });
    assert.deepEqual(none.languages(), []);
    await assert.rejects(none.knownWords('ca', ['Bon'], 1000), /no analyser/);
  });
});
