// PDF → docx (output_format=docx): the Word document has the translated blocks as paragraphs in reading order, with
// headings, bold, list markers and a page break; LibreOffice opens it and Tolk's own docx format reads it back.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pdfFormat } from '../../src/documents/formats/pdf.js';
import { docxFormat, WATERMARK_TEXT } from '../../src/documents/formats/ooxml.js';
import { openPackage } from '../../src/documents/formats/ooxml-package.js';
import { DocumentFormatError } from '../../src/documents/formats/format.js';
import { layoutPage, type TextPiece } from '../../src/documents/formats/pdf/layout.js';
import { writeTranslatedDocx } from '../../src/documents/formats/pdf/docx-output.js';

const FIXTURES = new URL('../../../test/fixtures/documents/', import.meta.url);
const sample = () => readFileSync(new URL('sample.pdf', FIXTURES));
const hasSoffice = spawnSync('soffice', ['--version'], { stdio: 'ignore' }).status === 0;

/** A stand-in translation that differs from the source in every segment: words reversed, upper case. */
const standIn = (text: string) => text.split(' ').reverse().join(' ').toUpperCase();

interface Paragraph {
  xml: string;
  text: string;
  style?: string;
}

/** The body paragraphs of a docx: their XML, their text (tabs as \t) and their style. */
async function paragraphs(docx: Buffer): Promise<Paragraph[]> {
  const pkg = await openPackage(docx, 'docx');
  const entry = pkg.entries.find((e) => e.name === 'word/document.xml');
  assert.ok(entry, 'word/document.xml');
  const xml = (await pkg.read(entry)).toString('utf8');
  return [...xml.matchAll(/<w:p>.*?<\/w:p>/gs)].map(([p]) => ({
    xml: p,
    text: [...p.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>|<w:tab\/>/g)].map((m) => m[1] ?? '\t').join('').replace(/&amp;/g, '&'),
    style: /<w:pStyle w:val="([^"]+)"\/>/.exec(p)?.[1],
  }));
}

async function convert(watermark = false) {
  const doc = await pdfFormat.extract(sample(), { targetLang: 'es', watermark });
  const translations = doc.segments.map((s) => standIn(s.text));
  const docx = await doc.rebuildAs!('docx', translations);
  return { doc, translations, docx };
}

