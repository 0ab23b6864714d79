// Documents as people really write them, at the format level: what reaches the engine and what comes back.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { srtFormat } from '../../src/documents/formats/srt.js';
import { jsonFormat } from '../../src/documents/formats/json.js';
import { mifFormat } from '../../src/documents/formats/mif/mif-format.js';
import { docxFormat, pptxFormat } from '../../src/documents/formats/ooxml.js';
import { unzipAll, zipOf } from '../helpers/zip.js';
import { createPdfFormat, pdfFormat } from '../../src/documents/formats/pdf.js';
import { TesseractRecognizer } from '../../src/documents/ocr/tesseract-recognizer.js';
import { DocumentFormatError } from '../../src/documents/formats/format.js';
import { flat, inspectPdf, pdftotext } from './pdf-inspect.js';
import { buildPdf, pdfOfObjects } from './pdf-builder.js';
import { ocrImage, ocrPage } from './pdf-ocr.js';
import { readFileSync } from 'node:fs';
import { icuPieces } from '../../src/markup/icu-message.js';
import { icuShape } from './icu-shape.js';
import { identifierSpans } from '../../src/markup/index.js';

const ES = { targetLang: 'es' };
const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/documents/${name}`, import.meta.url));

describe('srt dialogue', () => {
  it('sends each speaker alone and without the dash; reflows each speaker over its own lines', async () => {
    const src = '1\n00:00:01,000 --> 00:00:03,000\n- Get your diploma,\nI\'ll get mine.\n- What you doing?\n\n2\n00:00:04,000 --> 00:00:05,000\n-5 degrees\noutside and cold.\n';
    const doc = await srtFormat.extract(Buffer.from(src), ES);
    assert.deepEqual(doc.segments.map((s) => s.text), ["Get your diploma, I'll get mine.", 'What you doing?', '-5 degrees outside and cold.']);
    const out = (await doc.rebuild(['Consigue tu diploma, yo conseguiré el mío.', '¿Qué haces?', '-5 grados fuera y frío.'])).toString('utf8');
    assert.equal(out, '1\n00:00:01,000 --> 00:00:03,000\n- Consigue tu diploma,\nyo conseguiré el mío.\n- ¿Qué haces?\n\n2\n00:00:04,000 --> 00:00:05,000\n-5 grados\nfuera y frío.\n');
    assert.equal((await doc.rebuild(doc.segments.map((s) => s.text))).toString('utf8'), src);
  });
});

describe('ICU MessageFormat in JSON', () => {
  it('sends only branch texts, with # and arguments protected; keywords, names and every branch come back', async () => {
    const messages = {
      participants: '{count, plural, one {# participant} other {# participants}}',
      invite: '{gender, select, female {She invited {name}} male {He invited {name}} other {They invited {name}}}',
      files: 'You have {n, plural, =0 {no files} =1 {one file} other {# files in {folder}}}.',
    };
    const src = JSON.stringify(messages, null, 2);
    const doc = await jsonFormat.extract(Buffer.from(src), ES);
    const sent = doc.segments.map((s) => s.text);
    assert.deepEqual(sent, ['⟦0⟧ participant', '⟦0⟧ participants', 'She invited ⟦0⟧', 'He invited ⟦0⟧', 'They invited ⟦0⟧', 'You have', 'no files', 'one file', '⟦0⟧ files in ⟦1⟧']);
    // an engine that would translate any keyword it saw
    const engine = (s: string) => s.replace(/participants?/g, (w) => (w.endsWith('s') ? 'participantes' : 'participante')).replace(/\b(one|other|plural|select|count|name)\b/g, 'X');
    const out = JSON.parse((await doc.rebuild(sent.map(engine))).toString('utf8')) as typeof messages;
    assert.equal(out.participants, '{count, plural, one {# participante} other {# participantes}}');
    for (const key of Object.keys(messages) as (keyof typeof messages)[]) assert.deepEqual(icuShape(out[key]), icuShape(messages[key]), key);
    assert.equal((await doc.rebuild(sent)).toString('utf8'), src);
  });

  it('leaves a malformed message to the usual path', async () => {
    assert.equal(icuPieces('{count, plural, one {# item}'), undefined);
    assert.equal(icuPieces('Hello {name}'), undefined);
    assert.deepEqual(icuPieces("{n, plural, other {it''s '{'#'}' #}}")?.length, 1);
  });
});

describe('identifier spans', () => {
  it('finds codes, hashes, addresses, paths and code spans; leaves ordinary words, times and compounds', async () => {
    const spans = async (t: string) => (await identifierSpans(t)).map((s) => t.slice(s.start, s.end));
    assert.deepEqual(await spans('Order 12df-321a (SPARSE-2024-INV) to a.b@example.org, see www.example.com/x. Run `make all`.'), [
      '12df-321a',
      'SPARSE-2024-INV',
      'a.b@example.org',
      'www.example.com/x',
      '`make all`',
    ]);
    assert.deepEqual(await spans('Commit 9fceb02 changed src/app.ts, /etc/hosts and config.yaml; SKU123 ships.'), ['9fceb02', 'src/app.ts', '/etc/hosts', 'config.yaml', 'SKU123']);
    assert.deepEqual(await spans('A 30-year-old well-known man, and/or at 10am on the 2nd, e.g. 5km away, 3D.'), []);
  });
});

describe('FrameMaker reference pages', () => {
  it('the mapping tables on reference pages (their flow and anchored tables) are not translated', async () => {
    const refTable = ` <Tbl \n  <TblID 2>\n  <TblBody \n   <Row \n    <Cell \n     <CellContent \n      <Para \n       <PgfTag \`CellBody'>\n       <ParaLine \n        <String \`Heading1'>\n       > # end of ParaLine\n      > # end of Para\n     > # end of CellContent\n    > # end of Cell\n   > # end of Row\n  > # end of TblBody\n > # end of Tbl\n`;
    const refPage = `<Page \n <PageType ReferencePage>\n <PageTag \`HTML'>\n <TextRect \n  <ID 20>\n > # end of TextRect\n> # end of Page\n`;
    const refFlow = `<TextFlow \n <TFTag \`HTML'>\n <Para \n  <PgfTag \`Body'>\n  <ParaLine \n   <TextRectID 20>\n   <String \`Paragraph Map'>\n   <ATbl 2>\n  > # end of ParaLine\n > # end of Para\n> # end of TextFlow\n`;
    const sample = fixture('sample.mif').toString('utf8');
    const src = sample.replace('> # end of Tbls', `${refTable}> # end of Tbls`).replace('<TextFlow ', `${refPage}<TextFlow `).replace('# End of MIFFile', `${refFlow}# End of MIFFile`);
    const doc = await mifFormat.extract(Buffer.from(src), ES);
    const texts = doc.segments.map((s) => s.text).join('\n');
    assert.match(texts, /The garden of the house/);
    assert.match(texts, /The table is small/);
    assert.doesNotMatch(texts, /Paragraph Map|Heading1/);
    const out = (await doc.translateWith!(async (segs) => segs.map((t) => t.toUpperCase()))).toString('utf8');
    assert.ok(out.includes(refFlow) && out.includes(refTable) && out.includes(refPage), 'reference page content kept byte for byte');
    assert.match(out, /THE TABLE IS SMALL/);
  });
});

