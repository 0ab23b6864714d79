// Image translation (beta) end to end over HTTP: a PNG with English text comes back as a PNG of the same size whose
// text, read by Tesseract in Spanish, is Apertium's translation; image text is not billed; damaged images fail clearly.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDocumentsTestApp, documentUsage, fixture, type DocumentsTestApp } from '../helpers/documents.js';
import type { Part } from '../documents/multipart.js';
import { readImageHeader } from '../../src/documents/formats/image/image-header.js';
import { decodeIsolated } from '../../src/documents/formats/image/isolated-decoder.js';
import { paragraphsOf } from '../../src/documents/formats/image/paragraphs.js';
import { TesseractRecognizer } from '../../src/documents/ocr/tesseract-recognizer.js';

let app: DocumentsTestApp;
before(async () => {
  app = await createDocumentsTestApp();
});
after(async () => app.close());

const upload = (parts: Part[]) => app.client.upload(parts);
const waitFor = (id: string, key: string) => app.client.waitFor(id, key);

describe('image documents over HTTP', () => {
  it('translates the text of a PNG en→es in place; the result is a PNG of the same size; not billed', async () => {
    const source = fixture('sample.png');
    const res = await upload([{ name: 'file', filename: 'poster.png', content: source }, { name: 'source_lang', value: 'EN' }, { name: 'target_lang', value: 'ES' }]);
    assert.equal(res.statusCode, 200, res.body);
    const { document_id, document_key } = res.json();
    const done = await waitFor(document_id, document_key);
    assert.equal(done.status, 'done', done.error_message);
    assert.equal(done.billed_characters, 0);

    const usage = () => documentUsage(app.ctx, app.account);
    const usageBefore = await usage();
    const dl = await app.client.download(document_id, document_key);
    assert.equal(dl.statusCode, 200, dl.body);
    assert.equal(dl.headers['content-type'], 'image/png');
    const out = dl.rawPayload;
    assert.deepEqual(readImageHeader(out), readImageHeader(source));
    assert.equal(await usage(), usageBefore);

    // read the result back in Spanish: Apertium's words are there, the English ones are not
    const image = await decodeIsolated(out, 1e6);
    const rgb = Buffer.alloc(image.width * image.height * 3);
    for (let i = 0, j = 0; i < image.data.length; i += 4, j += 3) rgb.set(image.data.subarray(i, i + 3), j);
    const words = await new TesseractRecognizer().recognize({ width: image.width, height: image.height, rgb }, 'es');
    const text = paragraphsOf(words).map((p) => p.text).join(' ').toLowerCase();
    for (const w of ['casa', 'grande', 'jardín', 'verde', 'perro', 'coche', 'rojo', 'iglesia']) assert.match(text, new RegExp(`\\b${w}\\b`, 'u'), text);
    for (const w of ['house', 'garden', 'green', 'church']) assert.doesNotMatch(text, new RegExp(`\\b${w}\\b`), text);
  });

  it('ends a damaged JPEG in error with the reason', async () => {
    const jpg = fixture('sample.jpg');
    const res = await upload([{ name: 'file', filename: 'photo.jpg', content: jpg.subarray(0, 300) }, { name: 'target_lang', value: 'ES' }]);
    assert.equal(res.statusCode, 200, res.body);
    const { document_id, document_key } = res.json();
    const body = await waitFor(document_id, document_key);
    assert.equal(body.status, 'error');
    assert.match(body.error_message, /JPEG image is damaged/);
  });
});
