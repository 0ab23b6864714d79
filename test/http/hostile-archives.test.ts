// Hostile archives, XML and form bodies posted to a real `tolk serve` process, made here at test time (no binaries
// checked in): zip bombs inside docx, pptx, xlsx and IDML (an entry that inflates to GiBs from a few MB, declared
// honestly or under a forged small size, 20,000 entries, more than the limit unpacked in all), deeply nested and
// entity-expanding XML in a docx and in XLIFF, 10,000 form fields. Each ends in a clear error naming what was
// exceeded (never a 5xx), and the server's peak resident memory stays less than 1 GiB above its level before (1.5 GiB
// for two accounts at once).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { DEFAULT_ARCHIVE_LIMITS } from '../../src/documents/formats/zip-reader.js';
import { loadConfig } from '../../src/config.js';
import { fixture } from '../helpers/documents.js';
import { MIB } from '../helpers/peak-memory.js';
import { call, peakGrowth, postMultipart, startServedApp, translateDocument, type ServedApp } from '../helpers/served-app.js';
import { deflatedEntry, deflatedRepeats, minimalDocxEntries, rawZip, unzipAll, type RawZipEntry } from '../helpers/zip.js';
import { idmlParts } from '../documents/idml-fixture.js';

/** The issue's bounds: a request may not take the server more than this above its resident memory before it… */
const GROWTH_BOUND = 1024 * MIB;
/** …nor two from two accounts at once more than this. */
const TWO_ACCOUNTS_BOUND = 1536 * MIB;
const ZEROS = Buffer.alloc(MIB);
const PARAGRAPH = '<w:p><w:r><w:t>The house is big.</w:t></w:r></w:p>';

let app: ServedApp;
before(async () => {
  app = await startServedApp();
});
after(async () => app?.close());

/** Runs a request against the server and checks its peak memory; `what` names the case in the message. */
async function bounded<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const { result, growthBytes } = await peakGrowth(app, fn);
  assert.ok(growthBytes < GROWTH_BOUND, `${what}: the server grew by ${Math.round(growthBytes / MIB)} MiB`);
  return result;
}

/** Uploads the file and expects the job to end in `error` with a message matching `pattern`, within the bound. */
async function failsClearly(fileName: string, content: Buffer, pattern: RegExp): Promise<void> {
  const outcome = await bounded(fileName, () => translateDocument(app, fileName, content, { source_lang: 'EN', target_lang: 'ES' }));
  assert.equal(outcome.upload, 200, JSON.stringify(outcome.body));
  assert.equal(outcome.body.status, 'error', JSON.stringify(outcome.body));
  assert.match(String(outcome.body.error_message), pattern);
}

/** The entries of a real package, deflated again, so hostile entries can be put beside them. */
async function entriesOf(pkg: Buffer): Promise<RawZipEntry[]> {
  return (await unzipAll(pkg)).map(([name, data]) => deflatedEntry(name, data));
}

/** An entry inflating to `mib` MiB of zeros (about 1 KB per MiB), declaring `declared` bytes. */
const zeros = (name: string, mib: number, declared: number): RawZipEntry => ({ name, method: 8, data: deflatedRepeats(ZEROS, mib), declaredSize: declared });

const packages: [ext: string, entries: () => Promise<RawZipEntry[]>, media: string][] = [
  ['docx', async () => minimalDocxEntries(PARAGRAPH), 'word/media/image1.png'],
  ['pptx', () => entriesOf(fixture('sample.pptx')), 'ppt/media/image1.png'],
  ['xlsx', () => entriesOf(fixture('sample.xlsx')), 'xl/media/image1.png'],
  ['idml', async () => idmlParts().map(([name, data]) => deflatedEntry(name, data)), 'Resources/Image.bin'],
];

