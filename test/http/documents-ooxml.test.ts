// docx/pptx/xlsx through /v2/document with real Apertium en→es: the downloaded package holds Spanish text with its
// formatting, untouched parts are byte-identical, the 50,000-character minimum is billed, and bad packages end in error.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authHeaders, type TestAccount, type TestContext } from '../helpers/harness.js';
import { createDocumentsTestApp, fixture, type DocumentsTestApp } from '../helpers/documents.js';
import type { Part } from '../documents/multipart.js';
import { unzipAll, zipOf } from '../helpers/zip.js';

let app: DocumentsTestApp;
let ctx: TestContext;
let pro: TestAccount;
before(async () => {
  app = await createDocumentsTestApp();
  ({ ctx, account: pro } = app);
});
after(async () => app.close());

/** Uploads, waits for the job to end and returns its final status and (when done) the downloaded file. */
const translateFile = (parts: Part[]) => app.client.translateFile(parts);

const textOf = (xml: string, t: string) => [...xml.matchAll(new RegExp(`<${t}(?: [^>]*)?>([^<]*)</${t}>`, 'g'))].map((m) => m[1]).join(' ');

describe('Office documents en→es with Apertium', () => {
  it('docx: Spanish paragraphs, bold words still bold, watermark, other parts byte-identical, minimum billed', async () => {
    const src = fixture('sample.docx');
    const { status, file } = await translateFile([
      { name: 'file', filename: 'report.docx', content: src },
      { name: 'source_lang', value: 'EN' },
      { name: 'target_lang', value: 'ES' },
      { name: 'enable_watermark', value: '1' },
    ]);
    assert.equal(status.status, 'done', JSON.stringify(status));
    assert.equal(status.billed_characters, 50_000);
    assert.equal(file!.type, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    const before = new Map(await unzipAll(src));
    const after = new Map(await unzipAll(file!.data));
    assert.deepEqual([...after.keys()], [...before.keys()]);
    for (const name of ['word/styles.xml', 'word/numbering.xml', '[Content_Types].xml', 'word/_rels/document.xml.rels']) {
      assert.deepEqual(after.get(name), before.get(name), name);
    }
    const xml = after.get('word/document.xml')!.toString('utf8');
    const text = textOf(xml, 'w:t');
    for (const word of [/gato/i, /casa/i, /perro/i, /caballo/i, /libro/i, /hermano/i]) assert.match(text, word);
    assert.doesNotMatch(text, /\bThe cat\b|\bhouse\b/);
    const bold = [...xml.matchAll(/<w:rPr><w:b\/><\/w:rPr><w:t[^>]*>([^<]*)<\/w:t>/g)].map((m) => m[1]!);
    assert.equal(bold.length, 1);
    assert.match(bold[0]!, /roj|grande/i);
    assert.match(xml, /<w:hyperlink r:id="rId2">.*?<w:t>[^<]*libro[^<]*<\/w:t>.*?<\/w:hyperlink>/i);
    assert.match(xml, /<w:t>Translated by Tolk<\/w:t>/);
    assert.match(textOf(after.get('word/header1.xml')!.toString('utf8'), 'w:t'), /club/i);
    assert.match(textOf(after.get('word/footnotes.xml')!.toString('utf8'), 'w:t'), /viejas/i);
  });

  it('pptx and xlsx: slide, notes and shared strings in Spanish; numbers and formulas untouched', async () => {
    const pptx = await translateFile([{ name: 'file', filename: 'deck.pptx', content: fixture('sample.pptx') }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }]);
    assert.equal(pptx.status.status, 'done', JSON.stringify(pptx.status));
    const slides = new Map(await unzipAll(pptx.file!.data));
    assert.match(textOf(slides.get('ppt/slides/slide1.xml')!.toString('utf8'), 'a:t'), /jard[ií]n/i);
    assert.match(textOf(slides.get('ppt/notesSlides/notesSlide1.xml')!.toString('utf8'), 'a:t'), /jard[ií]n/i);

    const src = fixture('sample.xlsx');
    const xlsx = await translateFile([{ name: 'file', filename: 'fruit.xlsx', content: src }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }]);
    assert.equal(xlsx.status.status, 'done', JSON.stringify(xlsx.status));
    const book = new Map(await unzipAll(xlsx.file!.data));
    assert.match(textOf(book.get('xl/sharedStrings.xml')!.toString('utf8'), 't'), /manzana/i);
    assert.deepEqual(book.get('xl/worksheets/sheet1.xml'), new Map(await unzipAll(src)).get('xl/worksheets/sheet1.xml'));
  });

  it('a zip bomb and a damaged package end in error with a message', async () => {
    const bomb = await zipOf([['[Content_Types].xml', '<Types/>'], ['word/document.xml', Buffer.alloc(20 * 1024 * 1024)]]);
    const b = await translateFile([{ name: 'file', filename: 'bomb.docx', content: bomb }, { name: 'target_lang', value: 'ES' }]);
    assert.equal(b.status.status, 'error');
    assert.match(String(b.status.error_message), /zip bomb/);
    const cut = fixture('sample.docx').subarray(0, 3000);
    const c = await translateFile([{ name: 'file', filename: 'cut.docx', content: cut }, { name: 'target_lang', value: 'ES' }]);
    assert.equal(c.status.status, 'error');
    assert.match(String(c.status.error_message), /damaged/);
  });
});
