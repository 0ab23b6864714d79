// XLIFF 1.2 / 2.0 / 2.1 round trips with a visible stand-in translation: only targets, target languages and states
// change, everything else comes back byte for byte; inline codes survive; bad files end in DocumentFormatError.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DocumentFormatError } from '../../src/documents/formats/format.js';
import { DocumentFormats } from '../../src/documents/formats/index.js';
import { parseLocatedXml } from '../../src/documents/formats/located-xml.js';
import { xliffFormat } from '../../src/documents/formats/xliff.js';
import { checkXliff, HAS_XMLLINT, validateXliff as validate } from './xliff-check.js';

const FIXTURES = new URL('../../../test/fixtures/documents/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');
const ES = { targetLang: 'es' };
/** A stand-in engine: upper case; placeholder tokens untouched. */
const shout = (s: string) => s.replace(/[a-z]+/g, (w) => w.toUpperCase());
const shoutAll = async (texts: string[]) => texts.map(shout);

async function translate(src: string, engine = shoutAll, lang = ES) {
  const doc = await xliffFormat.extract(Buffer.from(src), lang);
  const out = (await doc.translateWith!(engine)).toString('utf8');
  return { doc, out };
}

const v12Doc = (body: string) =>
  `<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file source-language="en" datatype="plaintext" original="a"><body>${body}</body></file></xliff>`;

/** Removes the targets the filter inserted, so the rest can be compared with the source byte for byte. */
const withoutNewTargets = (s: string, attrs: string) =>
  s.replace(new RegExp(`\\n\\s*<target${attrs}>(?:(?!</target>)[\\s\\S])*</target>`, 'g'), '');