describe('pdf → docx', () => {
  it('declares docx as its one conversion', () => {
    assert.deepEqual(pdfFormat.outputFormats, ['docx']);
  });

  it('writes the translated blocks as paragraphs in reading order: headings, bold, list items, a page break', async () => {
    const { doc, translations, docx } = await convert();
    const all = await paragraphs(docx);
    const paras = all.filter((p) => !p.xml.includes('<w:drawing>'));
    const list = new Set(['The kitchen is big and bright.', 'The garden has three old trees.', 'The road to the city is very long.']);
    const expected = doc.segments.map((s, i) => (list.has(s.text) ? `•\t${translations[i]}` : translations[i]));
    assert.deepEqual(paras.map((p) => p.text), expected);
    const by = (source: string) => paras[doc.segments.findIndex((s) => s.text === source)]!;

    // the two 20 pt titles are headings; nothing else is
    assert.deepEqual(paras.filter((p) => p.style?.startsWith('Heading')).map((p) => [p.text, p.style]), [
      [standIn('The House by the River'), 'Heading1'],
      [standIn('The Garden'), 'Heading1'],
    ]);
    for (const item of list) assert.equal(by(item).style, 'ListParagraph');
    // bold where the PDF is bold (titles, table header cells), not elsewhere
    for (const bold of ['The House by the River', 'Room', 'Colour', 'The Garden']) assert.match(by(bold).xml, /<w:b\/>/, bold);
    const village = doc.segments.find((s) => s.text.startsWith('The village'))!.text;
    for (const plain of ['Kitchen', 'Yellow', village]) assert.doesNotMatch(by(plain).xml, /<w:b\/>/, plain);
    assert.match(by('Room').xml, /<w:sz w:val="22"\/>/);
    assert.match(by('The Garden').xml, /<w:sz w:val="40"\/>/);
    // page 2 starts at "The Garden": the only page break
    assert.deepEqual(paras.filter((p) => p.xml.includes('<w:pageBreakBefore/>')).map((p) => p.text), [standIn('The Garden')]);
    assert.ok(!paras.some((p) => p.text.includes(WATERMARK_TEXT)));
  });

  it('embeds the page image as a PNG where it was: after the list, before the table, at its size on the page', async () => {
    const { docx } = await convert();
    const all = await paragraphs(docx);
    const drawings = all.flatMap((p, i) => (p.xml.includes('<w:drawing>') ? [i] : []));
    assert.equal(drawings.length, 1);
    const at = drawings[0]!;
    assert.equal(all[at - 1]!.text, `•\t${standIn('The road to the city is very long.')}`);
    assert.equal(all[at + 1]!.text, standIn('Room'));
    // painted at 120 × 75 pt: 12,700 EMU per point
    assert.match(all[at]!.xml, /<wp:extent cx="1524000" cy="952500"\/>/);
    const pkg = await openPackage(docx, 'docx');
    const media = pkg.entries.filter((e) => e.name.startsWith('word/media/'));
    assert.deepEqual(media.map((e) => e.name), ['word/media/image1.png']);
    const png = await pkg.read(media[0]!);
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    // IHDR: the image's own pixels, 160 × 100
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [160, 100]);
    const rels = (await pkg.read(pkg.entries.find((e) => e.name === 'word/_rels/document.xml.rels')!)).toString('utf8');
    const id = /r:embed="([^"]+)"/.exec(all[at]!.xml)![1]!;
    assert.match(rels, new RegExp(`Id="${id}" Type="[^"]+/image" Target="media/image1.png"`));
  });

  it('is read back by the docx format: the same texts as segments', async () => {
    const { translations, docx } = await convert(true);
    const back = await docxFormat.extract(docx, { targetLang: 'en' });
    const texts = back.segments.map((s) => s.text);
    // list items keep their marker (the tab between is an inline tag for the docx format); the watermark ends the body
    assert.deepEqual(texts, [...translations.map((t) => (texts.includes(`•${t}`) ? `•${t}` : t)), WATERMARK_TEXT]);
    assert.equal(texts.filter((t) => t.startsWith('•')).length, 3);
  });

  it('keeps italic, colour, centring and heading levels by size (synthetic page)', async () => {
    const SANS = { family: 'sans' as const, bold: false, italic: false };
    const piece = (text: string, x: number, y: number, size = 10, extra: Partial<TextPiece> = {}): TextPiece =>
      ({ text, x, y, angle: 0, size, width: text.length * size * 0.5, font: SANS, ...extra });
    const blocks = layoutPage(
      [
        piece('Big title here', 100, 760, 24),
        piece('Smaller section title', 50, 720, 16),
        piece('A red italic sentence for the body text.', 50, 690, 10, { color: '#cc0000', font: { ...SANS, italic: true } }),
        piece('A centred line of text', 250, 660), piece('under another one', 262.5, 648), piece('and the third one', 262, 636),
        piece('Plain body text that is long enough to be the body size.', 50, 600),
      ],
      [0, 0, 612, 792],
    );
    const texts = blocks.map((b) => standIn(b.text));
    const docx = await writeTranslatedDocx([{ view: [0, 0, 612, 792], blocks, texts }], { lang: 'es' });
    const paras = await paragraphs(docx);
    assert.deepEqual(paras.map((p) => p.text), texts);
    assert.deepEqual(paras.map((p) => p.style), ['Heading1', 'Heading2', undefined, undefined, undefined]);
    assert.match(paras[2]!.xml, /<w:i\/>.*<w:color w:val="CC0000"\/>/);
    assert.doesNotMatch(paras[4]!.xml, /<w:i\/>|<w:color/);
    assert.match(paras[3]!.xml, /<w:jc w:val="center"\/>/);
    assert.doesNotMatch(paras[4]!.xml, /<w:jc/);
    const pkg = await openPackage(docx, 'docx');
    const styles = (await pkg.read(pkg.entries.find((e) => e.name === 'word/styles.xml')!)).toString('utf8');
    for (const id of ['Normal', 'Heading1', 'Heading2', 'Heading3', 'ListParagraph']) assert.match(styles, new RegExp(`w:styleId="${id}"`));
    assert.match(styles, /<w:lang w:val="es"\/>/);
  });

  it('refuses a conversion it does not declare', async () => {
    const doc = await pdfFormat.extract(sample(), { targetLang: 'es' });
    await assert.rejects(async () => doc.rebuildAs!('xlsx', doc.segments.map((s) => s.text)), DocumentFormatError);
  });

  it('opens in LibreOffice with the translated words', { skip: hasSoffice ? false : 'LibreOffice (soffice) is not installed: the docx is not validated' }, async () => {
    const { translations, docx } = await convert(true);
    const dir = await mkdtemp(join(tmpdir(), 'tolk-lo-'));
    try {
      await writeFile(join(dir, 'translated.docx'), docx);
      await promisify(execFile)(
        'soffice',
        [`-env:UserInstallation=file://${join(dir, 'profile')}`, '--headless', '--convert-to', 'txt:Text', '--outdir', join(dir, 'out'), join(dir, 'translated.docx')],
        { timeout: 120_000 },
      );
      const lines = (await readFile(join(dir, 'out', 'translated.txt'), 'utf8')).replace(/^\uFEFF/, '').split(/\r?\n/).filter((l) => l !== '');
      assert.equal(lines.length, translations.length + 1, lines.join('\n'));
      for (const t of translations) assert.ok(lines.includes(t) || lines.includes(`•\t${t}`), `${t} in ${lines.join('\n')}`);
      assert.equal(lines.at(-1), WATERMARK_TEXT);
      assert.ok(!lines.some((l) => l.includes('The old house')));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