describe('Word: bookmarks and line breaks', () => {
  const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
  const CT = `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
  const docx = (body: string) => zipOf([['[Content_Types].xml', CT], ['word/document.xml', `<?xml version="1.0"?><w:document ${W}><w:body>${body}</w:body></w:document>`]]);
  /** A word-by-word engine: what it does not know stays as it is (so "U" + "sing" gives "Ucanta"). */
  const WORDS: Record<string, string> = { Using: 'Usando', sing: 'canta', the: 'el', tool: 'instrumento', Title: 'Título', of: 'de', report: 'informe', This: 'Esto', is: 'es', body: 'cuerpo', text: 'texto' };
  const engine = async (texts: string[]) => texts.map((t) => t.replace(/\p{L}+/gu, (w) => WORDS[w] ?? w));
  /** The runs of the output's paragraphs as a reader sees them: [bold?, text] per run, a line break as '⏎'. */
  const readRuns = async (out: Buffer) => {
    const xml = new Map(await unzipAll(out)).get('word/document.xml')!.toString('utf8');
    return [...xml.matchAll(/<w:r>(.*?)<\/w:r>/gs)].map((m) => (m[1]!.includes('<w:br/>') ? '⏎' : `${m[1]!.includes('<w:b/>') ? 'B:' : ''}${/<w:t[^>]*>([^<]*)<\/w:t>/.exec(m[1]!)?.[1] ?? ''}`));
  };

  it('a bookmark inside a word does not split it', async () => {
    const body = '<w:p><w:r><w:t>U</w:t></w:r><w:bookmarkStart w:id="0" w:name="_Ref1"/><w:r><w:t>sing the tool</w:t></w:r><w:bookmarkEnd w:id="0"/></w:p>';
    const doc = await docxFormat.extract(await docx(body), ES);
    const out = await doc.translateWith!(engine);
    const xml = new Map(await unzipAll(out)).get('word/document.xml')!.toString('utf8');
    assert.equal((await readRuns(out)).join(''), 'Usando el instrumento');
    assert.ok(xml.includes('<w:bookmarkStart w:id="0" w:name="_Ref1"/>') && xml.includes('<w:bookmarkEnd w:id="0"/>'));
  });

  it('each line of a paragraph keeps its own formatting after a line break', async () => {
    const body =
      '<w:p><w:r><w:rPr><w:b/></w:rPr><w:t>Title of the report</w:t><w:br/></w:r><w:r><w:t xml:space="preserve">This is the body text</w:t></w:r></w:p>';
    const doc = await docxFormat.extract(await docx(body), ES);
    // an engine that reorders the whole sentence would otherwise carry the bold over the break
    const reorder = async (texts: string[]) => (await engine(texts)).map((t) => t.split(' ').reverse().join(' '));
    const runs = await readRuns(await doc.translateWith!(reorder));
    const br = runs.indexOf('⏎');
    assert.ok(br > 0, runs.join('|'));
    assert.deepEqual([runs.slice(0, br).join(''), runs.slice(br + 1).join('')], ['B:informe el de Título', 'texto cuerpo el es Esto']);
  });
});

describe('charts', () => {
  const C = 'xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';
  const strCache = (values: string[]) => `<c:strCache><c:ptCount val="${values.length}"/>${values.map((v, i) => `<c:pt idx="${i}"><c:v>${v}</c:v></c:pt>`).join('')}</c:strCache>`;
  const chart =
    `<?xml version="1.0"?><c:chartSpace ${C}><c:chart><c:plotArea><c:barChart><c:ser><c:idx val="0"/>` +
    `<c:tx><c:strRef><c:f>Sheet1!$B$1</c:f>${strCache(['Red cars'])}</c:strRef></c:tx>` +
    `<c:cat><c:strRef><c:f>Sheet1!$A$2:$A$3</c:f>${strCache(['The house', 'The garden'])}</c:strRef></c:cat>` +
    `<c:val><c:numRef><c:f>Sheet1!$B$2:$B$3</c:f><c:numCache><c:formatCode>General</c:formatCode><c:ptCount val="2"/><c:pt idx="0"><c:v>4.3</c:v></c:pt><c:pt idx="1"><c:v>2.5</c:v></c:pt></c:numCache></c:numRef></c:val>` +
    `</c:ser></c:barChart></c:plotArea></c:chart></c:chartSpace>`;
  const CT =
    '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/>' +
    '<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>' +
    '<Override PartName="/ppt/slides/slide1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/>' +
    '<Override PartName="/ppt/charts/chart1.xml" ContentType="application/vnd.openxmlformats-officedocument.drawingml.chart+xml"/></Types>';
  const P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';
  const slide = `<?xml version="1.0"?><p:sld ${P}><p:cSld><p:spTree><p:graphicFrame><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"/></a:graphic></p:graphicFrame></p:spTree></p:cSld></p:sld>`;

  it('a slide holding only a chart: series names and category labels translated, numbers untouched', async () => {
    const pptx = await zipOf([['[Content_Types].xml', CT], ['ppt/presentation.xml', `<?xml version="1.0"?><p:presentation ${P}/>`], ['ppt/slides/slide1.xml', slide], ['ppt/charts/chart1.xml', chart]]);
    const doc = await pptxFormat.extract(pptx, ES);
    assert.deepEqual(doc.segments.map((s) => s.text).sort(), ['Red cars', 'The garden', 'The house']);
    const out = await doc.translateWith!(async (texts) => texts.map((t) => t.toUpperCase()));
    const xml = new Map(await unzipAll(out)).get('ppt/charts/chart1.xml')!.toString('utf8');
    assert.equal(xml, chart.replace('Red cars', 'RED CARS').replace('The house', 'THE HOUSE').replace('The garden', 'THE GARDEN'));
  });
});

