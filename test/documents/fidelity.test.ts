// Documents as people really write them, at the format level: what reaches the engine and what comes back.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { srtFormat } from '../../src/documents/formats/srt.js';
import { jsonFormat } from '../../src/documents/formats/json.js';
import { icuPieces } from '../../src/documents/formats/icu-message.js';
import { icuShape } from './icu-shape.js';
import { identifierSpans } from '../../src/translate/markup/index.js';

const ES = { targetLang: 'es' };

describe('srt dialogue', () => {
  it('sends each speaker alone and without the dash; reflows each speaker over its own lines', async () => {
    const src = '1\n00:00:01,000 --> 00:00:03,000\n- Get your diploma,\nI\'ll get mine.\n- What you doing?\n\n2\n00:00:04,000 --> 00:00:05,000\n-5 degrees\noutside and cold.\n';
    const doc = await srtFormat.extract(Buffer.from(src), ES);
    assert.deepEqual(doc.segments.map((s) => s.text), ["Get your diploma, I'll get mine.", 'What you doing?', '-5 degrees outside and cold.']);
    const out = (await doc.rebuild(['Consigue tu diploma, yo conseguiré el mío.', '¿Qué haces?', '-5 grados fuera y frío.'])).toString('utf8');
    assert.equal(out, '1\n00:00:01,000 --> 00:00:03,000\n- Consigue tu diploma,\nyo conseguiré el mío.\n- ¿Qué haces?\n\n2\n00:00:04,000 --> 00:00:05,000\n-5 grados\nfuera y frío.\n');
    assert.equal((await doc.rebuild(doc.segments.map((s) => s.text))).toString('utf8'), src);
  });
});

describe('ICU MessageFormat in JSON', () => {
  it('sends only branch texts, with # and arguments protected; keywords, names and every branch come back', async () => {
    const messages = {
      participants: '{count, plural, one {# participant} other {# participants}}',
      invite: '{gender, select, female {She invited {name}} male {He invited {name}} other {They invited {name}}}',
      files: 'You have {n, plural, =0 {no files} =1 {one file} other {# files in {folder}}}.',
    };
    const src = JSON.stringify(messages, null, 2);
    const doc = await jsonFormat.extract(Buffer.from(src), ES);
    const sent = doc.segments.map((s) => s.text);
    assert.deepEqual(sent, ['⟦0⟧ participant', '⟦0⟧ participants', 'She invited ⟦0⟧', 'He invited ⟦0⟧', 'They invited ⟦0⟧', 'You have', 'no files', 'one file', '⟦0⟧ files in ⟦1⟧']);
    // an engine that would translate any keyword it saw
    const engine = (s: string) => s.replace(/participants?/g, (w) => (w.endsWith('s') ? 'participantes' : 'participante')).replace(/\b(one|other|plural|select|count|name)\b/g, 'X');
    const out = JSON.parse((await doc.rebuild(sent.map(engine))).toString('utf8')) as typeof messages;
    assert.equal(out.participants, '{count, plural, one {# participante} other {# participantes}}');
    for (const key of Object.keys(messages) as (keyof typeof messages)[]) assert.deepEqual(icuShape(out[key]), icuShape(messages[key]), key);
    assert.equal((await doc.rebuild(sent)).toString('utf8'), src);
  });

  it('leaves a malformed message to the usual path', async () => {
    assert.equal(icuPieces('{count, plural, one {# item}'), undefined);
    assert.equal(icuPieces('Hello {name}'), undefined);
    assert.deepEqual(icuPieces("{n, plural, other {it''s '{'#'}' #}}")?.length, 1);
  });
});

describe('identifier spans', () => {
  it('finds codes, hashes, addresses, paths and code spans; leaves ordinary words, times and compounds', () => {
    const spans = (t: string) => identifierSpans(t).map((s) => t.slice(s.start, s.end));
    assert.deepEqual(spans('Order 12df-321a (SPARSE-2024-INV) to a.b@example.org, see www.example.com/x. Run `make all`.'), [
      '12df-321a',
      'SPARSE-2024-INV',
      'a.b@example.org',
      'www.example.com/x',
      '`make all`',
    ]);
    assert.deepEqual(spans('Commit 9fceb02 changed src/app.ts, /etc/hosts and config.yaml; SKU123 ships.'), ['9fceb02', 'src/app.ts', '/etc/hosts', 'config.yaml', 'SKU123']);
    assert.deepEqual(spans('A 30-year-old well-known man, and/or at 10am on the 2nd, e.g. 5km away, 3D.'), []);
  });
});
