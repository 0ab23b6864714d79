// docx/pptx/xlsx on real LibreOffice-made fixtures: paragraphs are single segments, formatting follows the words through
// a stand-in translation that reorders them, untouched parts come back byte for byte, and bad packages are refused.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { docxFormat, pptxFormat, xlsxFormat, WATERMARK_TEXT } from '../../src/documents/formats/ooxml.js';
import { DocumentFormatError, REFERENCE_MINIMUM_BILLED_CHARACTERS, type DocumentFormat } from '../../src/documents/formats/format.js';
import { DocumentFormats } from '../../src/documents/formats/index.js';
import { streamPart } from '../../src/documents/formats/ooxml-stream.js';
import { unzipAll, zipOf } from '../helpers/zip.js';

const FIXTURES = new URL('../../../test/fixtures/documents/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));
const ES = { targetLang: 'es' };
/** A visible stand-in engine that reorders words (so positions alone cannot place formatting) and upper-cases them. */
const extracting = async (format: DocumentFormat, input: Buffer) => format.extract(input, ES);
const reverseWords = async (texts: string[]) => texts.map((t) => t.split(' ').reverse().join(' ').toUpperCase());

async function translate(format: DocumentFormat, file: string, options: { watermark?: boolean } = {}) {
  const src = fixture(file);
  const doc = await format.extract(src, { ...ES, ...options });
  const out = await doc.translateWith!(reverseWords);
  return { doc, before: new Map(await unzipAll(src)), after: await unzipAll(out), out };
}

/** [run properties, text] of every text run of a WordprocessingML or DrawingML part. */
function runs(xml: string, p: 'w' | 'a'): [string, string][] {
  const re = new RegExp(`<${p}:r>(<${p}:rPr(?:/>|[^>]*/>|[^>]*>.*?</${p}:rPr>))?<${p}:t[^>]*>([^<]*)</${p}:t></${p}:r>`, 'g');
  return [...xml.matchAll(re)].map((m) => [m[1] ?? '', m[2]!]);
}

function assertUntouched(before: Map<string, Buffer>, after: [string, Buffer][], changed: string[]) {
  assert.deepEqual(after.map(([n]) => n), [...before.keys()], 'same entries in the same order');
  for (const [name, data] of after) {
    if (changed.includes(name)) assert.notDeepEqual(data, before.get(name), `${name} is translated`);
    else assert.deepEqual(data, before.get(name), `${name} is byte-identical`);
  }
}

/** Every complex field's characters come in order: begin, optionally separate, end (properly nested). */
function assertFieldsNest(xml: string) {
  const stack: string[] = [];
  for (const [, type] of xml.matchAll(/fldCharType="(\w+)"/g)) {
    if (type === 'begin') stack.push('begin');
    else if (type === 'separate') {
      assert.equal(stack[stack.length - 1], 'begin', 'separate after begin');
      stack[stack.length - 1] = 'separate';
    } else assert.ok(stack.pop(), 'end after begin');
  }
  assert.deepEqual(stack, []);
}

describe('docx', () => {
  it('extracts each paragraph as one segment, a sentence split over differently formatted runs included', async () => {
    const doc = await docxFormat.extract(fixture('sample.docx'), ES);
    const texts = doc.segments.map((s) => s.text);
    assert.ok(texts.includes('The cat sleeps in the big red house every day.'));
    assert.ok(texts.includes('Read the new book about the sea.'));
    assert.ok(texts.includes('The annual report of the garden club'), 'header');
    assert.ok(texts.includes('Written by the secretary of the club'), 'footer');
    assert.ok(texts.includes('The letters are very old.'), 'footnote');
    assert.ok(texts.includes('The white dog'), 'table cell');
    assert.equal(doc.characters, texts.reduce((n, t) => n + [...t].length, 0));
  });

  it('round trip: formatting follows the words, tabs/links/notes stay, other parts byte-identical', async () => {
    const { before, after } = await translate(docxFormat, 'sample.docx');
    assertUntouched(before, after, ['word/document.xml', 'word/header1.xml', 'word/footer1.xml', 'word/footnotes.xml']);
    const xml = new Map(after).get('word/document.xml')!.toString('utf8');
    const r = runs(xml, 'w');
    // "big red" was bold: after reordering, the bold run holds exactly its translation.
    assert.deepEqual(r.filter(([p]) => p.includes('<w:b/>')).map(([, t]) => t), ['RED BIG']);
    assert.deepEqual(r.filter(([p]) => p.includes('<w:i/>')).map(([, t]) => t), ['LETTERS LONG WRITES']);
    assert.match(xml, /<w:hyperlink r:id="rId2"><w:r><w:rPr><w:rStyle w:val="InternetLink"\/><\/w:rPr><w:t>BOOK NEW<\/w:t><\/w:r><\/w:hyperlink>/);
    assert.match(xml, /<w:t>APPLES TOTAL:<\/w:t><\/w:r><w:r><w:rPr><\/w:rPr><w:tab\/><\/w:r><w:r><w:rPr><\/w:rPr><w:t>42<\/w:t>/);
    assert.match(xml, / BROTHER MY<\/w:t><\/w:r><w:r><w:rPr><w:rStyle w:val="FootnoteAnchor"\/><\/w:rPr><w:footnoteReference w:id="2"\/><\/w:r><\/w:p>/);
    assert.ok(xml.includes('<w:t>HOUSE RED THE</w:t>'));
    // outside paragraphs the XML is unchanged: table properties, section properties
    const src = before.get('word/document.xml')!.toString('utf8');
    const sect = (s: string) => s.slice(s.indexOf('<w:sectPr>'));
    assert.equal(sect(xml), sect(src));
    assert.ok(!xml.includes(WATERMARK_TEXT));
    assert.match(new Map(after).get('word/footnotes.xml')!.toString('utf8'), /<w:footnoteRef\/><\/w:r><w:r><w:rPr><\/w:rPr><w:t>OLD\. VERY ARE LETTERS THE<\/w:t>/);
  });

  it('a richer document: TOC, tracked deletion, comment, image, text box, list, cross-reference field, page field', async () => {
    const { doc, before, after } = await translate(docxFormat, 'rich.docx');
    const texts = doc.segments.map((s) => s.text);
    for (const t of ['The teacher opens the window.', 'The text inside the box', 'Check this sentence please.', 'See The first chapter for details.', 'Page 1 of the report']) {
      assert.ok(texts.includes(t), t);
    }
    assert.ok(!texts.some((t) => /removed words|TOC|REF intro|PAGE/.test(t)), 'no deleted text or field code is translated');
    assertUntouched(before, after, ['word/document.xml', 'word/comments.xml', 'word/footer1.xml']);
    assert.deepEqual(new Map(after).get('word/media/image1.png'), before.get('word/media/image1.png'));
    const xml = new Map(after).get('word/document.xml')!.toString('utf8');
    for (const kept of ['<w:delText>removed words</w:delText>', '<w:instrText xml:space="preserve"> TOC \\f \\o &quot;1-2&quot; \\h</w:instrText>', '<w:instrText xml:space="preserve"> REF intro \\h </w:instrText>', '<w:commentReference w:id="0"/>', '<a:blip r:embed="rId2">', '<w:bookmarkStart w:id="0" w:name="intro"/>']) {
      assert.ok(xml.includes(kept), kept);
    }
    // the text box is translated in both the DrawingML choice and its VML fallback
    assert.equal([...xml.matchAll(/<w:t>BOX THE INSIDE TEXT THE<\/w:t>/g)].length, 2);
    // the image moves with the sentence order, keeping the blanks it had on both sides; the bold words stay bold
    assert.match(xml, /OLD THE <\/w:t><\/w:r><w:r><w:rPr><\/w:rPr><w:drawing>.*?<\/w:drawing><\/w:r>(<w:r><w:rPr><\/w:rPr><w:t xml:space="preserve"> <\/w:t><\/w:r>)?<w:r><w:rPr><w:b\/><\/w:rPr><w:t>MORNING\.? THE IN<\/w:t>/);
    // a field keeps begin → instruction → separate → result → end around its translated result text
    assert.match(xml, /<w:t xml:space="preserve">DETAILS\. FOR <\/w:t><\/w:r><w:r><w:rPr><\/w:rPr><w:fldChar w:fldCharType="begin"><\/w:fldChar><\/w:r><w:r><w:rPr><\/w:rPr><w:instrText xml:space="preserve"> REF intro \\h <\/w:instrText><\/w:r><w:r><w:rPr><\/w:rPr><w:fldChar w:fldCharType="separate"\/><\/w:r><w:r><w:rPr><\/w:rPr><w:t>CHAPTER FIRST THE<\/w:t><\/w:r><w:r><w:rPr><\/w:rPr><w:fldChar w:fldCharType="end"\/><\/w:r><w:r><w:rPr><\/w:rPr><w:t xml:space="preserve"> SEE<\/w:t>/);
    for (const part of ['word/document.xml', 'word/footer1.xml']) assertFieldsNest(new Map(after).get(part)!.toString('utf8'));
    assert.match(new Map(after).get('word/comments.xml')!.toString('utf8'), /<w:t>PLEASE\. SENTENCE THIS CHECK<\/w:t>/);
  });

  it('re-attaches tabs, images, notes and fields whose placeholders the engine drops', async () => {
    for (const file of ['sample.docx', 'rich.docx']) {
      const src = fixture(file);
      const doc = await docxFormat.extract(src, ES);
      const dropping = async (texts: string[]) => texts.map((t) => t.replace(/⟦\/?\d+\/?⟧/g, '').toUpperCase());
      const before = new Map(await unzipAll(src)).get('word/document.xml')!.toString('utf8');
      const xml = new Map(await unzipAll(await doc.translateWith!(dropping))).get('word/document.xml')!.toString('utf8');
      for (const tag of ['<w:tab/>', '<w:footnoteReference', '<w:drawing>', '<w:instrText', '<w:commentReference', '<w:delText>']) {
        assert.equal(xml.split(tag).length, before.split(tag).length, `${file}: every ${tag} kept`);
      }
      assertFieldsNest(xml);
    }
  });

  it('enable_watermark adds a visible paragraph at the end of the body, before the section properties', async () => {
    const { after } = await translate(docxFormat, 'sample.docx', { watermark: true });
    const xml = new Map(after).get('word/document.xml')!.toString('utf8');
    assert.match(xml, new RegExp(`<w:t>${WATERMARK_TEXT}</w:t></w:r></w:p><w:sectPr>`));
    // other formats ignore it
    const p = await translate(pptxFormat, 'sample.pptx', { watermark: true });
    assert.ok(!p.after.some(([, d]) => d.includes(WATERMARK_TEXT)));
  });

  it('billing minimum, size limit and registration', () => {
    const formats = new DocumentFormats();
    for (const [ext, f] of [['docx', docxFormat], ['pptx', pptxFormat], ['xlsx', xlsxFormat]] as const) {
      assert.equal(formats.forFileName(`a.${ext.toUpperCase()}`), f);
      assert.equal(f.minimumBilledCharacters, REFERENCE_MINIMUM_BILLED_CHARACTERS);
      assert.equal(f.maxBytes, 100 * 1024 * 1024);
    }
  });
});

describe('pptx', () => {
  it('translates slides and notes; bold span follows its words; masters and layouts untouched', async () => {
    const { doc, before, after } = await translate(pptxFormat, 'sample.pptx');
    assert.deepEqual(new Set(doc.segments.map((s) => s.text)), new Set([
      'The green garden', 'The children play in the small green garden.', 'My sister reads a book.', 'Speak slowly about the garden.',
    ]));
    assertUntouched(before, after, ['ppt/slides/slide1.xml', 'ppt/notesSlides/notesSlide1.xml']);
    const xml = new Map(after).get('ppt/slides/slide1.xml')!.toString('utf8');
    const r = runs(xml, 'a');
    assert.deepEqual(r.filter(([p]) => p.includes('b="1"')).map(([, t]) => t), ['GREEN SMALL']);
    assert.deepEqual(r.map(([, t]) => t).join('|'), 'GARDEN GREEN THE|GARDEN. |GREEN SMALL| THE IN PLAY CHILDREN THE|BOOK. A READS SISTER MY');
    assert.ok(xml.includes('<a:endParaRPr'), 'paragraph end properties kept');
    // translated runs are marked with the target language
    assert.equal([...xml.matchAll(/<a:rPr [^>]*lang="es"/g)].length, r.length);
    assert.doesNotMatch(xml, /<a:rPr [^>]*lang="en-US"/);
  });
});

describe('xlsx', () => {
  it('translates shared strings (rich runs too); numbers, formulas and sheet names untouched', async () => {
    const { doc, before, after } = await translate(xlsxFormat, 'sample.xlsx');
    assert.deepEqual(doc.segments.map((s) => s.text), ['The red apple', 'The yellow house']);
    assertUntouched(before, after, ['xl/sharedStrings.xml']);
    const xml = new Map(after).get('xl/sharedStrings.xml')!.toString('utf8');
    assert.match(xml, /<si><t>APPLE RED THE<\/t><\/si>/);
    assert.match(xml, /<r><rPr><b val="true"\/>[^]*?<\/rPr><t>YELLOW<\/t><\/r>/);
    assert.match(xml, /^<\?xml[^]*count="3" uniqueCount="2">/);
  });

  it('translates inline strings in sheets and leaves other cells alone', async () => {
    const src = new Map(await unzipAll(fixture('sample.xlsx')));
    const sheet = src.get('xl/worksheets/sheet1.xml')!.toString('utf8').replace(/<c r="A1" s="0" t="s"><v>0<\/v><\/c>/, '<c r="A1" t="inlineStr"><is><t>The old tree</t></is></c>');
    assert.ok(sheet.includes('inlineStr'));
    src.set('xl/worksheets/sheet1.xml', Buffer.from(sheet));
    const doc = await xlsxFormat.extract(await zipOf([...src]), ES);
    assert.ok(doc.segments.some((s) => s.text === 'The old tree'));
    const out = new Map(await unzipAll(await doc.translateWith!(reverseWords)));
    const xml = out.get('xl/worksheets/sheet1.xml')!.toString('utf8');
    assert.equal(xml, sheet.replace('<t>The old tree</t>', '<t>TREE OLD THE</t>'));
  });
});

describe('Word paragraph details', () => {
  const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
  const CT = `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
  const docx = (body: string) => zipOf([['[Content_Types].xml', CT], ['word/document.xml', `<?xml version="1.0"?><w:document ${W}><w:body>${body}</w:body></w:document>`]]);

  it('skips field codes and deleted text, keeps field results, text boxes are paragraphs of their own', async () => {
    const body =
      '<w:p><w:r><w:t xml:space="preserve">See page </w:t></w:r><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGEREF intro </w:instrText></w:r>' +
      '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>3</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r><w:del w:id="1"><w:r><w:delText>old words</w:delText></w:r></w:del>' +
      '<w:r><w:t xml:space="preserve"> for the rules</w:t></w:r><w:r><w:drawing><w:txbxContent><w:p><w:r><w:t>The box text</w:t></w:r></w:p></w:txbxContent></w:drawing></w:r></w:p>';
    const doc = await docxFormat.extract(await docx(body), ES);
    assert.deepEqual(doc.segments.map((s) => s.text), ['See page 3 for the rules', 'The box text']);
    const out = new Map(await unzipAll(await doc.translateWith!(async (t) => t.map((s) => s.toUpperCase()))));
    const xml = out.get('word/document.xml')!.toString('utf8');
    for (const kept of ['<w:instrText> PAGEREF intro </w:instrText>', '<w:delText>old words</w:delText>', '<w:fldChar w:fldCharType="end"/>']) assert.ok(xml.includes(kept), kept);
    assert.ok(xml.includes('<w:t>THE BOX TEXT</w:t>'));
    assert.ok(xml.includes('<w:t xml:space="preserve">SEE PAGE </w:t>'));
    assert.ok(xml.includes('<w:t xml:space="preserve"> FOR THE RULES</w:t>'));
  });

  it('translates chart titles and cached category labels (what the chart shows); number formats alone', async () => {
    const chart =
      '<?xml version="1.0"?><c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">' +
      '<c:chart><c:title><c:tx><c:rich><a:bodyPr/><a:p><a:r><a:rPr lang="en-US" b="1"/><a:t>Sales of the year</a:t></a:r></a:p></c:rich></c:tx></c:title>' +
      '<c:plotArea><c:barChart><c:ser><c:cat><c:strRef><c:strCache><c:pt idx="0"><c:v>North</c:v></c:pt></c:strCache></c:strRef></c:cat></c:ser></c:barChart></c:plotArea>' +
      '<c:txPr><a:bodyPr/><a:p><a:pPr><a:defRPr/></a:pPr><a:endParaRPr lang="en-US"/></a:p></c:txPr></c:chart></c:chartSpace>';
    const types = CT.replace('</Types>', '<Override PartName="/word/charts/chart1.xml" ContentType="application/vnd.openxmlformats-officedocument.drawingml.chart+xml"/></Types>');
    const pkg = await zipOf([
      ['[Content_Types].xml', types],
      ['word/document.xml', `<w:document ${W}><w:body><w:p><w:r><w:t>The chart below</w:t></w:r></w:p></w:body></w:document>`],
      ['word/charts/chart1.xml', chart],
    ]);
    const doc = await docxFormat.extract(pkg, ES);
    assert.deepEqual(doc.segments.map((s) => s.text), ['The chart below', 'Sales of the year', 'North']);
    const out = new Map(await unzipAll(await doc.translateWith!(async (t) => t.map((s) => s.toUpperCase()))));
    assert.equal(out.get('word/charts/chart1.xml')!.toString('utf8'), chart.replace('<a:rPr lang="en-US" b="1"/><a:t>Sales of the year', '<a:rPr lang="es" b="1"/><a:t>SALES OF THE YEAR').replace('<c:v>North', '<c:v>NORTH'));
  });

  it('rebuild without tag placement keeps runs, tabs and links in their relative places', async () => {
    const body = '<w:p><w:r><w:t xml:space="preserve">Dear </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>friend</w:t></w:r><w:r><w:tab/><w:t>hello</w:t></w:r></w:p>';
    const doc = await docxFormat.extract(await docx(body), ES);
    assert.deepEqual(doc.segments.map((s) => s.text), ['Dear friendhello']);
    const out = new Map(await unzipAll(await doc.rebuild(['Querido amigohola'])));
    const xml = out.get('word/document.xml')!.toString('utf8');
    // the whole translation is there, in runs that keep the bold span and the tab in source order, cut at word edges
    const pieces = [...xml.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/g)].map((m) => m[1]!);
    assert.equal(pieces.join(''), 'Querido amigohola');
    assert.match(xml, /<w:rPr><w:b\/><\/w:rPr><w:t[^>]*>[^<]+<\/w:t><\/w:r>.*<w:tab\/>/);
    let at = 0;
    for (const p of pieces.slice(0, -1)) {
      at += p.length;
      assert.ok(/\s/.test('Querido amigohola'[at]!) || /\s/.test('Querido amigohola'[at - 1]!), `no word cut at ${at}`);
    }
  });

  it('alternative renderings and moved-away text are kept verbatim, not read twice', async () => {
    const body =
      '<w:p><w:r><w:t xml:space="preserve">The sun </w:t></w:r><w:moveFrom w:id="1"><w:r><w:t>shines</w:t></w:r></w:moveFrom>' +
      '<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="w14"><w:r><w:t>A</w:t></w:r></mc:Choice><mc:Fallback><w:r><w:t>A</w:t></w:r></mc:Fallback></mc:AlternateContent>' +
      '<w:r><w:t xml:space="preserve"> today.</w:t></w:r></w:p>';
    const doc = await docxFormat.extract(await docx(body), ES);
    assert.deepEqual(doc.segments.map((s) => s.text), ['The sun  today.']);
    const xml = new Map(await unzipAll(await doc.translateWith!(async (t) => t.map((s) => s.toUpperCase())))).get('word/document.xml')!.toString('utf8');
    assert.ok(xml.includes('<w:moveFrom w:id="1"><w:r><w:t>shines</w:t></w:r></w:moveFrom>'));
    assert.ok(xml.includes('<mc:Fallback><w:r><w:t>A</w:t></w:r></mc:Fallback>'));
  });

  it('the watermark goes before </w:body> when the body has no section properties', async () => {
    const doc = await docxFormat.extract(await docx('<w:p><w:r><w:t>The end</w:t></w:r></w:p>'), { ...ES, watermark: true });
    const xml = new Map(await unzipAll(await doc.translateWith!(async (t) => t))).get('word/document.xml')!.toString('utf8');
    assert.ok(xml.endsWith(`<w:t>The end</w:t></w:r></w:p><w:p><w:pPr><w:jc w:val="center"/></w:pPr><w:r><w:rPr><w:i/><w:color w:val="808080"/></w:rPr><w:t>${WATERMARK_TEXT}</w:t></w:r></w:p></w:body></w:document>`), xml);
  });

  it('reads and writes a UTF-16 part in UTF-16', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-16"?><w:document ${W}><w:body><w:p><w:r><w:t>The green tree</w:t></w:r></w:p></w:body></w:document>`;
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]);
    const doc = await docxFormat.extract(await zipOf([['[Content_Types].xml', CT], ['word/document.xml', utf16]]), ES);
    const out = new Map(await unzipAll(await doc.translateWith!(async (t) => t.map((s) => s.toUpperCase())))).get('word/document.xml')!;
    assert.deepEqual(out.subarray(0, 2), Buffer.from([0xff, 0xfe]));
    assert.ok(out.subarray(2).toString('utf16le').includes('<w:t>THE GREEN TREE</w:t>'));
  });

  it('sets the language of translated runs to the target', async () => {
    const body = '<w:p><w:r><w:rPr><w:lang w:val="en-GB" w:eastAsia="zh-CN"/></w:rPr><w:t>The cat sleeps.</w:t></w:r></w:p>';
    const doc = await docxFormat.extract(await docx(body), { targetLang: 'pt-BR' });
    const out = new Map(await unzipAll(await doc.translateWith!(async (t) => t)));
    assert.ok(out.get('word/document.xml')!.toString('utf8').includes('<w:rPr><w:lang w:val="pt-BR" w:eastAsia="zh-CN"/></w:rPr><w:t>The cat sleeps.</w:t>'));
  });

  it('an identity translation gives the same text runs back', async () => {
    const body = '<w:p><w:r><w:t xml:space="preserve">The cat </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>sleeps</w:t></w:r><w:r><w:t xml:space="preserve"> here &amp; there.</w:t></w:r></w:p>';
    const doc = await docxFormat.extract(await docx(body), ES);
    const out = new Map(await unzipAll(await doc.translateWith!(async (t) => t)));
    assert.ok(out.get('word/document.xml')!.toString('utf8').includes(body));
  });

  it('refuses a DOCTYPE (billion laughs) and malformed XML', async () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><w:document ${W}><w:body><w:p><w:r><w:t>&lol2;</w:t></w:r></w:p></w:body></w:document>`;
    const bomb = await zipOf([['[Content_Types].xml', CT], ['word/document.xml', laughs]]);
    await assert.rejects(extracting(docxFormat, bomb), (e: Error) => e instanceof DocumentFormatError && /DOCTYPE/.test(e.message));
    await assert.rejects(extracting(docxFormat, await docx('<w:p><w:r><w:t>open</w:r></w:p>')), (e: Error) => e instanceof DocumentFormatError && /malformed XML/.test(e.message));
  });
});

describe('DrawingML details', () => {
  it('line breaks and slide-number fields stay verbatim inside the translated paragraph', () => {
    const A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';
    const xml = `<a:txBody ${A}><a:p><a:r><a:rPr lang="en-US"/><a:t>Slide</a:t></a:r><a:fld id="{1}" type="slidenum"><a:rPr lang="en-US"/><a:t>3</a:t></a:fld><a:r><a:rPr lang="en-US"/><a:t> of the deck</a:t></a:r><a:br><a:rPr lang="en-US"/></a:br><a:r><a:rPr lang="en-US"/><a:t>by the team</a:t></a:r><a:endParaRPr lang="en-US"/></a:p></a:txBody>`;
    const part = streamPart(xml, 'test', 'es', Infinity);
    const plan = part.next()!;
    assert.equal(part.next(), undefined);
    assert.deepEqual(plan.units.map((u) => u.text), ['Slide of the deckby the team']);
    plan.render(plan.units.map((u) => ({ ...u, text: u.text.toUpperCase() })));
    const out = part.finish();
    assert.equal(out, xml.replace(/lang="en-US"\/><a:t>([^<]*)/g, (_m, t: string) => `lang="es"/><a:t>${t.toUpperCase()}`).replace('lang="es"/><a:t>3', 'lang="en-US"/><a:t>3'));
  });
});

describe('bad packages', () => {
  const isFormatError = (pattern: RegExp) => (e: Error) => e instanceof DocumentFormatError && pattern.test(e.message);

  it('refuses a file that is not a ZIP, a truncated ZIP and a package of another kind', async () => {
    await assert.rejects(extracting(docxFormat, Buffer.from('just some text, not a document')), isFormatError(/not a Word \(docx\) document/));
    const ole = Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(504)]);
    await assert.rejects(extracting(docxFormat, ole), isFormatError(/password protected or a legacy binary Office file/));
    const full = fixture('sample.docx');
    await assert.rejects(extracting(docxFormat, full.subarray(0, Math.floor(full.length / 2))), isFormatError(/damaged/));
    await assert.rejects(extracting(docxFormat, fixture('sample.pptx')), isFormatError(/main part is missing/));
    await assert.rejects(extracting(xlsxFormat, fixture('sample.docx')), isFormatError(/not a Excel|main part is missing/));
  });

  it('refuses a zip bomb before inflating it', async () => {
    const bomb = await zipOf([['[Content_Types].xml', '<Types/>'], ['word/document.xml', Buffer.alloc(20 * 1024 * 1024)]]);
    assert.ok(bomb.length < 200_000);
    const heapBefore = process.memoryUsage().heapUsed;
    await assert.rejects(extracting(docxFormat, bomb), isFormatError(/zip bomb/));
    assert.ok(process.memoryUsage().heapUsed - heapBefore < 15 * 1024 * 1024);
  });

  it('refuses a package with more entries than the limit', async () => {
    // The count is checked from the end-of-central-directory record, before any entry is listed.
    const many = await zipOf([['[Content_Types].xml', '<Types/>'], ['a.bin', 'x']]);
    const eocd = many.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    assert.equal(many.readUInt16LE(eocd + 10), 2);
    many.writeUInt16LE(10_001, eocd + 8);
    many.writeUInt16LE(10_001, eocd + 10);
    await assert.rejects(extracting(docxFormat, many), isFormatError(/too many parts/));
  });

  it('refuses an entry whose data is larger than its declared size (forged central directory)', async () => {
    const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
    const CT = `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
    const docXml = `<w:document ${W}><w:body><w:p><w:r><w:t>${'The cat sleeps. '.repeat(100)}</w:t></w:r></w:p></w:body></w:document>`;
    const zip = await zipOf([['[Content_Types].xml', CT], ['word/document.xml', docXml]]);
    // Central directory record of the second entry: uncompressed size at offset 24.
    let at = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    at = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4);
    assert.equal(zip.readUInt32LE(at + 24), Buffer.byteLength(docXml));
    zip.writeUInt32LE(100, at + 24);
    await assert.rejects(extracting(docxFormat, zip), isFormatError(/unpacks to more than the 100 bytes its header declares/));
  });
});
