// IDML and MIF through /v2/document with real Apertium en→es: Spanish text in the stories and Paras, structure kept.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDocumentsTestApp, fixture, type DocumentsTestApp } from '../helpers/documents.js';
import { buildIdml, idmlParts } from '../documents/idml-fixture.js';
import { readZip } from '../../src/documents/formats/idml/zip-package.js';
import { idmlFormat } from '../../src/documents/formats/idml/idml-format.js';
import { mifFormat } from '../../src/documents/formats/mif/mif-format.js';

let app: DocumentsTestApp;
before(async () => {
  app = await createDocumentsTestApp();
});
after(async () => app.close());

/** Uploads a file en→es, waits for the job and downloads the result. */
async function translate(filename: string, content: Buffer): Promise<{ status: Record<string, unknown>; body: Buffer; type: string }> {
  const { status, file } = await app.client.translateFile([{ name: 'file', filename, content }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }]);
  return { status, body: file?.data ?? Buffer.alloc(0), type: file?.type ?? '' };
}

/** Element names and attributes of a story in order, without character data: the structure to keep. */
const skeleton = (xml: string) => [...xml.matchAll(/<[^>]*>/g)].map((m) => m[0]).filter((t) => !/^<\/?Content>$/.test(t));

describe('idml and mif documents with Apertium', () => {
  it('idml: stories in Spanish, style ranges, footnote and page-number markers kept, other parts byte for byte', async () => {
    const src = await buildIdml();
    const { status, body, type } = await translate('brochure.idml', src);
    assert.equal(status.status, 'done', JSON.stringify(status));
    assert.equal(type, 'application/vnd.adobe.indesign-idml-package');
    const source = await idmlFormat.extract(src, { targetLang: 'es' });
    assert.equal(status.billed_characters, source.characters);
    const before = await readZip(src, 'test');
    const after = await readZip(body, 'test');
    assert.deepEqual(after.map((p) => p.name), idmlParts().map(([n]) => n));
    const story = after.find((p) => p.name === 'Stories/Story_u1.xml')!.data.toString('utf8');
    const original = before.find((p) => p.name === 'Stories/Story_u1.xml')!.data.toString('utf8');
    for (const p of after) if (!p.name.startsWith('Stories/')) assert.ok(p.data.equals(before.find((q) => q.name === p.name)!.data), p.name);
    assert.match(story, /jard[íi]n/i);
    assert.match(story, /casa/i);
    assert.match(story, /perro/i);
    assert.match(story, /gato/i);
    assert.doesNotMatch(story, /The cat sleeps/);
    // every range, Properties block, footnote, <Br/> and processing instruction is still there, in order
    assert.deepEqual(skeleton(story), skeleton(original));
    // the bold range carries the translated "red car", the italic one the translated "garden"
    assert.match(story, /FontStyle="Bold">\s*<Properties>[\s\S]*?<\/Properties>\s*<Content>[^<]*(coche|rojo)[^<]*<\/Content>/u);
    assert.match(story, /FontStyle="Italic">\s*<Content>[^<]*jard[íi]n[^<]*<\/Content>/iu);
    const caption = after.find((p) => p.name === 'Stories/Story_u2.xml')!.data.toString('utf8');
    assert.match(caption, /<Content>[^<]*(foto|casa)[^<]*<\/Content>/iu);
    // the result is itself a readable IDML package
    assert.equal((await idmlFormat.extract(body, { targetLang: 'en' })).segments.length, source.segments.length);
  });

  it('mif: Paras in Spanish, catalogs byte for byte, font changes and special statements kept', async () => {
    const src = fixture('sample.mif');
    const { status, body, type } = await translate('chapter.mif', src);
    assert.equal(status.status, 'done', JSON.stringify(status));
    assert.equal(type, 'application/vnd.mif');
    const out = body.toString('utf8');
    const text = src.toString('utf8');
    assert.equal(out.slice(0, out.indexOf('<Tbls')), text.slice(0, text.indexOf('<Tbls')));
    const page = (s: string) => s.slice(s.indexOf('<Page'), s.indexOf('<TextFlow'));
    assert.equal(page(out), page(text));
    const strings = [...out.matchAll(/<String `((?:[^'\\]|\\.)*)'>/gu)].map((m) => m[1]).join(' ');
    assert.match(strings, /casa/i);
    assert.match(strings, /perro/i);
    assert.match(strings, /mesa/i);
    assert.doesNotMatch(strings, /The dog/);
    for (const kept of ['<Char Tab>', '<Char HardReturn>', "<VariableName `Current Date (Long)'>", "<MText `garden'>", '<XRefEnd >', "<String `\\QThe garden of the house\\q on page 1'>"]) {
      assert.ok(out.includes(kept), kept);
    }
    assert.match(out, /<FWeight `Bold'>\s*<FLocked No>\s*>\s*<String `[^']*(coche|rojo)[^']*'>/u);
    const again = await mifFormat.extract(body, { targetLang: 'en' });
    assert.equal(again.segments.length, (await mifFormat.extract(src, { targetLang: 'es' })).segments.length);
  });

  it('a damaged idml and a malformed mif end in error status with a message', async () => {
    const src = await buildIdml();
    const idml = await translate('broken.idml', src.subarray(0, src.length - 100));
    assert.equal(idml.status.status, 'error');
    assert.match(String(idml.status.error_message), /zip/);
    const mif = await translate('broken.mif', Buffer.from("<MIFFile 2015>\n<TextFlow <Para <ParaLine <String `The house'>>>\n"));
    assert.equal(mif.status.status, 'error');
    assert.match(String(mif.status.error_message), /never closed/);
  });
});
