// Glossary entry formats and content rules.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseEntries, toTsv } from '../../src/customization/glossaries/entries.js';
import { ServiceError } from '../../src/lib/errors.js';

function fails(text: string, format: 'tsv' | 'csv', detail: RegExp) {
  assert.throws(() => parseEntries(text, format), (e: unknown) => e instanceof ServiceError && e.message === 'Invalid glossary entries provided' && detail.test(e.details?.detail ?? ''));
}

describe('glossary entries', () => {
  it('parses TSV and CSV (quoted fields, "" escapes, language columns)', () => {
    assert.deepEqual(parseEntries('Hello\tHallo\r\nWorld\tWelt\n', 'tsv'), [{ source: 'Hello', target: 'Hallo' }, { source: 'World', target: 'Welt' }]);
    const csv = 'a,b\n"x, y","say ""hi"""\nc,d,en,fr\ne,f,en,de';
    assert.deepEqual(parseEntries(csv, 'csv', { source: 'en', target: 'de' }), [
      { source: 'a', target: 'b' }, { source: 'x, y', target: 'say "hi"' }, { source: 'e', target: 'f' },
    ]);
    assert.equal(toTsv(parseEntries('a\tb\nc\td', 'tsv')), 'a\tb\nc\td');
  });
  it('rejects duplicates with the reference detail', () => {
    fails('Hello\tHallo\nHello\tGuten Tag', 'tsv', /^Key with the index 1 \(starting at position 12\) duplicates key with the index 0 \(starting at position 0\)$/);
  });
  it('rejects empty terms, control characters, surrounding whitespace, long terms, bad columns', () => {
    fails('a\t', 'tsv', /empty/);
    fails('a\u0007b\tc', 'tsv', /control/);
    fails(' a\tb', 'tsv', /whitespace/);
    fails('a\tb\u3000', 'tsv', /whitespace/);
    fails(`${'é'.repeat(513)}\tb`, 'tsv', /1024 UTF-8 bytes/);
    fails('a\tb\tc', 'tsv', /exactly one tab/);
    fails('a,b,c', 'csv', /2 or 4 columns/);
    fails('"a,b', 'csv', /Unterminated/);
  });
  it('rejects a dictionary over 10 MiB with 413', () => {
    assert.throws(() => parseEntries('a\tb\n'.repeat(3 * 1024 * 1024), 'tsv'), (e: unknown) => e instanceof ServiceError && e.code === 'payload_too_large');
  });
});