describe('PDF text that cannot be read back', () => {
  /**
   * A hand-made PDF: one page per content stream; F1 reads back, F2 (codes without glyph names) does not; F4 is a
   * Type3 font as pdfTeX writes TeX's bitmap fonts (no BaseFont, glyphs /a<code>), codes 1 to 3 read as control characters.
   */
  function pdf(contents: string[]): Buffer {
    const glyph = 3 + 2 * contents.length;
    const type3 = `/F4 << /Type /Font /Subtype /Type3 /FontBBox [0 0 500 700] /FontMatrix [0.001 0 0 0.001 0 0] /FirstChar 0 /LastChar 255 /Widths [${Array(256).fill(600).join(' ')}] /Encoding << /Type /Encoding /Differences [1 /a1 /a2 /a3 48 /a48 /a49 57 /a57 65 /a65 /a66 /a67] >> /CharProcs << ${['a1', 'a2', 'a3', 'a48', 'a49', 'a57', 'a65', 'a66', 'a67'].map((n) => `/${n} ${glyph} 0 R`).join(' ')} >> /Resources << >> >>`;
    const fonts = `/Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >> /F2 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding /Differences [1 /g1 /g2 /g3 /g4 /g5 /g6 /g7 /g8] >> >> /F3 << /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >> ${type3} >>`;
    const kids = contents.map((_, i) => `${3 + 2 * i} 0 R`).join(' ');
    const objs = ['<< /Type /Catalog /Pages 2 0 R >>', `<< /Type /Pages /Kids [${kids}] /Count ${contents.length} >>`];
    contents.forEach((c, i) => {
      objs.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << ${fonts} >> /Contents ${4 + 2 * i} 0 R >>`);
      objs.push(`<< /Length ${c.length} >>\nstream\n${c}\nendstream`);
    });
    const box = '600 0 50 0 450 600 d1 50 0 400 600 re f';
    objs.push(`<< /Length ${box.length} >>\nstream\n${box}\nendstream`);
    return pdfOfObjects(objs);
  }
  const readable = 'BT /F1 12 Tf 20 150 Td (The house is big and the dog sleeps.) Tj ET';
  const unreadable = 'BT /F2 12 Tf 20 100 Td (\\001\\002\\003\\004 \\005\\006\\007\\010) Tj ET';
  const words = (s: string): string[] => s.match(/[\p{L}\p{N}]+|[\u0001-\u0008]/gu) ?? [];

  it('a page in a font without a usable mapping is kept as it is; the others are translated', async () => {
    const src = pdf([readable, `${readable}\n${unreadable}`]);
    const doc = await pdfFormat.extract(src, ES);
    assert.deepEqual(doc.segments.map((s) => s.text), ['The house is big and the dog sleeps.']);
    assert.equal(doc.notice, 'Text in fonts that cannot be read back was kept untranslated on page 2 (as a picture in a docx conversion).');
    assert.equal(doc.characters, 'The house is big and the dog sleeps.'.length, 'only the translated text is counted');
    const out = await doc.rebuild(['La casa es grande y el perro duerme.']);
    const [before, after] = [await inspectPdf(src), await inspectPdf(out)];
    assert.match(after[0]!.text, /La casa es grande/);
    assert.equal(after[1]!.text, before[1]!.text);
    // every word of the kept page, the unreadable glyphs included, is still there
    const kept = words(before[1]!.text);
    const present = kept.filter((w) => words(after[1]!.text).includes(w));
    assert.ok(kept.length > 8 && present.length / kept.length >= 0.95, `${present.length}/${kept.length}`);
  });

  it('a word hyphenated at a line end is joined; a code listing in a monospaced font is kept as it was', async () => {
    const prose = 'BT /F1 12 Tf 20 170 Td (The translation of the docu-) Tj 0 -14 Td (ment is good and clear.) Tj ET';
    const code = 'BT /F3 10 Tf 20 110 Td (let total = count + 1;) Tj 0 -12 Td (return total;) Tj ET';
    const doc = await pdfFormat.extract(pdf([`${prose}\n${code}`]), ES);
    assert.deepEqual(doc.segments.map((s) => s.text), ['The translation of the document is good and clear.']);
    const [page] = await inspectPdf(await doc.rebuild(['La traducción del documento es buena y clara.']));
    assert.match(page!.text, /La traducci[oó]n/);
    assert.match(page!.text, /let total = count \+ 1;/);
    assert.match(page!.text, /return total;/);
  });

  it('on a page mixing fonts, only the blocks in a font without a usable mapping are kept; the rest is translated', async () => {
    const src = await buildPdf([
      { items: [{ text: 'The garden is behind the house.' }, { text: 'The village is small and quiet.', unmapped: true }, { text: 'The kitchen is big.', font: 'sans' }] },
    ]);
    const doc = await pdfFormat.extract(src, ES);
    assert.deepEqual(doc.segments.map((s) => s.text), ['The garden is behind the house.', 'The kitchen is big.']);
    assert.match(doc.notice ?? '', /kept untranslated on page 1 /);
    const out = await doc.rebuild(['El jardín está detrás de la casa.', 'La cocina es grande.']);
    const text = flat(pdftotext(out)!);
    assert.match(text, /El jardín está detrás de la casa\. .*La cocina es grande\./);
    assert.doesNotMatch(text, /garden|kitchen/);
    // the kept paragraph is still drawn, as it was: a reader (OCR of the rendered page) sees it
    assert.match(ocrPage(out, 1), /The village is small and quiet\./);
    // converted to Word, the kept paragraph is a picture of itself between the translated ones
    const again = await pdfFormat.extract(src, ES);
    const files = new Map(await unzipAll(await again.rebuildAs!('docx', ['El jardín está detrás de la casa.', 'La cocina es grande.'])));
    const body = files.get('word/document.xml')!.toString('utf8');
    assert.match(body, /El jardín.*<w:drawing>.*La cocina/s);
    assert.doesNotMatch(body, /[\u0001-\u0008]/u);
    const pictures = [...files].filter(([name]) => name.startsWith('word/media/'));
    assert.equal(pictures.length, 1);
    assert.match(ocrImage(pictures[0]![1]), /The village is small and quiet/);
  });

  it('with text recognition, a block in a font without a usable mapping is read and translated on a page with readable text', async () => {
    const src = await buildPdf([
      { items: [{ text: 'The garden is behind the house.' }, { text: 'The village is small and quiet.', unmapped: true }, { text: 'The kitchen is big.', font: 'sans' }] },
    ]);
    const doc = await createPdfFormat(new TesseractRecognizer()).extract(src, ES);
    const texts = doc.segments.map((s) => s.text);
    assert.deepEqual(texts.slice(0, 2), ['The garden is behind the house.', 'The kitchen is big.']);
    assert.match(texts[2] ?? '', /village is small and quiet/, 'the unmapped paragraph is read by recognition');
    assert.equal(doc.notice, 'Text in fonts that cannot be read back was read by text recognition (OCR) on page 1: its translation is painted in its place.');
    const out = await doc.rebuild(['El jardín está detrás de la casa.', 'La cocina es grande.', 'El pueblo es pequeño y tranquilo.']);
    // a reader sees every paragraph in Spanish: the region's picture replaces its English glyphs, which leave the text layer
    const seen = flat(ocrPage(out, 1));
    assert.match(seen, /pueblo es peque/);
    assert.doesNotMatch(seen, /village|garden|kitchen/);
    assert.match(seen, /El jard.n est. detr.s de la casa\..*pueblo.*La cocina es grande\./s);
    assert.doesNotMatch(pdftotext(out)!, /[\u0001-\u0008]/u);
  });

  it('a row of symbols in a kept Type3 font (a math-alphabet row of isomath-test.pdf) keeps its letters and digits', async () => {
    // A, B, C, three unreadable symbols, 0, 1, 9: the symbols and letters in the Type3 font, the commas in a readable one
    const glyphs = ['A', 'B', 'C', '\\001', '\\002', '\\003', '0', '1', '9'];
    const row = `BT 20 100 Td ${glyphs.map((g, i) => `/F4 12 Tf (${g}) Tj${i < glyphs.length - 1 ? ' /F1 12 Tf (, ) Tj' : ''}`).join(' ')} ET`;
    const src = pdf([`${readable}\n${row}`]);
    const doc = await pdfFormat.extract(src, ES);
    assert.deepEqual(doc.segments.map((s) => s.text), ['The house is big and the dog sleeps.']);
    const out = await doc.rebuild(['La casa es grande y el perro duerme.']);
    const text = flat(pdftotext(out)!);
    assert.match(text, /La casa es grande/);
    // the kept font's text stays in the content: its glyphs are drawn, its letters and digits read back
    assert.deepEqual(text.match(/[A-C0-9]/gu), ['A', 'B', 'C', '0', '1', '9']);
  });

  it('a document with only unreadable text says so', async () => {
    await assert.rejects(async () => pdfFormat.extract(pdf([unreadable]), ES), (e: Error) => e instanceof DocumentFormatError && /can be read back/.test(e.message));
  });
});
