// PDF through /v2/document with real Apertium en→es: the translated PDF keeps pages, sizes, image and graphics,
// reads as Spanish (pdf.js and poppler), bills the reference minimum; bad PDFs end in a clear error status.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authHeaders, type TestAccount, type TestContext } from '../helpers/harness.js';
import { createDocumentsTestApp, fixture, type DocumentsTestApp } from '../helpers/documents.js';
import type { Part } from '../documents/multipart.js';
import { flat, inspectPdf, pdftotext } from '../documents/pdf-inspect.js';
import { docxFormat } from '../../src/documents/formats/ooxml.js';
import { waitFor } from '../helpers/wait.js';

let app: DocumentsTestApp;
let ctx: TestContext;
let pro: TestAccount;
before(async () => {
  app = await createDocumentsTestApp();
  ({ ctx, account: pro } = app);
});
after(async () => app.close());

const upload = (parts: Part[]) => app.client.upload(parts);
const download = (id: string, key: string) => app.client.download(id, key);

/** Uploads a sample file en→es and waits for the job to end (without downloading it). */
async function translate(file: string, extra: Part[] = []) {
  const res = await upload([{ name: 'file', filename: file, content: fixture(file) }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }, ...extra]);
  assert.equal(res.statusCode, 200, res.body);
  const { document_id: id, document_key: key } = res.json() as { document_id: string; document_key: string };
  return { id, key, status: await app.client.waitFor(id, key) };
}

/** Sentences of sample.pdf that a translation must not leave in English. */
const ENGLISH = [
  'The old house stands next to the river.',
  'My grandmother lived there for many years',
  'The village is small and quiet.',
  'The kitchen is big and bright.',
  'The garden is behind the house.',
  'We eat dinner outside when the weather is good.',
];

describe('pdf documents over HTTP', () => {
  it('translates a two-page PDF en→es keeping pages, image and graphics; bills the 50,000 minimum', async () => {
    const { id, key, status } = await translate('sample.pdf', [{ name: 'enable_watermark', value: 'true' }]);
    assert.equal(status.status, 'done', status.error_message);
    assert.equal(status.billed_characters, 50_000);
    const dl = await download(id, key);
    assert.equal(dl.statusCode, 200, dl.body);
    assert.equal(dl.headers['content-type'], 'application/pdf');
    const out = dl.rawPayload;
    const before = await inspectPdf(fixture('sample.pdf'));
    const after = await inspectPdf(out);
    assert.equal(after.length, 2);
    for (let p = 0; p < 2; p++) {
      assert.deepEqual(after[p]!.size, before[p]!.size);
      assert.equal(after[p]!.images, before[p]!.images);
      assert.ok(after[p]!.paths >= before[p]!.paths);
      assert.match(after[p]!.text, /Translated by Tolk/);
    }
    assert.equal(after[0]!.images, 1);
    const text = flat(after.map((p) => p.text).join(' '));
    for (const word of ['casa', 'río', 'abuela', 'perros', 'pueblo', 'cocina', 'jardín']) assert.match(text, new RegExp(`\\b${word}\\b`, 'iu'), word);
    for (const sentence of ENGLISH) assert.ok(!text.includes(sentence), `still in English: ${sentence}`);
    // poppler reads the same: Spanish text, no English sentence, the font is embedded
    const poppler = pdftotext(out);
    if (poppler !== undefined) {
      const p = flat(poppler);
      assert.match(p, /\bcasa\b/);
      assert.match(p, /\bjardín\b/);
      for (const sentence of ENGLISH) assert.ok(!p.includes(sentence), `poppler still reads: ${sentence}`);
    }
  });

  it('ends encrypted, damaged and text-less PDFs in an error status with a clear message', async () => {
    const cases: [string, RegExp][] = [
      ['encrypted-password.pdf', /encrypted/],
      ['encrypted-permissions.pdf', /encrypted/],
      ['image-only.pdf', /no text to translate/],
    ];
    for (const [file, message] of cases) {
      const { status } = await translate(file);
      assert.equal(status.status, 'error', file);
      assert.match(status.error_message, message, file);
    }
    const sample = fixture('sample.pdf');
    const res = await upload([
      { name: 'file', filename: 'broken.pdf', content: sample.subarray(0, sample.length >> 1) },
      { name: 'target_lang', value: 'ES' },
    ]);
    const { document_id, document_key } = res.json();
    const ended = await waitFor('the broken PDF to end', async () => {
      const body = (await ctx.app.inject({ method: 'POST', url: `/v2/document/${document_id}`, headers: authHeaders(pro), payload: { document_key } })).json();
      return (body.status === 'error' || body.status === 'done') && body;
    });
    assert.equal(ended.status, 'error');
    assert.match(ended.error_message, /PDF file/);
  });

  it('converts a PDF to an editable Word document with output_format=docx (billed as the PDF)', async () => {
    const { id, key, status } = await translate('sample.pdf', [{ name: 'output_format', value: 'docx' }, { name: 'enable_watermark', value: 'true' }]);
    assert.equal(status.status, 'done', status.error_message);
    assert.equal(status.billed_characters, 50_000);
    const dl = await download(id, key);
    assert.equal(dl.statusCode, 200, dl.body);
    assert.equal(dl.headers['content-type'], 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    // Tolk's own docx format reads the result: the Spanish paragraphs, then the watermark
    const back = await docxFormat.extract(dl.rawPayload, { targetLang: 'en' });
    const texts = back.segments.map((s) => s.text);
    assert.equal(texts.at(-1), 'Translated by Tolk');
    const text = flat(texts.join(' '));
    for (const word of ['casa', 'río', 'abuela', 'perros', 'pueblo', 'cocina', 'jardín']) assert.match(text, new RegExp(`\\b${word}\\b`, 'iu'), word);
    for (const sentence of ENGLISH) assert.ok(!text.includes(sentence), sentence);
  });

  it('refuses conversions the PDF format does not declare', async () => {
    const res = await upload([
      { name: 'file', filename: 'sample.pdf', content: fixture('sample.pdf') },
      { name: 'target_lang', value: 'ES' },
      { name: 'output_format', value: 'xlsx' },
    ]);
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, /Conversion from 'pdf' to 'xlsx'/);
  });
});
