// Minimal-change spelling correction with the real Hunspell and Debian's dictionaries (en, de, es, fr).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Hunspell } from '../../src/write/hunspell.js';
import { accentVariants, candidateTokens, chooseSuggestion, correctSpelling, editDistance } from '../../src/write/spelling-corrector.js';
import { gone } from '../helpers/processes.js';

const hunspell = new Hunspell();
after(() => hunspell.close());

describe('spelling correction with Hunspell', () => {
  it('finds the installed dictionaries', () => {
    for (const lang of ['en-us', 'en-gb', 'de', 'es', 'fr']) assert.ok(hunspell.has(lang), lang);
    assert.equal(hunspell.has('ja'), false);
  });

  it('changes only misspelled words and keeps case, punctuation and spacing', async () => {
    assert.equal(
      await correctSpelling('Teh  results were definately  good ,  and we recieve them\tdaily!', 'en-us', hunspell),
      'The  results were definitely  good ,  and we receive them\tdaily!',
    );
    assert.equal(await correctSpelling('Nothing is wrong here.', 'en-us', hunspell), 'Nothing is wrong here.');
  });

  it('leaves URLs, e-mail addresses, numbers, codes, acronyms and proper-noun-looking words alone', async () => {
    const text = 'Visit https://exmple.com/pagge or www.exmple.org, write to jon@exmple.org, call 555-0199, use v2beta, ask NASAA or Mr Smithsonn.';
    assert.equal(await correctSpelling(text, 'en-us', hunspell), text);
  });

  it('German: compounds are words, nouns are capitalised, ss becomes ß where the dictionary says so', async () => {
    assert.equal(
      await correctSpelling('Der Fahrradschlüssel liegt vieleicht an der Haustür in der Strasse.', 'de', hunspell),
      'Der Fahrradschlüssel liegt vielleicht an der Haustür in der Straße.',
    );
  });

  it('French elisions and accents', async () => {
    assert.equal(await correctSpelling("J'ai dévelopé l'application aujourd'hui.", 'fr', hunspell), "J'ai développé l'application aujourd'hui.");
    assert.equal(await correctSpelling('J’ai dévelopé l’application.', 'fr', hunspell), 'J’ai développé l’application.');
  });

  it('Spanish accents', async () => {
    assert.equal(await correctSpelling('La cancion tambien es mia.', 'es', hunspell), 'La canción también es mía.');
  });

  it('British and American spellings follow the variant', async () => {
    assert.equal(await correctSpelling('The colour is nice.', 'en-gb', hunspell), 'The colour is nice.');
    assert.equal(await correctSpelling('The color is nice.', 'en-us', hunspell), 'The color is nice.');
  });

  it('restarts a checker that died', async () => {
    await hunspell.check('en-us', ['hello']);
    const pids = hunspell.pids();
    for (const pid of pids) process.kill(pid);
    for (const pid of pids) assert.ok(await gone(pid));
    const [check] = await hunspell.check('en-us', ['helo']);
    assert.equal(check!.correct, false);
  });

  it('close() ends the checker processes', async () => {
    const local = new Hunspell();
    await local.check('fr', ['bonjour']);
    const pids = local.pids();
    assert.ok(pids.length > 0);
    local.close();
    for (const pid of pids) assert.ok(await gone(pid), `checker ${pid} still running`);
  });
});

describe('spelling helpers', () => {
  it('edit distance counts a swap as one edit', () => {
    assert.equal(editDistance('teh', 'the'), 1);
    assert.equal(editDistance('recieve', 'receive'), 1);
    assert.equal(editDistance('abc', 'abc'), 0);
  });

  it('suggestions: close ones only, in the writer casing', () => {
    assert.equal(chooseSuggestion('Teh', { correct: false, suggestions: ['Te', 'The'] }, { cautious: false }), 'The');
    assert.equal(chooseSuggestion('zzqx', { correct: false, suggestions: ['quiz'] }, { cautious: false }), undefined);
    assert.equal(chooseSuggestion('Mülr', { correct: false, suggestions: ['Müller'] }, { cautious: true }), undefined);
  });

  it('accent variants and skipped tokens', () => {
    assert.ok(accentVariants('cancion').includes('canción'));
    const words = candidateTokens('See NASA and Paris at https://x.org, 3rd item; iPhone.', 'en').map((t) => t.word);
    assert.deepEqual(words, ['See', 'and', 'at', 'item']);
  });
});
