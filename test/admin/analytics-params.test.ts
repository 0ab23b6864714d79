// Parsing of the analytics query parameters and the developer-key fields, and the report's number formats.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseAnalyticsRange, parseChoice, parseDate, parsePage } from '../../src/http/routes/analytics-params.js';
import { maskKey } from '../../src/admin/analytics-service.js';
import { msToMinutes } from '../../src/http/routes/admin-analytics.js';
import { parseKeyId, parseLimit, parseScopes } from '../../src/http/routes/admin-key-params.js';

describe('analytics parameters', () => {
  it('accepts YYYY-MM-DD and YYYY-MM-DDTHH:MM:SS as UTC', () => {
    assert.equal(parseDate({ d: '2025-09-29' }, 'd'), Date.UTC(2025, 8, 29));
    assert.equal(parseDate({ d: '2025-09-29T14:30:00' }, 'd'), Date.UTC(2025, 8, 29, 14, 30));
    assert.equal(parseDate({ d: '2025-09-29T14:30:00Z' }, 'd'), Date.UTC(2025, 8, 29, 14, 30));
    assert.equal(parseDate({ d: '2024-02-29' }, 'd'), Date.UTC(2024, 1, 29));
  });

  it('rejects impossible and malformed dates', () => {
    for (const d of ['2025-02-29', '2025-13-01', '2025-9-29', '2025-09-29T24:00:00', '2025-09-29 14:30:00', '2025-09-29T14:30', 'today']) {
      assert.throws(() => parseDate({ d }, 'd'), { code: 'invalid_request' }, d);
    }
  });

  it('allows exactly 366 days and no more', () => {
    assert.deepEqual(parseAnalyticsRange({ start_date: '2024-01-01', end_date: '2025-01-01' }), {
      from: Date.UTC(2024, 0, 1),
      to: Date.UTC(2025, 0, 1),
    });
    assert.throws(() => parseAnalyticsRange({ start_date: '2024-01-01', end_date: '2025-01-01T00:00:01' }), {
      message: 'Bad request. Reason: Date range cannot exceed 366 days',
    });
  });

  it('choices default to the empty value; pages start at 1', () => {
    assert.equal(parseChoice({}, 'group_by', ['', 'key'] as const), '');
    assert.equal(parseChoice({ group_by: 'key' }, 'group_by', ['', 'key'] as const), 'key');
    assert.throws(() => parseChoice({ group_by: ['key', 'key'] }, 'group_by', ['', 'key'] as const), {
      message: "Value for 'group_by' not supported. Allowed: '', 'key'.",
    });
    assert.equal(parsePage({}), 1);
    assert.equal(parsePage({ page: '3' }), 3);
  });
});

describe('report formats', () => {
  it('masks keys as first four, four stars, last four', () => {
    assert.equal(maskKey('db96', 'cb2c'), 'db96****cb2c');
  });

  it('reports speech time in minutes with two decimals', () => {
    assert.equal(msToMinutes(90_000), 1.5);
    assert.equal(msToMinutes(6_447_600), 107.46);
    assert.equal(msToMinutes(0), 0);
  });
});

describe('developer-key fields', () => {
  it('key ids are two GUIDs joined by a colon, lower-cased', () => {
    const id = 'CA7D5694-96EB-4263-A9A4-7F7E4211529E:20c2abcf-4c3c-4cd6-8ae8-8bd2a7d4da38';
    assert.equal(parseKeyId({ key_id: id }), id.toLowerCase());
    assert.throws(() => parseKeyId({ key_id: 'ca7d5694-96eb-4263-a9a4-7f7e4211529e' }), { code: 'invalid_request' });
  });

  it('limits: absent = unchanged, null/empty = unlimited, digits from forms', () => {
    assert.equal(parseLimit({}, 'characters'), undefined);
    assert.equal(parseLimit({ characters: null }, 'characters'), null);
    assert.equal(parseLimit({ characters: '' }, 'characters'), null);
    assert.equal(parseLimit({ characters: '5000' }, 'characters'), 5000);
    assert.equal(parseLimit({ characters: 0 }, 'characters'), 0);
    assert.throws(() => parseLimit({ characters: 2 ** 60 }, 'characters'), { code: 'invalid_request' });
  });

  it('scopes: arrays, comma lists, de-duplicated and lower-cased', () => {
    assert.deepEqual(parseScopes({ scopes: ['Translate', 'usage', 'translate'] }), ['translate', 'usage']);
    assert.deepEqual(parseScopes({ scopes: 'translate,document' }), ['translate', 'document']);
    assert.deepEqual(parseScopes({ scopes: '' }), []);
    assert.equal(parseScopes({ scopes: null }), null);
    assert.equal(parseScopes({}), undefined);
  });
});