describe('zip bombs inside Office documents and IDML', () => {
  for (const [ext, entries, media] of packages) {
    it(`${ext}: an entry declaring 3 GiB (3 MB compressed) is refused from its header`, async () => {
      const bomb = rawZip([...(await entries()), zeros(media, 3072, 3 * 1024 * MIB)]);
      assert.ok(bomb.length < 4 * MIB);
      await failsClearly(`bomb.${ext}`, bomb, /part .*(image1\.png|Image\.bin) unpacks to more than 100 MiB, the limit for one part/);
    });

    it(`${ext}: an entry declaring 1,000 bytes that inflates to 2 GiB is stopped while inflating`, async () => {
      const forged = rawZip([...(await entries()), zeros(media, 2048, 1000)]);
      await failsClearly(`forged.${ext}`, forged, /unpacks to more than the 1000 bytes its header declares \(a forged size/);
    });

    it(`${ext}: 20,000 entries are refused before any is listed`, async () => {
      const many = rawZip([...(await entries()), ...Array.from({ length: 20_000 }, (_, i) => ({ name: `x/${i}`, method: 0 as const, data: Buffer.alloc(0), declaredSize: 0 }))]);
      await failsClearly(`many.${ext}`, many, /has too many parts \(\d+; the limit is 10000\)/);
    });
  }

  it('docx: a text part declaring 1,000 bytes that inflates to 2 GiB is stopped while it is read', async () => {
    const [types, rels] = minimalDocxEntries(PARAGRAPH);
    const forged = rawZip([types!, rels!, zeros('word/document.xml', 2048, 1000)]);
    await failsClearly('forged-text.docx', forged, /word\/document\.xml unpacks to more than the 1000 bytes its header declares/);
  });

  it('docx: six parts of 90 MiB each, every one within the part and ratio limits, pass the total and are refused', async () => {
    // About 1 byte in 64 random: a ratio near 50:1, under the 100:1 limit, so only the total (512 MiB) stops it.
    const chunk = Buffer.alloc(MIB);
    for (let i = 0; i < chunk.length; i += 64) randomBytes(1).copy(chunk, i);
    const parts = Array.from({ length: 6 }, (_, i): RawZipEntry => ({ name: `word/media/video${i}.bin`, method: 8, data: deflatedRepeats(chunk, 90), declaredSize: 90 * MIB }));
    const ratio = (90 * MIB) / parts[0]!.data.length;
    assert.ok(ratio > 10 && ratio < DEFAULT_ARCHIVE_LIMITS.maxRatio, `ratio ${ratio}`);
    await failsClearly('total.docx', rawZip([...minimalDocxEntries(PARAGRAPH), ...parts]), /unpacks to more than 512 MiB, the limit for all its parts together/);
  });

  it('two accounts posting 2 GiB bombs under forged sizes at once: both stopped, within the bound for two', async () => {
    const other = await app.newAccount();
    const docx = rawZip([...minimalDocxEntries(PARAGRAPH), zeros('word/media/image1.png', 2048, 1000)]);
    const idml = rawZip([...idmlParts().map(([name, data]) => deflatedEntry(name, data)), zeros('Stories/Story_u9.xml', 2048, 1000)]);
    const fields = { source_lang: 'EN', target_lang: 'ES' };
    const { result, growthBytes } = await peakGrowth(app, () =>
      Promise.all([translateDocument(app, 'one.docx', docx, fields), translateDocument(app, 'two.idml', idml, fields, other)]),
    );
    assert.ok(growthBytes < TWO_ACCOUNTS_BOUND, `the server grew by ${Math.round(growthBytes / MIB)} MiB`);
    for (const outcome of result) {
      assert.equal(outcome.body.status, 'error', JSON.stringify(outcome.body));
      assert.match(String(outcome.body.error_message), /unpacks to more than the 1000 bytes its header declares/);
    }
  });

  it('the real packages these bombs were built from are translated (the limits refuse no real document)', async () => {
    for (const [ext, entries] of packages) {
      const outcome = await bounded(ext, async () => translateDocument(app, `real.${ext}`, rawZip(await entries()), { source_lang: 'EN', target_lang: 'ES' }));
      assert.equal(outcome.body.status, 'done', `${ext}: ${JSON.stringify(outcome.body)}`);
    }
  });
});

/** 10 levels of 10 references: 10^9 "lol"s if anything expanded them. */
const LAUGHS = `<!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('')}]>`;
const xliff = (source: string, doctype = '') =>
  `<?xml version="1.0" encoding="UTF-8"?>${doctype}<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file source-language="en" target-language="es" datatype="plaintext" original="a.txt"><body><trans-unit id="1"><source>${source}</source></trans-unit></body></file></xliff>`;

describe('deep and entity-expanding XML', () => {
  it('docx: a billion laughs in document.xml is refused (Office parts never have a DOCTYPE)', async () => {
    const [types, rels] = minimalDocxEntries(PARAGRAPH);
    const laughs = deflatedEntry('word/document.xml', `<?xml version="1.0"?>${LAUGHS}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>`);
    await failsClearly('laughs.docx', rawZip([types!, rels!, laughs]), /DOCTYPE declaration, which Office documents never have/);
  });

  it('docx: runs nested 200,000 levels deep end in error naming the nesting', async () => {
    // Each level with an attribute of its own, so the part compresses like text (a ratio under the 100:1 limit).
    const runs = Array.from({ length: 200_000 }, () => `<w:r w:rsidR="${randomBytes(4).toString('hex')}">`).join('');
    const deep = `${runs}<w:t>Deep.</w:t>${'</w:r>'.repeat(200_000)}`;
    await failsClearly('deep.docx', rawZip(minimalDocxEntries(`<w:p>${deep}</w:p>`)), /nested too deeply/);
  });

  it('XLIFF: a billion laughs is refused, and nothing is expanded', async () => {
    await failsClearly('laughs.xlf', Buffer.from(xliff('&lol9;', LAUGHS)), /entity declarations \(DTD internal subset\) are not supported/);
  });

  it('XLIFF: an undefined entity without a DTD, and inline codes nested 500,000 levels deep, end in error', async () => {
    await failsClearly('undefined.xlf', Buffer.from(xliff('The &lol9; house.')), /undefined entity/);
    const deep = `${'<g id="1">'.repeat(500_000)}The house.${'</g>'.repeat(500_000)}`;
    await failsClearly('deep.xlf', Buffer.from(xliff(deep)), /nested more than 200 levels deep/);
  });
});

describe('form bodies', () => {
  const tail = `text=${encodeURIComponent('<b>The house</b> is big.')}&source_lang=EN&target_lang=ES&tag_handling=xml&ignore_tags=b`;
  const translate = (junk: number) =>
    call(app, 'POST', '/v2/translate', { 'content-type': 'application/x-www-form-urlencoded' }, `${Array.from({ length: junk }, (_, i) => `junk${i}=x`).join('&')}&${tail}`);

  it('10,000 fields before tag_handling=xml&ignore_tags=b: 400 naming the limit, never the options silently lost', async () => {
    const res = await bounded('10,000 fields', () => translate(10_000));
    assert.equal(res.status, 400);
    assert.match(res.body.message, /Too many form fields: at most 1000/);
  });

  it('1,000 fields in all are every one read: the ignored tag is kept as written', async () => {
    const res = await translate(995);
    assert.equal(res.status, 200);
    assert.match(res.body.translations[0].text, /^<b>The house<\/b> /);
    assert.equal((await translate(996)).status, 400);
  });

  it('a multipart upload with 10,000 fields: 400 naming the limit', async () => {
    const fields = Array.from({ length: 10_000 }, (_, i) => ({ name: `junk${i}`, value: 'x' }));
    const parts = [...fields, { name: 'target_lang', value: 'ES' }, { name: 'file', filename: 'a.txt', content: 'The house is big.' }];
    const res = await bounded('10,000 multipart fields', () => postMultipart(app, '/v2/document', parts));
    assert.equal(res.status, 400);
    assert.match(res.body.message, /Too many form fields: at most 100 fields/);
  });

  it('a query string keeps every field (the 8 KiB URI limit bounds them): 2,000 junk parameters before type=target', async () => {
    const junk = 'j=&'.repeat(2000);
    const padded = await call(app, 'GET', `/v2/languages?${junk}type=target`);
    assert.equal(padded.status, 200);
    assert.deepEqual(padded.body, (await call(app, 'GET', '/v2/languages?type=target')).body);
  });
});

describe('archive limits are configured', () => {
  it('TOLK_DOCUMENT_* limits are read and checked', () => {
    const config = loadConfig({ TOLK_DOCUMENT_ARCHIVE_ENTRIES: '50', TOLK_DOCUMENT_UNPACKED_MB: '64', TOLK_DOCUMENT_PART_MB: '8', TOLK_DOCUMENT_COMPRESSION_RATIO: '20' });
    assert.deepEqual(config.documents.archive, { maxEntries: 50, maxTotalBytes: 64 * MIB, maxEntryBytes: 8 * MIB, maxRatio: 20 });
    assert.deepEqual(loadConfig({}).documents.archive, DEFAULT_ARCHIVE_LIMITS);
    assert.throws(() => loadConfig({ TOLK_DOCUMENT_PART_MB: '600' }), /TOLK_DOCUMENT_PART_MB must not exceed TOLK_DOCUMENT_UNPACKED_MB/);
    assert.throws(() => loadConfig({ TOLK_DOCUMENT_COMPRESSION_RATIO: '0' }), /TOLK_DOCUMENT_COMPRESSION_RATIO/);
  });

  it('a server started with lower limits applies them in its format threads', async () => {
    const strict = await startServedApp({ TOLK_DOCUMENT_ARCHIVE_ENTRIES: '5', TOLK_DOCUMENT_UNPACKED_MB: '2', TOLK_DOCUMENT_PART_MB: '1' });
    try {
      const docx = minimalDocxEntries(PARAGRAPH);
      const cases: [string, RawZipEntry[], RegExp][] = [
        ['entries.docx', [...docx, ...Array.from({ length: 3 }, (_, i) => deflatedEntry(`x/${i}`, 'x'))], /too many parts \(6; the limit is 5\)/],
        ['part.docx', [...docx, deflatedEntry('word/media/a.bin', randomBytes(MIB + 1))], /a\.bin unpacks to more than 1 MiB, the limit for one part/],
        ['total.docx', [...docx, ...[0, 1].map((i) => deflatedEntry(`word/media/${i}.bin`, randomBytes(MIB)))], /unpacks to more than 2 MiB, the limit for all its parts together/],
      ];
      for (const [name, entries, pattern] of cases) {
        const outcome = await translateDocument(strict, name, rawZip(entries), { source_lang: 'EN', target_lang: 'ES' });
        assert.equal(outcome.body.status, 'error', `${name}: ${JSON.stringify(outcome.body)}`);
        assert.match(String(outcome.body.error_message), pattern);
      }
      // the same docx within the limits is translated there too
      const fine = await translateDocument(strict, 'fine.docx', rawZip(docx), { source_lang: 'EN', target_lang: 'ES' });
      assert.equal(fine.body.status, 'done', JSON.stringify(fine.body));
    } finally {
      await strict.close();
    }
  });
});
