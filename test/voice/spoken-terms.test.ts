// Units of spoken terms in transcription: pronunciations (CMU dictionary, flite letter-to-sound for unknown words)
// and the placement of spotted terms in a concluded transcript.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PronunciationDictionary, letterToSound, pronounceTerm, termWords } from '../../src/voice/stt/pronunciation.js';
import { correctWithTerms, phoneDistance, type TimedWord } from '../../src/voice/stt/term-correction.js';
import { PocketSphinxEngine } from '../../src/voice/stt/pocketsphinx.js';

const DICT = '/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict';

describe('spoken term pronunciations', { skip: !PocketSphinxEngine.available() && 'PocketSphinx is not installed' }, () => {
  let dictionary: PronunciationDictionary;
  before(async () => {
    dictionary = await PronunciationDictionary.load(DICT);
  });

  it('takes known words from the CMU dictionary, alternatives included', () => {
    assert.deepEqual(dictionary.phones('Docker'), ['D', 'AA', 'K', 'ER']);
    assert.deepEqual(dictionary.phones('to(2)'), ['T', 'IH']);
    assert.equal(dictionary.phones('kubernetes'), null);
  });

  it('pronounces unknown words with letter-to-sound rules in the dictionary phone set', async () => {
    const phones = await letterToSound('grafana');
    assert.deepEqual(phones, ['G', 'R', 'EY', 'F', 'AE', 'N', 'AH']);
    assert.equal(await letterToSound(''), null);
  });

  it('pronounces multi-word terms word by word and splits written forms sensibly', async () => {
    assert.deepEqual(termWords('  Apache Kafka, Inc. '), ['apache', 'kafka', 'inc']);
    const phones = await pronounceTerm('Docker Zendesk', dictionary);
    assert.deepEqual(phones, ['D', 'AA', 'K', 'ER', 'Z', 'EH', 'N', 'D', 'EH', 'S', 'K']);
    assert.equal(await pronounceTerm('!!!', dictionary), null);
  });
});

describe('placing spotted terms', () => {
  const w = (text: string, phones: string, startMs: number, endMs: number): TimedWord => ({ text, phones: phones.split(' '), startMs, endMs });
  // "We store the metrics in Grafana and the tickets in Zendesk." as PocketSphinx heard it (times from a real decode).
  const heard = [
    w('in', 'IH N', 1260, 1400),
    w('great', 'G R EY T', 1400, 1690),
    w('fan', 'F AE N', 1690, 1980),
    w('and', 'AE N D', 1980, 2100),
    w('the', 'DH AH', 2100, 2170),
    w('tickets', 'T IH K AH T S', 2170, 2570),
    w('and', 'AE N D', 2570, 2670),
    w('then', 'DH EH N', 2670, 2880),
    w('desk', 'D EH S K', 2880, 3320),
  ];
  const grafana = { term: 'Grafana', phones: 'G R EY F AE N AH'.split(' '), reportedAtMs: 2100 };
  const zendesk = { term: 'Zendesk', phones: 'Z EH N D EH S K'.split(' '), reportedAtMs: 3440 };

  it('replaces the closest-sounding words near each detection by the written form', () => {
    assert.equal(correctWithTerms(heard, [zendesk, grafana]).join(' '), 'in Grafana and the tickets and Zendesk');
  });

  it('counts a term reported twice a few frames apart once', () => {
    const doubled = [...heard, w('then', 'DH EH N', 3400, 3600), w('desk', 'D EH S K', 3600, 3900)];
    assert.equal(correctWithTerms(doubled, [zendesk, { ...zendesk, reportedAtMs: 3640 }]).join(' '), 'in great fan and the tickets and Zendesk then desk');
  });

  it('places nothing where no nearby words sound like the term, or far from the detection', () => {
    const jira = { term: 'Jira', phones: 'JH R AH'.split(' '), reportedAtMs: 2600 };
    assert.equal(correctWithTerms(heard, [jira]).join(' '), heard.map((x) => x.text).join(' '));
    const early = { ...zendesk, reportedAtMs: 1500 };
    assert.equal(correctWithTerms(heard, [early]).join(' '), heard.map((x) => x.text).join(' '));
  });

  it('settles detections competing for the same words best match first', () => {
    // "Dendes" (a false alarm reported first) sounds like "then desk" too (0.29 edits per phone), Zendesk more (0.14).
    const dendes = { term: 'Dendes', phones: 'D EH N D EH S'.split(' '), reportedAtMs: 3300 };
    assert.equal(correctWithTerms(heard, [dendes]).join(' '), 'in great fan and the tickets and Dendes');
    assert.equal(correctWithTerms(heard, [dendes, zendesk]).join(' '), 'in great fan and the tickets and Zendesk');
  });

  it('measures phone edit distance', () => {
    assert.equal(phoneDistance(['A', 'B', 'C'], ['A', 'C']), 1);
    assert.equal(phoneDistance([], ['A']), 1);
    assert.equal(phoneDistance(['G', 'R', 'EY', 'T', 'F', 'AE', 'N'], ['G', 'R', 'EY', 'F', 'AE', 'N', 'AH']), 2);
  });
});
