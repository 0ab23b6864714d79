// The environment schema as an operator meets it: a bad value is refused with its name, never silently changed.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.js';

it('refuses a fractional value for an integer setting instead of truncating it', () => {
  assert.throws(
    () => loadConfig({ TOLK_LLM_THREADS: '1.5', TOLK_RATE_LIMIT_PER_MINUTE: '60', TOLK_DOCUMENT_WORKERS: '2.0e0' }),
    (err: unknown) =>
      err instanceof ConfigError &&
      /TOLK_LLM_THREADS="1\.5": Expected integer/.test(err.message) &&
      /TOLK_DOCUMENT_WORKERS="2\.0e0": Expected integer/.test(err.message) &&
      !/TOLK_RATE_LIMIT_PER_MINUTE/.test(err.message),
  );
  assert.equal(loadConfig({ TOLK_LLM_THREADS: ' 3 ' }).localLlm.threads, 3);
  // Fractions stay allowed where the setting is a number of hours or megapixels.
  assert.equal(loadConfig({ TOLK_DOCUMENT_RETENTION_HOURS: '1.5' }).documents.retentionHours, 1.5);
});
