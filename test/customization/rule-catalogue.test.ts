// The style-rule catalogue is data in assets/: it must be found from dist/ and refuse a malformed file by name.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { parseRuleCatalogue, RULE_CATALOGUE, RULE_CATALOGUE_FILE } from '../../src/customization/style-rules/rule-catalogue.js';
import { validateConfiguredRules } from '../../src/customization/style-rules/style-rule-service.js';

describe('style-rule catalogue', () => {
  it('is read from assets/style-rule-catalogue.json and validates configured rules against it', () => {
    assert.ok(existsSync(RULE_CATALOGUE_FILE), RULE_CATALOGUE_FILE);
    assert.match(RULE_CATALOGUE_FILE, /[/\\]assets[/\\]style-rule-catalogue\.json$/);
    assert.ok(RULE_CATALOGUE.dates_and_times?.calendar_era?.includes('use_bce_and_ce'));
    assert.deepEqual(validateConfiguredRules({ dates_and_times: { calendar_era: 'use_bce_and_ce' } }), { dates_and_times: { calendar_era: 'use_bce_and_ce' } });
    assert.throws(() => validateConfiguredRules({ dates_and_times: { calendar_era: 'use_roman_years' } }), /calendar_era/);
  });

  it('refuses a malformed file, naming the file and the entry', () => {
    const refuses = (text: string, detail: RegExp) =>
      assert.throws(() => parseRuleCatalogue(text, '/x/catalogue.json'), (e: unknown) => e instanceof Error && e.message.includes('/x/catalogue.json') && detail.test(e.message));
    refuses('{"a": ', /not valid JSON/);
    refuses('[]', /non-empty object of categories/);
    refuses('{}', /non-empty object of categories/);
    refuses('{"tone": ["x"]}', /category 'tone'/);
    refuses('{"tone": {"formality": []}}', /rule 'tone.formality'/);
    refuses('{"tone": {"formality": ["casual", 3]}}', /rule 'tone.formality'/);
    assert.deepEqual(parseRuleCatalogue('{"tone": {"formality": ["casual"]}}', 'f'), { tone: { formality: ['casual'] } });
  });
});