describe('xliff 1.2', () => {
  const src = fixture('sample-1.2.xlf');

  it('writes a translated target after each translatable source; everything else byte for byte', async () => {
    const { doc, out } = await translate(src);
    assert.deepEqual(doc.segments.map((s) => s.text), [
      'The house is big.',
      'The dog is in the garden and the cat sleeps.',
      'Click  to open the red door.',
      'I have a red car & a blue bicycle.',
      'The sun shines.',
      'The birds sing.',
      'Open the window now.',
    ]);
    assert.equal(doc.characters, doc.segments.reduce((n, s) => n + [...s.text].length, 0));
    // The only changes: target-language on <file>, the inserted targets, the two existing targets rewritten.
    const expected = src
      .replace('datatype="html">', 'datatype="html" target-language="es">')
      .replace(
        '<target state="needs-translation" state-qualifier="mt-suggestion">old text</target>',
        '<target state="translated" state-qualifier="mt-suggestion">CLICK <x id="1" ctype="image"/> TO OPEN THE <ph id="2">&lt;b&gt;</ph>RED DOOR<ph id="3">&lt;/b&gt;</ph>.</target>',
      )
      .replace(
        '<target/>',
        '<target state="translated">OPEN THE <it id="1" pos="open">&lt;u&gt;</it>WINDOW<bx id="2"/> NOW<ex id="2"/>.</target>',
      );
    assert.equal(withoutNewTargets(out, '(?: xml:space="preserve")? xml:lang="es" state="translated"'), expected);
    assert.ok(out.includes('<source xml:space="preserve">The dog is in the <g id="1" ctype="bold">garden</g> and the cat sleeps.</source>\n        <target xml:space="preserve" xml:lang="es" state="translated">THE DOG IS IN THE <g id="1" ctype="bold">GARDEN</g> AND THE CAT SLEEPS.</target>'));
    assert.ok(out.includes('<target xml:lang="es" state="translated">I HAVE A <bpt id="1">&lt;i&gt;</bpt>RED CAR<ept id="1">&lt;/i&gt;</ept> &amp; A BLUE BICYCLE.</target>'));
    // segmented unit: the target repeats the segment markers; a number-only source is copied
    assert.ok(out.includes('<target xml:lang="es" state="translated"><mrk mtype="seg" mid="1">THE SUN SHINES.</mrk> <mrk mtype="seg" mid="2">THE BIRDS SING.</mrk></target>'));
    assert.ok(out.includes('<source>42</source>\n        <target xml:lang="es" state="translated">42</target>'));

    const units = checkXliff(out, 'es');
    assert.deepEqual(units.map((u) => u.id), ['1', '2', '3', '4', '7', '8', '9']);
    for (const u of units) assert.equal(u.target, shout(u.source), u.id);
    // translate="no" (on the unit and inherited from a group): no target
    assert.ok(!/<source>Tolk Server<\/source>\s*<target/.test(out));
    assert.ok(!/<source>ACME-2000<\/source>\s*<target/.test(out));
  });

  it('an identity translation changes nothing but the targets and the target language', async () => {
    const { out } = await translate(src, async (t) => t);
    const units = checkXliff(out, 'es');
    for (const u of units) assert.equal(u.target, u.source);
  });

  it('codes an engine drops or scrambles are re-attached, never lost', async () => {
    // This engine drops every placeholder token and answers spans with unrelated words.
    const lossy = async (texts: string[]) => texts.map((t) => shout(t.replace(/⟦[^⟧]*⟧/g, '')));
    const { out } = await translate(src, lossy);
    const units = checkXliff(out, 'es'); // asserts the same codes, ids included, in every target
    assert.equal(units.length, 7);
    assert.equal(units.find((u) => u.id === '3')!.codes.length, 3);
  });

  it('rebuild from plain translations keeps every code', async () => {
    const doc = await xliffFormat.extract(Buffer.from(src), ES);
    const out = (await doc.rebuild(doc.segments.map((s) => shout(s.text)))).toString('utf8');
    for (const u of checkXliff(out, 'es')) assert.equal(u.target.replace(/\s+/g, ' '), shout(u.source).replace(/\s+/g, ' '), u.id);
  });

  it('keeps a BOM and CRLF line endings; the inserted target is indented like its source', async () => {
    const crlf = `\ufeff${v12Doc('<trans-unit id="1">\r\n    <source>The house is big.</source>\r\n  </trans-unit>')}`.replace(/\n(?<!\r\n)/g, '\r\n');
    const doc = await xliffFormat.extract(Buffer.from(crlf), ES);
    const out = await doc.translateWith!(shoutAll);
    assert.deepEqual([...out.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    assert.ok(out.toString('utf8').includes('<source>The house is big.</source>\r\n    <target xml:lang="es" state="translated">THE HOUSE IS BIG.</target>\r\n  </trans-unit>'));
  });

  it('reads a 1.2 file written without the namespace', async () => {
    const bare = '<xliff version="1.2"><file source-language="en" datatype="plaintext" original="a"><body><trans-unit id="1"><source>The <g id="1">house</g></source></trans-unit></body></file></xliff>';
    const { out } = await translate(bare);
    assert.ok(out.includes('<source>The <g id="1">house</g></source><target xml:lang="es" state="translated">THE <g id="1">HOUSE</g></target>'));
    assert.equal(checkXliff(out, 'es').length, 1);
  });

  it('an existing target-language is replaced; a prefixed namespace is followed', async () => {
    const prefixed =
      '<x:xliff xmlns:x="urn:oasis:names:tc:xliff:document:1.2" version="1.2"><x:file source-language="en" target-language="fr" datatype="plaintext" original="a">' +
      '<x:body><x:trans-unit id="a"><x:source xmlns:its="http://www.w3.org/2005/11/its">The <x:mrk mtype="x-its" its:locNote="n">house</x:mrk></x:source></x:trans-unit></x:body></x:file></x:xliff>';
    const { out } = await translate(prefixed);
    assert.ok(out.includes('target-language="es"') && !out.includes('"fr"'));
    assert.ok(out.includes('<x:target xmlns:its="http://www.w3.org/2005/11/its" xml:lang="es" state="translated">THE <x:mrk mtype="x-its" its:locNote="n">HOUSE</x:mrk></x:target>'));
  });
});

describe('xliff 2.x', () => {
  it('2.0: targets in every translatable segment, trgLang on the root, state on the segment', async () => {
    const src = fixture('sample-2.0.xlf');
    const { doc, out } = await translate(src);
    assert.deepEqual(doc.segments.map((s) => s.text), [
      'The house is big.',
      'The dog is in the garden and the cat sleeps.',
      'I have a red car and a blue bicycle.',
      'Open the window and  now.',
    ]);
    const expected = src
      .replace('xmlns:fs="urn:oasis:names:tc:xliff:fs:2.0">', 'xmlns:fs="urn:oasis:names:tc:xliff:fs:2.0" trgLang="es">')
      .replace('<segment id="s1">', '<segment id="s1" state="translated">')
      .replace('<segment id="s2" state="initial">', '<segment id="s2" state="translated">')
      .replace('<segment id="s3">', '<segment id="s3" state="translated">')
      .replace('\n        <target>old text</target>', '') // replaced in place; checked below
      .replace('<unit id="u4">\n        <segment>', '<unit id="u4">\n        <segment state="translated">');
    assert.equal(withoutNewTargets(out, ''), expected);
    assert.ok(out.includes('</source>\n        <target>I HAVE A <sc id="3" type="fmt"/>RED CAR<ec startRef="3" type="fmt"/> AND A BLUE BICYCLE.</target>\n      </segment>'));
    assert.ok(out.includes('<target>THE DOG IS IN THE <pc id="1" dataRefStart="d1" dataRefEnd="d2">GARDEN</pc> AND THE CAT SLEEPS.<ph id="2" dataRef="d3"/></target>'));
    // a protected <mrk translate="no"> is copied verbatim, its blanks kept
    assert.ok(out.includes('<target>OPEN THE <mrk id="m1" type="term">WINDOW</mrk> AND <mrk id="m2" translate="no">ACME</mrk> NOW.</target>'));
    // <ignorable> and the translate="no" unit stay as they were
    assert.ok(out.includes('<ignorable>\n        <source> </source>\n      </ignorable>'));
    assert.ok(out.includes('<unit id="u3" translate="no">\n      <segment>\n        <source>Tolk Server</source>\n      </segment>'));
    const units = checkXliff(out, 'es');
    assert.equal(units.length, 4);
    for (const u of units) assert.equal(u.target, shout(u.source));
  });

  it('2.1: an existing trgLang and target xml:lang are replaced; sm/em and ph kept', async () => {
    const src = fixture('sample-2.1.xlf');
    const { out } = await translate(src);
    assert.ok(out.includes('srcLang="en-US" trgLang="es">'));
    assert.ok(out.includes('<target xml:lang="es">THE CAT SLEEPS IN THE <pc id="1">SUN</pc>.</target>'));
    assert.ok(out.includes('<target>I SEE <sm id="m1" type="term"/>THE BIG TREE<em startRef="m1"/> AND <ph id="1"/> A RIVER.</target>'));
    assert.ok(out.includes('<notes><note>Greeting on the home page.</note></notes>'));
    assert.equal(checkXliff(out, 'es').length, 3);
  });
});

describe('xliff schema check (xmllint, hand-written XSD subsets in test/fixtures/documents/schemas)', () => {
  const cases: [string, 'xliff-1.2-subset.xsd' | 'xliff-2-core-subset.xsd'][] = [
    ['sample-1.2.xlf', 'xliff-1.2-subset.xsd'],
    ['sample-2.0.xlf', 'xliff-2-core-subset.xsd'],
    ['sample-2.1.xlf', 'xliff-2-core-subset.xsd'],
  ];
  for (const [name, xsd] of cases) {
    it(`${name}: source and translated file validate; a misplaced target or a bad state does not`, { skip: !HAS_XMLLINT && 'xmllint not installed' }, async () => {
      const src = fixture(name);
      assert.deepEqual(validate(src, xsd), { ok: true, message: '- validates\n' });
      const { out } = await translate(src);
      const result = validate(out, xsd);
      assert.ok(result.ok, result.message);
      // the check can fail: a target before its source, and a state outside the enumeration, are refused
      const misplaced = out.replace(/(<source>[^<]*<\/source>)(\s*)(<target[^>]*>[^<]*<\/target>)/, '$3$2$1');
      assert.notEqual(misplaced, out);
      assert.equal(validate(misplaced, xsd).ok, false);
      assert.equal(validate(out.replace('state="translated"', 'state="done"'), xsd).ok, false);
    });
  }
});

describe('xliff errors', () => {
  const bad = (s: string, message: RegExp) => assert.throws(() => xliffFormat.extract(Buffer.from(s), ES), (e: Error) => e instanceof DocumentFormatError && message.test(e.message));
  const v12 = v12Doc;

  it('refuses malformed XML with the parser’s reason', () => {
    bad(v12('<trans-unit id="1"><source>The <g id="1">house</source></trans-unit>'), /not well-formed XML: .*/);
    bad(v12('<trans-unit id="1"><source>A & B</source></trans-unit>'), /not well-formed XML/);
    bad('<xliff version="1.2"', /not well-formed XML/);
    bad('', /not well-formed XML/);
  });

  it('refuses entity declarations (billion laughs) and undefined entities without expanding anything', () => {
    const lol = `<?xml version="1.0"?><!DOCTYPE xliff [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>`;
    bad(lol + v12('<trans-unit id="1"><source>&lol3;</source></trans-unit>'), /entity declarations/);
    bad(v12('<trans-unit id="1"><source>&nbsp;house</source></trans-unit>'), /undefined entity/);
  });

  it('refuses other versions and other roots with a clear message', () => {
    bad('<xliff version="1.1" xmlns="urn:oasis:names:tc:xliff:document:1.1"><file/></xliff>', /XLIFF version 1\.1 .*not supported; XLIFF 1\.2, 2\.0 and 2\.1 are supported/);
    bad('<xliff version="2.2" xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="en"><file id="f"/></xliff>', /XLIFF version 2\.2 is not supported/);
    bad('<xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file/></xliff>', /does not match/);
    bad('<xliff><file/></xliff>', /version \(missing\) is not supported/);
    bad('<html><body>The house</body></html>', /root element is <html>, not <xliff>/);
  });

  it('refuses absurd nesting and non-UTF-8 bytes', () => {
    bad(v12(`<trans-unit id="1"><source>${'<g id="1">'.repeat(500)}house${'</g>'.repeat(500)}</source></trans-unit>`), /nested more than/);
    assert.throws(() => xliffFormat.extract(Buffer.from([0x3c, 0x78, 0xff, 0xfe, 0x3e]), ES), DocumentFormatError);
  });

  it('truncated or damaged files end in DocumentFormatError or a well-formed result, never another error', async () => {
    let refused = 0;
    for (const name of ['sample-1.2.xlf', 'sample-2.0.xlf', 'sample-2.1.xlf']) {
      const src = fixture(name);
      for (let cut = 0; cut < src.length; cut += 23) {
        // a truncation, and the file with one character removed
        for (const damaged of [src.slice(0, cut), src.slice(0, cut) + src.slice(cut + 1)]) {
          try {
            const doc = await xliffFormat.extract(Buffer.from(damaged), ES);
            const out = (await doc.translateWith!(shoutAll)).toString('utf8');
            parseLocatedXml(out, 'translated XLIFF');
          } catch (err) {
            assert.ok(err instanceof DocumentFormatError, `${name} at ${cut}: ${(err as Error).stack}`);
            refused++;
          }
        }
      }
    }
    assert.ok(refused > 100);
  });

  it('is registered for .xlf and .xliff', () => {
    const formats = new DocumentFormats();
    assert.equal(formats.forFileName('a.xlf'), xliffFormat);
    assert.equal(formats.forFileName('B.XLIFF'), xliffFormat);
  });
});
