// Formats round-trip their fixtures: extract → a visible stand-in "translation" → rebuild keeps everything but the text.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { txtFormat } from '../../src/documents/formats/txt.js';
import { srtFormat, reflow } from '../../src/documents/formats/srt.js';
import { jsonFormat } from '../../src/documents/formats/json.js';
import { DocumentFormatError, countCodePoints } from '../../src/documents/formats/format.js';
import { JSON_PLACEHOLDERS, protect } from '../../src/documents/formats/placeholders.js';
import { DocumentFormats } from '../../src/documents/formats/index.js';

const FIXTURES = new URL('../../../test/fixtures/documents/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));
const ES = { targetLang: 'es' };
/** A stand-in engine: upper case, tokens untouched. */
const shout = (s: string) => s.replace(/[a-z]+/g, (w) => w.toUpperCase());

describe('txt', () => {
  it('keeps line endings, blank lines and indentation; translates each line', async () => {
    const src = fixture('sample.txt');
    const doc = txtFormat.extract(src, ES) as Awaited<ReturnType<typeof txtFormat.extract>>;
    assert.deepEqual(doc.segments.map((s) => s.text), ['The house is big.', 'The dog is in the garden.', 'I have a red car.', 'The cat sleeps.']);
    assert.equal(doc.characters, doc.segments.reduce((n, s) => n + s.text.length, 0));
    const out = (await doc.rebuild(doc.segments.map((s) => shout(s.text)))).toString('utf8');
    assert.equal(out, shout(src.toString('utf8')));
    // identity translation gives the file back byte for byte
    assert.deepEqual(await doc.rebuild(doc.segments.map((s) => s.text)), src);
  });

  it('keeps a BOM and UTF-16; refuses binary data', async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Hello\n')]);
    const d1 = await txtFormat.extract(bom, ES);
    assert.deepEqual((await d1.rebuild(['Hola'])).subarray(0, 3), Buffer.from([0xef, 0xbb, 0xbf]));
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Hello\r\n', 'utf16le')]);
    const d2 = await txtFormat.extract(utf16, ES);
    assert.deepEqual(d2.segments.map((s) => s.text), ['Hello']);
    assert.equal((await d2.rebuild(['Hola'])).subarray(2).toString('utf16le'), 'Hola\r\n');
    assert.throws(() => txtFormat.extract(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff, 0xfe, 0x00]), ES), DocumentFormatError);
  });
});

describe('srt', () => {
  it('rewrites only cue text; numbering, timing, coordinates and CRLF byte for byte', async () => {
    const src = fixture('sample.srt');
    const doc = await srtFormat.extract(src, ES);
    assert.deepEqual(doc.segments.map((s) => s.text), ['The house is big.', 'The dog is in the garden and the cat sleeps.', '⟦0⟧I have a red car.⟦1⟧']);
    const out = (await doc.rebuild(doc.segments.map((s) => shout(s.text)))).toString('utf8');
    const inLines = src.toString('utf8').split('\r\n');
    const outLines = out.split('\r\n');
    assert.equal(outLines.length, inLines.length);
    inLines.forEach((l, i) => {
      if (/^\d+$/.test(l) || l.includes('-->') || l === '') assert.equal(outLines[i], l);
      else assert.notEqual(outLines[i], l);
    });
    assert.ok(out.includes('<i>I HAVE A RED CAR.</i>'));
    // an identity translation reflows the two-line cue exactly as it was
    assert.deepEqual(await doc.rebuild(doc.segments.map((s) => s.text)), src);
  });

  it('reflows a cue over its original number of lines', () => {
    assert.deepEqual(reflow('uno dos tres cuatro', 2), ['uno dos', 'tres cuatro']);
    assert.deepEqual(reflow('uno', 2), ['uno', '']);
    assert.deepEqual(reflow('a b c', 1), ['a b c']);
  });

  it('refuses a file without cues', () => {
    assert.throws(() => srtFormat.extract(Buffer.from('just some text\nno timing here\n'), ES), DocumentFormatError);
  });
});

describe('json', () => {
  it('translates string values only; keys, numbers, formatting and placeholders survive', async () => {
    const src = fixture('sample.json').toString('utf8');
    const doc = await jsonFormat.extract(Buffer.from(src), ES);
    const texts = doc.segments.map((s) => s.text);
    assert.ok(texts.includes('Hello ⟦0⟧, you have ⟦1⟧ new messages.'));
    assert.ok(!texts.some((t) => t.includes('example.com')));
    const out = (await doc.rebuild(texts.map(shout))).toString('utf8');
    const parsed = JSON.parse(out);
    assert.equal(parsed.title, 'THE HOUSE IS BIG.');
    assert.equal(parsed.nested.greeting, 'HELLO {name}, YOU HAVE {count} NEW MESSAGES.');
    assert.equal(parsed['The house is big.'], 'I HAVE A RED CAR.');
    assert.ok(out.includes('"count": 12345678901234567890'));
    assert.equal(out.split('\n').length, src.split('\n').length);
    assert.equal((await doc.rebuild(texts)).toString('utf8'), src);
  });

  it('re-attaches placeholders an engine dropped', () => {
    const p = protect('Hello {name}, you have %d messages', JSON_PLACEHOLDERS);
    assert.equal(p.text, 'Hello ⟦0⟧, you have ⟦1⟧ messages');
    assert.equal(p.restore('Hola ⟦0⟧, tienes mensajes'), 'Hola {name}, tienes mensajes %d');
    assert.equal(p.restore('⟦1⟧ ⟦0⟧ ⟦0⟧ ⟦7⟧'), '%d {name}  ');
  });

  it('refuses malformed, truncated and deeply nested files with a message', () => {
    for (const bad of ['{"a": "b",', '{"a" "b"}', '[1, 2', 'nope', '{"a": "b"} trailing']) {
      assert.throws(() => jsonFormat.extract(Buffer.from(bad), ES), DocumentFormatError, bad);
    }
    assert.throws(() => jsonFormat.extract(Buffer.from('['.repeat(200_000)), ES), DocumentFormatError);
  });
});

describe('registry and counting', () => {
  it('maps extensions; planned formats are recognised but not built', () => {
    const formats = new DocumentFormats();
    assert.equal(formats.forFileName('A.TXT'), txtFormat);
    assert.equal(formats.forFileName('x.srt'), srtFormat);
    assert.equal(formats.forFileName('x.doc'), 'planned');
    assert.equal(formats.forFileName('x.exe'), undefined);
    assert.equal(formats.forFileName('noext'), undefined);
  });

  it('counts code points, not UTF-16 units', () => {
    assert.equal(countCodePoints('a😀b'), 3);
    assert.equal(countCodePoints('\ud800x'), 2);
    assert.equal(countCodePoints(''), 0);
  });
});
