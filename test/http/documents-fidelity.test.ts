// Documents as people really write them, through /v2/document with real Apertium en→es: each check reads the result
// as a reader would (the dialogue's dashes, the ICU message that must still parse, the identifiers left alone).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDocumentsTestApp, fixture, type DocumentsTestApp } from '../helpers/documents.js';
import { authHeaders } from '../helpers/harness.js';
import { icuShape } from '../documents/icu-shape.js';

let app: DocumentsTestApp;
before(async () => {
  app = await createDocumentsTestApp();
});
after(async () => app.close());

/** Uploads en→es, waits for the job, returns the translated file as text. */
async function translate(filename: string, content: string): Promise<string> {
  const { status, file } = await app.client.translateFile([
    { name: 'file', filename, content: Buffer.from(content) },
    { name: 'source_lang', value: 'EN' },
    { name: 'target_lang', value: 'ES' },
  ]);
  assert.equal(status.status, 'done', status.error_message);
  return file!.data.toString('utf8');
}

describe('documents as people write them (Apertium en→es)', () => {
  it('srt: a two-speaker cue keeps each dash at the start of its own line, both speakers translated', async () => {
    const src = '1\n00:00:01,000 --> 00:00:03,000\n- Get your diploma, I\'ll get mine.\n- What you doing?\n\n2\n00:00:04,000 --> 00:00:06,000\n-The house is big.\n-The dog sleeps.\n';
    const lines = (await translate('film.srt', src)).split('\n');
    assert.equal(lines.length, src.split('\n').length);
    assert.match(lines[2]!, /^- \S/);
    assert.match(lines[3]!, /^- \S/);
    assert.match(lines[7]!, /^-\S/);
    assert.match(lines[8]!, /^-\S/);
    for (const l of [2, 3, 7, 8]) assert.ok(!lines[l]!.slice(1).includes(' - '), `dash inside line ${l}: ${lines[l]}`);
    assert.match(lines[2]!, /diploma/i);
    assert.match(lines[3]!, /haciendo/i);
    assert.match(lines[7]!, /casa/i);
    assert.match(lines[8]!, /perro/i);
    assert.doesNotMatch(lines.join('\n'), /\b(What|Get|house|dog)\b/);
  });

  it('ICU messages in Angular XLIFF and JSON: branch texts in Spanish, the message still parses to the same structure', async () => {
    const xlf = `<?xml version="1.0" encoding="UTF-8" ?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file source-language="en" datatype="plaintext" original="ng2.template">
    <body>
      <trans-unit id="minutes" datatype="html">
        <source>{VAR_PLURAL, plural, =0 {just now} =1 {one minute ago} other {<x id="INTERPOLATION" equiv-text="{{minutes}}"/> minutes ago}}</source>
      </trans-unit>
      <trans-unit id="sex" datatype="html">
        <source>{VAR_SELECT, select, male {The man} female {The woman} other {The dog}}</source>
      </trans-unit>
    </body>
  </file>
</xliff>
`;
    const out = await translate('messages.xlf', xlf);
    const targets = [...out.matchAll(/<target[^>]*>(.*?)<\/target>/gs)].map((m) => m[1]!);
    assert.equal(targets.length, 2, out);
    const asIcu = (t: string) => t.replace(/<x id="INTERPOLATION"[^>]*\/>/g, '{minutes}');
    const sources = [...xlf.matchAll(/<source>(.*?)<\/source>/gs)].map((m) => asIcu(m[1]!));
    targets.forEach((t, i) => assert.deepEqual(icuShape(asIcu(t)), icuShape(sources[i]!), t));
    assert.match(targets[0]!, /<x id="INTERPOLATION" equiv-text="\{\{minutes\}\}"\/>/);
    assert.match(targets[0]!, /minutos/);
    assert.match(targets[1]!, /hombre/);
    assert.match(targets[1]!, /perro/);

    const json = JSON.stringify({ people: '{count, plural, one {# participant} other {# participants}}', pet: '{kind, select, dog {The dog sleeps} other {The cat sleeps}}' });
    const parsed = JSON.parse(await translate('app.json', json)) as Record<string, string>;
    for (const [key, message] of Object.entries(JSON.parse(json) as Record<string, string>)) assert.deepEqual(icuShape(parsed[key]!), icuShape(message), parsed[key]);
    assert.match(parsed.people!, /participantes/);
    assert.match(parsed.pet!, /perro/);
    assert.match(parsed.pet!, /gato/);
  });
});

describe('identifiers never reach the engine (Apertium en→es)', () => {
  const IDS = ['12df-321a', 'SPARSE-2024-INV', 'anna.smith@example.com', 'https://example.com/orders/12?x=1', 'report.pdf', '`npm install`', '9fceb02'];
  const TEXT =
    'The order 12df-321a and the invoice SPARSE-2024-INV were sent to anna.smith@example.com. ' +
    'See https://example.com/orders/12?x=1 and the file report.pdf. Run `npm install` after the commit 9fceb02.';
  const readerCheck = (out: string) => {
    for (const id of IDS) assert.ok(out.includes(id), `${id} missing from: ${out}`);
    assert.match(out, /pedido|orden/i);
    assert.match(out, /factura/i);
    assert.doesNotMatch(out, /ESCASO|321un/);
  };

  it('/v2/translate, plain and with tag handling', async () => {
    const send = (body: object) => app.ctx.app.inject({ method: 'POST', url: '/v2/translate', headers: authHeaders(app.account), payload: body });
    const plain = await send({ text: [TEXT, 'The house is big.'], source_lang: 'EN', target_lang: 'ES' });
    assert.equal(plain.statusCode, 200, plain.body);
    readerCheck(plain.json().translations[0].text);
    assert.match(plain.json().translations[1].text, /casa/);
    const html = await send({ text: [`<p>${TEXT} <b>The dog</b> sleeps.</p>`], source_lang: 'EN', target_lang: 'ES', tag_handling: 'html' });
    assert.equal(html.statusCode, 200, html.body);
    readerCheck(html.json().translations[0].text);
    assert.match(html.json().translations[0].text, /<b>[^<]*perro[^<]*<\/b>/);
  });

  it('a txt document', async () => {
    const out = await translate('notes.txt', `${TEXT}\nThe house is big.\n`);
    readerCheck(out);
    assert.match(out, /casa/);
  });
});

describe('HTML 4 pages (Apertium en→es)', () => {
  it('keeps the page as written: doctype, head tags, upper-case tags, implied ends, no tbody; only the text changes', async () => {
    const src = fixture('html4-page.html').toString('utf8');
    const out = await translate('old.html', src);
    // Outside the text, the page is the same: its tags, in order, as written.
    const tags = (html: string) => html.match(/<[^>]*>/g) ?? [];
    assert.deepEqual(tags(out), tags(src));
    assert.ok(out.startsWith('<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">\n<HTML>\n<HEAD>\n<META'));
    assert.doesNotMatch(out, /tbody/i);
    for (const word of [/casa/, /perro/, /gato/, /coche/, /puerta/, /jard[ií]n/, /p[áa]rrafo/]) assert.match(out, word);
    assert.doesNotMatch(out, /The house|The dog|The cat|red car|The door/);
  });
});
