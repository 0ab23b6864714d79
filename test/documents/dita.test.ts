// DITA topics on the XML markup format: text translated, structure, DOCTYPE, PIs, comments, code and translate="no"
// content byte for byte, xml:lang on the root set to the target language; bad files end in DocumentFormatError.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ditaFormat } from '../../src/documents/formats/dita.js';
import { DocumentFormatError } from '../../src/documents/formats/format.js';
import { DocumentFormats } from '../../src/documents/formats/index.js';
import { xmlFormat } from '../../src/documents/formats/markup-formats.js';
import { parseLocatedXml } from '../../src/documents/formats/located-xml.js';

const FIXTURES = new URL('../../../test/fixtures/documents/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');
const ES = { targetLang: 'es' };
const shout = (s: string) => s.replace(/[a-z]+/g, (w) => w.toUpperCase());
const tags = (s: string) => [...s.matchAll(/<\/?([A-Za-z][\w:-]*)/g)].map((m) => m[0]);

async function translate(src: string, engine = async (t: string[]) => t.map(shout)) {
  const doc = await ditaFormat.extract(Buffer.from(src), ES);
  const out = (await doc.translateWith!(engine)).toString('utf8');
  parseLocatedXml(out, 'translated DITA'); // still well-formed
  return { doc, out };
}

describe('dita', () => {
  it('topic: text translated; DOCTYPE, PI, comment, prolog, code and translate="no" byte for byte', async () => {
    const src = fixture('sample-topic.dita');
    const { doc, out } = await translate(src);
    assert.deepEqual(doc.segments.map((s) => s.text), [
      'The house is big',
      'The dog is in the garden and the cat sleeps.',
      'I have a red car and a blue bicycle.',
      'The sun shines.',
      'The birds sing in the old tree.',
      'Open the file  with .',
      'The window',
      'The door is open.',
    ]);
    assert.equal(doc.characters, doc.segments.reduce((n, s) => n + [...s.text].length, 0));
    const head = src.split('\n').slice(0, 3).join('\n');
    assert.ok(out.startsWith(`${head}\n<topic id="garden" xml:lang="es">`));
    assert.deepEqual(tags(out), tags(src));
    assert.ok(out.includes('<shortdesc>THE DOG IS IN THE <term>GARDEN</term> AND THE CAT SLEEPS.</shortdesc>'));
    assert.ok(out.includes('<li>THE BIRDS SING IN THE <xref href="trees.dita">OLD TREE</xref>.</li>'));
    assert.ok(out.includes('<p>OPEN THE FILE <filepath>/etc/house.conf</filepath> WITH <cmdname>edit</cmdname>.</p>'));
    assert.ok(out.includes('<entry>THE WINDOW</entry>'));
    assert.ok(out.includes('<author>Jane Doe</author>'));
    assert.ok(out.includes('<p translate="no">The house is big.</p>'));
    assert.ok(out.includes('<!-- the list below is reviewed -->'));
  });

  it('concept: codeblock, codeph, varname, translate="no" phrase and section kept; alt translated; xml:lang added', async () => {
    const src = fixture('sample-concept.dita');
    const { out } = await translate(src);
    assert.ok(out.includes('<concept id="houses" xml:lang="es">'));
    assert.ok(out.includes('<codeblock outputclass="language-sh">echo "The house is big"\nls   -la /home/house</codeblock>'));
    assert.ok(out.includes('<p>THE HOUSE HAS A BIG GARDEN AND THE DOG SLEEPS IN THE <ph translate="no">Tolk Server</ph> ROOM.</p>'));
    assert.ok(out.includes('<p>SET <varname>GARDEN_SIZE</varname> TO THE SIZE OF THE GARDEN; SEE <codeph>garden.size()</codeph>.</p>'));
    assert.ok(out.includes('<section translate="no">\n      <title>Internal notes</title>\n      <p>Do not translate this section.</p>\n    </section>'));
    assert.ok(out.includes('<alt>THE RED CAR OF THE HOUSE</alt>'));
    assert.ok(out.includes('<note type="tip">THE CAT SLEEPS IN THE SUN.</note>'));
  });

  it('an identity translation gives the file back with only xml:lang changed', async () => {
    for (const name of ['sample-topic.dita', 'sample-concept.dita']) {
      const src = fixture(name);
      const { out } = await translate(src, async (t) => t);
      const expected = src.includes('xml:lang="en-US"') ? src.replace('xml:lang="en-US"', 'xml:lang="es"') : src.replace('<concept id="houses">', '<concept id="houses" xml:lang="es">');
      assert.equal(out, expected, name);
    }
  });

  it('nested lists and paragraphs inside list items stay separate units', async () => {
    const src = '<topic id="t"><title>Lists</title><body><ul><li>The house is big.<ul><li>The dog sleeps.</li></ul></li><li><p>The cat sleeps.</p><p>I have a car.</p></li></ul></body></topic>';
    const { doc } = await translate(src);
    assert.deepEqual(doc.segments.map((s) => s.text), ['Lists', 'The house is big.', 'The dog sleeps.', 'The cat sleeps.', 'I have a car.']);
  });

  it('refuses malformed files and entity bombs', () => {
    const bad = (s: string, message: RegExp) => assert.throws(() => ditaFormat.extract(Buffer.from(s), ES), (e: Error) => e instanceof DocumentFormatError && message.test(e.message));
    bad('<topic id="t"><title>The house</topic>', /The dita file is not well-formed/);
    bad('<!DOCTYPE topic [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><topic id="t"><title>&b;</title></topic>', /not well-formed/);
  });

  it('the generic XML format does not honour translate="no" nor touch xml:lang (unchanged behaviour)', async () => {
    const src = '<doc xml:lang="en"><p translate="no">The house is big.</p></doc>';
    const doc = await xmlFormat.extract(Buffer.from(src), ES);
    assert.deepEqual(doc.segments.map((s) => s.text), ['The house is big.']);
    assert.equal((await doc.translateWith!(async (t) => t)).toString('utf8'), src);
  });

  it('is registered for .dita', () => {
    assert.equal(new DocumentFormats().forFileName('Topic.DITA'), ditaFormat);
  });
});
