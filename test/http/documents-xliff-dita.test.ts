// XLIFF 1.2, XLIFF 2.0 and DITA through /v2/document with real Apertium en→es: targets really are Spanish, inline
// codes keep their ids, code and translate="no" content is untouched, billing counts the source text only.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authHeaders, type TestAccount, type TestContext } from '../helpers/harness.js';
import { createDocumentsTestApp, fixture, type DocumentsTestApp } from '../helpers/documents.js';
import type { Part } from '../documents/multipart.js';
import { checkXliff, HAS_XMLLINT, validateXliff } from '../documents/xliff-check.js';
import { xliffFormat } from '../../src/documents/formats/xliff.js';

let app: DocumentsTestApp;
let ctx: TestContext;
let pro: TestAccount;
before(async () => {
  app = await createDocumentsTestApp();
  ({ ctx, account: pro } = app);
});
after(async () => app.close());

/** Uploads en→es, waits for the job, downloads the result. */
async function translateFile(filename: string, content: Buffer): Promise<{ body: string; contentType: string; billed: number; status: string; error?: string }> {
  const { status, file } = await app.client.translateFile([{ name: 'file', filename, content }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }]);
  if (!file) return { body: '', contentType: '', billed: 0, status: status.status, error: status.error_message };
  return { body: file.data.toString('utf8'), contentType: file.type, billed: status.billed_characters, status: 'done' };
}

const sourceCharacters = async (content: Buffer) => (await xliffFormat.extract(content, { targetLang: 'es' })).characters;

describe('xliff and dita through /v2/document (Apertium en→es)', () => {
  it('xliff 1.2: Spanish targets with g, x, ph, bpt/ept and seg markers kept; notes and translate="no" untouched', async () => {
    const src = fixture('sample-1.2.xlf');
    const res = await translateFile('garden.xlf', src);
    assert.equal(res.status, 'done', res.error);
    assert.match(res.contentType, /^application\/xliff\+xml/);
    assert.equal(res.billed, await sourceCharacters(src));
    const units = checkXliff(res.body, 'es'); // targets for every translatable source, same code ids
    if (HAS_XMLLINT) assert.deepEqual(validateXliff(res.body, 'xliff-1.2-subset.xsd'), { ok: true, message: '- validates\n' });
    const target = (id: string) => units.find((u) => u.id === id)!.target;
    assert.match(target('1'), /casa/i);
    assert.match(target('2'), /perro/i);
    assert.match(target('2'), /gato/i);
    assert.match(res.body, /<g id="1" ctype="bold">[^<]*jard[ií]n[^<]*<\/g>/i);
    assert.match(res.body, /<bpt id="1">&lt;i&gt;<\/bpt>[^<]*coche[^<]*<ept id="1">&lt;\/i&gt;<\/ept>/i);
    assert.match(target('3'), /puerta/i);
    assert.match(target('7'), /sol/i);
    assert.match(res.body, /<target xml:lang="es" state="translated"><mrk mtype="seg" mid="1">[^<]*sol[^<]*<\/mrk> <mrk mtype="seg" mid="2">[^<]*p[áa]jaros[^<]*<\/mrk><\/target>/i);
    for (const u of units.filter((x) => /\p{L}/u.test(x.source))) assert.notEqual(u.target, u.source, `unit ${u.id} not translated`);
    assert.ok(res.body.includes('<note>Page title; keep it short.</note>'));
    assert.ok(res.body.includes('<tk:meta score="0.9">do not touch</tk:meta>'));
    assert.ok(/<source>Tolk Server<\/source>\s*<\/trans-unit>/.test(res.body));
  });

  it('xliff 2.0: Spanish targets with pc, ph, sc/ec and mrk kept; trgLang and segment state set', async () => {
    const src = fixture('sample-2.0.xlf');
    const res = await translateFile('garden.xliff', src);
    assert.equal(res.status, 'done', res.error);
    assert.equal(res.billed, await sourceCharacters(src));
    const units = checkXliff(res.body, 'es');
    assert.equal(units.length, 4);
    if (HAS_XMLLINT) assert.deepEqual(validateXliff(res.body, 'xliff-2-core-subset.xsd'), { ok: true, message: '- validates\n' });
    assert.match(units[0]!.target, /casa/i);
    assert.match(res.body, /<pc id="1" dataRefStart="d1" dataRefEnd="d2">[^<]*jard[ií]n[^<]*<\/pc>/i);
    assert.match(res.body, /<sc id="3" type="fmt"\/>[^<]*coche[^<]*<ec startRef="3" type="fmt"\/>/i);
    assert.ok(res.body.includes('<mrk id="m2" translate="no">ACME</mrk>'));
    assert.match(res.body, /<mrk id="m1" type="term">[^<]*ventana[^<]*<\/mrk>/i);
    assert.ok(res.body.includes('<note appliesTo="source">Page title.</note>'));
  });

  it('dita: Spanish text, codeblock and translate="no" untouched, DOCTYPE kept, xml:lang="es"', async () => {
    const src = fixture('sample-concept.dita');
    const res = await translateFile('houses.dita', src);
    assert.equal(res.status, 'done', res.error);
    assert.match(res.contentType, /^application\/dita\+xml/);
    const out = res.body;
    assert.ok(out.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE concept PUBLIC "-//OASIS//DTD DITA Concept//EN" "concept.dtd">\n<concept id="houses" xml:lang="es">'));
    assert.match(out, /<title>[^<]*casas[^<]*<\/title>/i);
    assert.match(out, /<p>[^<]*jard[ií]n[^<]*<ph translate="no">Tolk Server<\/ph>[^<]*<\/p>/i);
    assert.ok(out.includes('<codeblock outputclass="language-sh">echo "The house is big"\nls   -la /home/house</codeblock>'));
    assert.ok(out.includes('<varname>GARDEN_SIZE</varname>') && out.includes('<codeph>garden.size()</codeph>'));
    assert.ok(out.includes('<title>Internal notes</title>\n      <p>Do not translate this section.</p>'));
    assert.match(out, /<alt>[^<]*coche[^<]*<\/alt>/i);
  });

  it('an xliff of an unsupported version ends in error with the reason', async () => {
    const res = await translateFile('old.xlf', Buffer.from('<xliff version="1.1" xmlns="urn:oasis:names:tc:xliff:document:1.1"><file><body><trans-unit id="1"><source>The house</source></trans-unit></body></file></xliff>'));
    assert.equal(res.status, 'error');
    assert.match(res.error!, /XLIFF version 1\.1 .*not supported/);
  });
});
