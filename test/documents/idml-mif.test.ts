// IDML and MIF round-trip their fixtures with visible stand-in translations: text changes, style ranges and font
// changes stay on their words, every untouched byte stays identical, and damaged files are clear format errors.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { idmlFormat } from '../../src/documents/formats/idml/idml-format.js';
import { readZip } from '../../src/documents/formats/idml/zip-package.js';
import { mifFormat } from '../../src/documents/formats/mif/mif-format.js';
import { decodeMifString, encodeMifString, parseMif } from '../../src/documents/formats/mif/mif-syntax.js';
import { DocumentFormatError, type ExtractedDocument } from '../../src/documents/formats/format.js';
import { DocumentFormats } from '../../src/documents/formats/index.js';
import { buildIdml, idmlParts, STORY_U1, STORY_U2, zipParts } from './idml-fixture.js';

const FIXTURES = new URL('../../../test/fixtures/documents/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));
const ES = { targetLang: 'es' };
/** A stand-in engine: upper case, placeholders untouched. */
const shout = (s: string) => s.replace(/[a-z]+/g, (w) => w.toUpperCase());
const shoutAll = async (texts: string[]) => texts.map(shout);
/** Upper-cases the text of a story's <Content> elements (not processing instructions or entity names). */
const shoutXml = (xml: string) =>
  xml.replace(/<Content>([\s\S]*?)<\/Content>/g, (_, t: string) => `<Content>${t.replace(/<\?[^?]*\?>|&[a-z]+;|[a-z]+/g, (w) => (/^[<&]/.test(w) ? w : w.toUpperCase()))}</Content>`);
/** A stand-in engine with fixed translations (for reordering), upper case for anything else. */
const dictionary = (table: Record<string, string>) => async (texts: string[]) => texts.map((t) => table[t] ?? shout(t));

async function storyOf(zip: Buffer, name: string): Promise<string> {
  const parts = await readZip(zip, 'test');
  return parts.find((p) => p.name === name)!.data.toString('utf8');
}

async function rejects(p: unknown, pattern: RegExp) {
  await assert.rejects(async () => (typeof p === 'function' ? p() : p), (err: unknown) => {
    assert.ok(err instanceof DocumentFormatError, `not a DocumentFormatError: ${String(err)}`);
    assert.match((err as Error).message, pattern);
    return true;
  });
}

/** Sets the declared uncompressed size of one entry (central directory and local header) to a false value. */
function forgeSize(zip: Buffer, name: string, size: number): Buffer {
  const out = Buffer.from(zip);
  for (let i = out.indexOf('PK\x01\x02'); i >= 0; i = out.indexOf('PK\x01\x02', i + 4)) {
    const nameLen = out.readUInt16LE(i + 28);
    if (out.toString('utf8', i + 46, i + 46 + nameLen) !== name) continue;
    out.writeUInt32LE(size, i + 24);
    out.writeUInt32LE(size, out.readUInt32LE(i + 42) + 22);
  }
  return out;
}

describe('idml', () => {
  it('registered for .idml', () => {
    assert.equal(new DocumentFormats().forFileName('Brochure.IDML'), idmlFormat);
  });

  it('one segment per paragraph, across character style ranges, footnotes on their own', async () => {
    const doc = await idmlFormat.extract(await buildIdml(), ES);
    assert.deepEqual(doc.segments.map((s) => s.text), [
      'The garden of the house',
      ' The garden is green.',
      'I have a red car and a big dog.',
      'The cat sleeps in the house & the dog eats.',
      'The dog is in the garden.',
      'See page  of the book.',
      'A photo of the big house',
      'The kitchen',
      '12',
    ]);
    assert.equal(doc.characters, doc.segments.reduce((n, s) => n + [...s.text].length, 0));
  });

  it('round trip: only story text changes; every other part byte for byte, mimetype first and stored', async () => {
    const src = await buildIdml();
    const doc = await idmlFormat.extract(src, ES);
    const out = await doc.translateWith!(shoutAll);
    const before = await readZip(src, 'test');
    const after = await readZip(out, 'test');
    assert.deepEqual(after.map((p) => p.name), before.map((p) => p.name));
    for (const p of after) {
      const q = before.find((x) => x.name === p.name)!;
      if (p.name.startsWith('Stories/')) continue;
      assert.ok(p.data.equals(q.data), `${p.name} changed`);
    }
    // the upper-cased stories are the source stories with upper-cased character data: ranges, Properties,
    // footnote, <Br/>s and processing instructions all in place, byte for byte
    assert.equal(await storyOf(out, 'Stories/Story_u1.xml'), shoutXml(STORY_U1));
    assert.equal(await storyOf(out, 'Stories/Story_u2.xml'), shoutXml(STORY_U2));
    // the zip as InDesign wants it: "mimetype" is the first local header, stored, no extra field
    assert.equal(out.readUInt32LE(0), 0x04034b50);
    assert.equal(out.readUInt16LE(8), 0, 'mimetype stored');
    assert.equal(out.toString('latin1', 30, 30 + out.readUInt16LE(26)), 'mimetype');
    assert.equal(out.readUInt16LE(28), 0, 'no extra field');
    assert.equal(out.toString('latin1', 38, 38 + 43), 'application/vnd.adobe.indesign-idml-package');
    // an identity translation gives every part back unchanged
    const same = await readZip(await doc.translateWith!(async (t) => t), 'test');
    for (const p of same) assert.ok(p.data.equals(before.find((x) => x.name === p.name)!.data), `${p.name} changed by identity`);
  });

  it('style ranges follow their words when the translation reorders them', async () => {
    const story = STORY_U2.replace(
      /<CharacterStyleRange[\s\S]*<\/CharacterStyleRange>/u,
      `<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/$ID/[No character style]"><Content>I have a </Content></CharacterStyleRange>` +
        `<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/Strong" FontStyle="Bold"><Content>red</Content></CharacterStyleRange>` +
        `<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/$ID/[No character style]"><Content> car.</Content><Br/><Content>Next one.</Content></CharacterStyleRange>`,
    );
    const parts = idmlParts().map(([n, c]) => [n, n === 'Stories/Story_u2.xml' ? story : c] as [string, string | Buffer]);
    const doc = await idmlFormat.extract(await zipParts(parts), ES);
    const out = await doc.translateWith!(
      dictionary({ 'I have a red car.': 'Tengo un coche rojo.', 'I have a': 'Tengo un', red: 'rojo', 'car.': 'coche.', 'Next one.': 'El siguiente.' }),
    );
    const xml = await storyOf(out, 'Stories/Story_u2.xml');
    const bold = /FontStyle="Bold"><Content>([^<]*)<\/Content>/u.exec(xml);
    assert.equal(bold?.[1], 'rojo');
    const text = [...xml.matchAll(/<Content>([^<]*)<\/Content>|<Br\/>/gu)].map((m) => m[1] ?? '\n').join('');
    assert.equal(text, 'Tengo un coche rojo.\nEl siguiente.');
    // every Content still inside a CharacterStyleRange, the <Br/> still inside the range that held it
    assert.ok(!/<\/CharacterStyleRange>\s*<Content>/u.test(xml));
    assert.match(xml, /<Content>El siguiente\.<\/Content><\/CharacterStyleRange>/u);
  });

  it('ranges that continue across <Br/> keep their place; the ranges between them follow their words', async () => {
    const N = 'AppliedCharacterStyle="CharacterStyle/$ID/[No character style]"';
    const story = STORY_U2.replace(
      /<CharacterStyleRange[\s\S]*<\/CharacterStyleRange>/u,
      `<CharacterStyleRange ${N}><Content>Intro.</Content><Br/><Content>I have a </Content></CharacterStyleRange>` +
        `<CharacterStyleRange FontStyle="Bold"><Content>red</Content></CharacterStyleRange><CharacterStyleRange ${N}><Content> car and the </Content></CharacterStyleRange>` +
        `<CharacterStyleRange FontStyle="Italic"><Content>old</Content></CharacterStyleRange>` +
        `<CharacterStyleRange ${N}><Content> house is big.<?ACE 18?></Content><Br/><Content>Next.</Content></CharacterStyleRange>`,
    );
    const parts = idmlParts()
      .filter(([n]) => n !== 'Stories/Story_u1.xml')
      .map(([n, c]) => [n, n === 'Stories/Story_u2.xml' ? story : c] as [string, string | Buffer]);
    const doc = await idmlFormat.extract(await zipParts(parts), ES);
    const sent: string[] = [];
    const table: Record<string, string> = { red: 'rojo', old: 'vieja' };
    const out = await doc.translateWith!(async (texts) => {
      sent.push(...texts);
      return texts.map((t) => (t.startsWith('I have a red') ? t.replace('I have a red car and the old house is big.', 'Tengo un coche rojo y la casa vieja es grande.') : (table[t] ?? shout(t))));
    });
    // plain ranges (including those that cross the <Br/>s) are not sent as tags: only the bold and italic ones are
    assert.deepEqual(sent.filter((t) => !/^(Intro\.|Next\.)$/.test(t)).slice(1).sort(), ['old', 'red']);
    const xml = await storyOf(out, 'Stories/Story_u2.xml');
    assert.match(xml, /FontStyle="Bold"><Content>rojo<\/Content>/u);
    assert.match(xml, /FontStyle="Italic"><Content>vieja<\/Content>/u);
    assert.match(xml, /<Content>INTRO\.<\/Content><Br\/><Content>Tengo un coche <\/Content><\/CharacterStyleRange>/u);
    assert.match(xml, /<Content> es grande\.<\?ACE 18\?><\/Content><Br\/><Content>NEXT\.<\/Content><\/CharacterStyleRange>/u);
  });

  it('rebuild (no tag placement) still writes a valid package', async () => {
    const doc = (await idmlFormat.extract(await buildIdml(), ES)) as ExtractedDocument;
    const out = await doc.rebuild(doc.segments.map((s) => shout(s.text)));
    const xml = await storyOf(out, 'Stories/Story_u1.xml');
    assert.match(xml, /THE CAT SLEEPS IN THE HOUSE &amp; THE DOG EATS\./u);
    assert.equal((await idmlFormat.extract(out, ES)).segments.length, doc.segments.length);
  });

  it('damaged packages are format errors: truncated, not a zip, zip bomb, forged sizes', async () => {
    const src = await buildIdml();
    await rejects(idmlFormat.extract(src.subarray(0, Math.floor(src.length / 2)), ES), /damaged or not a IDML package/);
    await rejects(idmlFormat.extract(Buffer.from('The house is big.'), ES), /damaged or not a IDML package/);
    const bomb = await zipParts([...idmlParts(), ['Resources/Huge.xml', Buffer.alloc(50 * 1024 * 1024)]]);
    assert.ok(bomb.length < 1024 * 1024);
    await rejects(idmlFormat.extract(bomb, ES), /zip bomb/);
    await rejects(readZip(src, 'IDML', { maxEntries: 100, maxTotalBytes: 1000, maxEntryBytes: 1e9, maxRatio: 200 }), /unpacks to more than 1000 bytes, the limit for all its parts/);
    await rejects(readZip(src, 'IDML', { maxEntries: 100, maxTotalBytes: 1e9, maxEntryBytes: 500, maxRatio: 200 }), /part .* unpacks to more than 500 bytes, the limit for one part/);
    await rejects(readZip(src, 'IDML', { maxEntries: 3, maxTotalBytes: 1e9, maxEntryBytes: 1e9, maxRatio: 200 }), /too many parts/);
    // a story that claims to be 10 bytes: inflating stops at the 11th and the package is refused
    await rejects(idmlFormat.extract(forgeSize(src, 'Stories/Story_u1.xml', 10), ES), /Story_u1\.xml unpacks to more than the 10 bytes its header declares/);
  });

  it('wrong mimetype, malformed story XML and DOCTYPE are format errors', async () => {
    const withPart = (name: string, content: string) => zipParts(idmlParts().map(([n, c]) => [n, n === name ? content : c] as [string, string | Buffer]));
    await rejects(idmlFormat.extract(await withPart('mimetype', 'application/zip'), ES), /not an IDML package/);
    await rejects(idmlFormat.extract(await zipParts(idmlParts().filter(([n]) => n !== 'mimetype')), ES), /not an IDML package/);
    await rejects(idmlFormat.extract(await withPart('Stories/Story_u1.xml', STORY_U1.replace('</Story>', '')), ES), /Story_u1\.xml is not well-formed XML/);
    const bomb = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>${STORY_U2.replace(/^<\?xml[^>]*>/u, '').replace('A photo', '&b;')}`;
    await rejects(idmlFormat.extract(await withPart('Stories/Story_u2.xml', bomb), ES), /DOCTYPE/);
  });
});

describe('mif', () => {
  const src = fixture('sample.mif');
  const text = src.toString('utf8');
  const statement = (s: string, name: string) => {
    const start = s.indexOf(`<${name}`);
    return s.slice(start, s.indexOf(`> # end of ${name}`, start));
  };

  it('registered for .mif', () => {
    assert.equal(new DocumentFormats().forFileName('chapter1.mif'), mifFormat);
  });

  it('one segment per Para of the text flow and tables; catalogs, markers and cross-reference text are not text', async () => {
    const doc = await mifFormat.extract(src, ES);
    assert.deepEqual(doc.segments.map((s) => s.text), [
      'The table is small.',
      'The garden of the house',
      'I have a red car and a big dog.',
      "The `cat' sleeps in the house and the dog eats > 2 times.The café is good.",
      'Today is  and the dog is in the garden.',
      'See  for the new house.',
    ]);
    assert.equal(doc.characters, doc.segments.reduce((n, s) => n + [...s.text].length, 0));
  });

  it('round trip: strings change, statements outside Paras byte for byte, fonts and tags kept in order', async () => {
    const doc = await mifFormat.extract(src, ES);
    const out = (await doc.translateWith!(shoutAll)).toString('utf8');
    for (const name of ['PgfCatalog', 'FontCatalog', 'VariableFormats', 'XRefFormats', 'Page', 'ColorCatalog']) assert.equal(statement(out, name), statement(text, name), name);
    assert.equal(out.slice(0, out.indexOf('<Tbls')), text.slice(0, text.indexOf('<Tbls')));
    // the bold Font still opens exactly the words it opened
    assert.match(out, /<FWeight `Bold'>\s*<FLocked No>\s*>\s*<String `RED CAR'>\s*<Font\s*<FTag `'>\s*<FLocked No>\s*>\s*<String ` AND A BIG DOG\.'>/u);
    // escapes written back; Tab, Variable, Marker, XRef (with its generated text) and HardReturn in place
    assert.match(out, /<String `THE \\QCAT\\q SLEEPS IN THE HOUSE AND THE DOG EATS \\> 2 TIMES\.'>\s*<Char Tab>\s*<String `THE CAFé IS GOOD\.'>/u);
    assert.match(out, /<MText `garden'>[\s\S]*?<String `TODAY IS '>\s*<Variable\s*<VariableName `Current Date \(Long\)'>\s*>\s*<String ` AND THE DOG IS IN THE GARDEN\.'>\s*<Char HardReturn>/u);
    assert.match(out, /<String `SEE '>\s*<XRef[\s\S]*?<String `\\QThe garden of the house\\q on page 1'>\s*<XRefEnd >\s*<String ` FOR THE NEW HOUSE\.'>/u);
    // the two-line Para keeps both ParaLines and their TextRectIDs
    assert.equal((out.match(/<ParaLine/gu) ?? []).length, (text.match(/<ParaLine/gu) ?? []).length);
    assert.equal((out.match(/<TextRectID 8>/gu) ?? []).length, (text.match(/<TextRectID 8>/gu) ?? []).length);
    // still MIF: the translated file parses and extracts the upper-cased text
    const again = await mifFormat.extract(Buffer.from(out, 'utf8'), ES);
    assert.deepEqual(again.segments.map((s) => s.text), doc.segments.map((s) => shout(s.text)));
    // an identity translation gives the file back byte for byte
    assert.ok((await doc.translateWith!(async (t) => t)).equals(src));
  });

  it('font changes follow their words when the translation reorders them', async () => {
    const doc = await mifFormat.extract(src, ES);
    const out = (
      await doc.translateWith!(dictionary({ 'I have a red car and a big dog.': 'Tengo un coche rojo y un perro grande.', 'I have a': 'Tengo un', 'red car': 'coche rojo', 'and a big dog.': 'y un perro grande.' }))
    ).toString('utf8');
    assert.match(out, /<String `Tengo un '>\s*<Font\s*<FTag `'>\s*<FWeight `Bold'>\s*<FLocked No>\s*>\s*<String `coche rojo'>\s*<Font\s*<FTag `'>\s*<FLocked No>\s*>\s*<String ` y un perro grande\.'>/u);
    // "big" moved behind the bold word: the words between the runs go to the longer (plain) run, not to the bold one
    const big = Buffer.from(text.replace("`I have a '", "`I have a big '").replace("`red car'", "`red'").replace("` and a big dog.'", "` car and a dog.'"));
    const out2 = (
      await (await mifFormat.extract(big, ES)).translateWith!(dictionary({ 'I have a big red car and a dog.': 'Tengo un coche rojo grande y un perro.', red: 'rojo', 'car and a dog.': 'coche y un perro.' }))
    ).toString('utf8');
    assert.match(out2, /<String `Tengo un coche '>\s*<Font\s*<FTag `'>\s*<FWeight `Bold'>\s*<FLocked No>\s*>\s*<String `rojo'>\s*<Font\s*<FTag `'>\s*<FLocked No>\s*>\s*<String ` grande y un perro\.'>/u);
  });

  it('rebuild (no tag placement) still writes MIF with the font changes', async () => {
    const doc = await mifFormat.extract(src, ES);
    const out = (await doc.rebuild(doc.segments.map((s) => shout(s.text)))).toString('utf8');
    assert.match(out, /<FWeight `Bold'>\s*<FLocked No>\s*>\s*<String `RED CAR'>/u);
    const again = await mifFormat.extract(Buffer.from(out, 'utf8'), ES);
    assert.deepEqual(again.segments.map((s) => s.text), doc.segments.map((s) => shout(s.text)));
  });

  it('string escapes decode and encode; legacy MIF writes FrameRoman \\xNN codes, Unicode MIF writes UTF-8', async () => {
    assert.equal(decodeMifString("`a\\tb \\> \\q\\Q \\\\ caf\\x8e  \\xc0 Qu\\x8e ?'"), "a\tb > '` \\ café ¿Qué?");
    assert.equal(encodeMifString("a\tb > '` \\ café ¿Qué?", false), "`a\\tb \\> \\q\\Q \\\\ caf\\x8e  \\xc0 Qu\\x8e ?'");
    assert.equal(encodeMifString('café ¿Qué?', true), "`café ¿Qué?'");
    assert.equal(encodeMifString('中 ő', false), "`? o'");
    for (const s of ['El café está en la casa — ¿sí? ñandú', "x `y' \\ >"]) assert.equal(decodeMifString(encodeMifString(s, false)).replace('—', '?'), s.replace('—', '?'));

    const legacy = Buffer.from(text.replace('<MIFFile 2015>', '<MIFFile 7.00>'), 'latin1');
    const doc = await mifFormat.extract(legacy, ES);
    assert.equal(doc.segments[3]!.text.endsWith('The café is good.'), true);
    const out = await doc.translateWith!(dictionary({ 'The table is small.': 'La mesa es pequeña.' }));
    assert.ok(out.every((b) => b < 0x80), 'legacy MIF output is ASCII');
    assert.match(out.toString('latin1'), /<String `La mesa es peque\\x96 a\.'>/u);
    const modern = (await (await mifFormat.extract(src, ES)).translateWith!(dictionary({ 'The table is small.': 'La mesa es pequeña.' }))).toString('utf8');
    assert.match(modern, /<String `La mesa es pequeña\.'>/u);
  });

  it('malformed MIF is a format error', async () => {
    const bad = (s: string) => mifFormat.extract(Buffer.from(s, 'utf8'), ES);
    await rejects(() => bad('The house is big.'), /not a MIF file/);
    await rejects(() => bad("<MIFFile 2015>\n<TextFlow <Para <ParaLine <String `abc'>>>\n"), /<TextFlow> is never closed/);
    await rejects(() => bad("<MIFFile 2015>\n<TextFlow <Para <ParaLine <String `abc>>>>\n"), /unterminated string/);
    await rejects(() => bad('<MIFFile 2015>\n> <Units Ucm>\n'), /'>' without a statement/);
    await rejects(() => bad('<MIFFile 2015>\n< Units>\n'), /without a statement name/);
    await rejects(() => mifFormat.extract(Buffer.concat([Buffer.from('<MIFFile 2015>\n<String `'), Buffer.from([0xff, 0xfe]), Buffer.from("'>\n")]), ES), /not valid UTF-8/);
    assert.equal(parseMif("<MIFFile 2015> # c\n<A <B `x\\'y'> # > not closing\n>\n")[1]!.children[0]!.name, 'B');
  });
});

describe('damaged input never crashes', () => {
  /** Extracts and translates; only a DocumentFormatError may come out. */
  const survive = async (extract: () => ExtractedDocument | Promise<ExtractedDocument>) => {
    try {
      const doc = await extract();
      if (doc.segments.length > 0) await doc.translateWith!(shoutAll);
      return 'ok';
    } catch (err) {
      assert.ok(err instanceof DocumentFormatError, `crashed: ${(err as Error).stack}`);
      return 'error';
    }
  };

  it('mif with bytes cut out anywhere, idml stories with bytes cut out, idml zips with flipped bytes', async () => {
    const seen = new Set<string>();
    const mif = fixture('sample.mif').toString('utf8');
    for (let i = 0; i < mif.length; i += 11) seen.add(await survive(() => mifFormat.extract(Buffer.from(mif.slice(0, i) + mif.slice(i + 3)), ES)));
    for (let i = 0; i < STORY_U1.length; i += 37) {
      const story = STORY_U1.slice(0, i) + STORY_U1.slice(i + 5);
      const zip = await zipParts(idmlParts().map(([n, c]) => [n, n === 'Stories/Story_u1.xml' ? story : c] as [string, string | Buffer]));
      seen.add(await survive(() => idmlFormat.extract(zip, ES)));
    }
    const zip = await buildIdml();
    for (let i = 0; i < zip.length; i += 61) {
      const damaged = Buffer.from(zip);
      damaged[i] = damaged[i]! ^ 0x5a;
      seen.add(await survive(() => idmlFormat.extract(damaged, ES)));
    }
    assert.deepEqual([...seen].sort(), ['error', 'ok']);
  });
});
