// Parser scaling: hostile shapes of every document format (deep nesting, one huge paragraph with thousands of tags,
// fields or ranges, thousands of values) parsed and rebuilt in process with an identity translation, at n and 4n.
// The baseline is the same shape at n: a linear parser takes about 4× as long at 4n, a quadratic one about 16×.
//
// Run: npm run bench:scaling [-- --n=2000 --only=idml]

import { DocumentFormats, type DocumentFormat } from '../src/documents/formats/index.js';
import { parseMarkup } from '../src/markup/index.js';
import { minimalDocx } from '../test/helpers/zip.js';
import { idmlParts, zipParts } from '../test/documents/idml-fixture.js';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { benchArgs } from './args.js';

const args = benchArgs();
const N = Number(args.get('n') ?? 2000);
const ONLY = args.get('only');
const formats = new DocumentFormats();
const format = (id: string) => formats.byId(id)!;
const times = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join('');

/** A story whose body replaces the fixture story's content (the rest of the IDML package as the fixture writes it). */
const idml = (body: string) =>
  zipParts(idmlParts().map(([name, c]) => [name, name.endsWith('Story_u1.xml') ? String(c).replace(/(<InCopyExportOption[^>]*\/>)[\s\S]*(<\/Story>)/u, (_, a: string, b: string) => a + body + b) : c]));
const range = (i: number) => `<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/${i % 2 ? 'Strong' : '$ID/[No character style]'}"><Content>word${i} </Content></CharacterStyleRange>`;
const field = (i: number) =>
  `<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>${i}</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r><w:r><w:t xml:space="preserve"> word </w:t></w:r>`;

/** A PDF of 4n lines of 1 pt text down 14,400 pt pages: one paragraph of full lines, or full and indented ones in turn. */
async function pdfLines(n: number, indentEvery: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const perPage = 11_000;
  let page = doc.addPage([400, 14_400]);
  for (let i = 0; i < 4 * n; i++) {
    if (i > 0 && i % perPage === 0) page = doc.addPage([400, 14_400]);
    const indented = indentEvery > 0 && i % indentEvery === indentEvery - 1;
    page.drawText(indented ? 'Then it ends.' : 'The cat sleeps in the big house today.', { x: indented ? 12 : 10, y: 14_200 - (i % perPage) * 1.2, size: 1, font });
  }
  return Buffer.from(await doc.save());
}

type Shape = (n: number) => Promise<[DocumentFormat, Buffer]> | [DocumentFormat, Buffer];
const SHAPES: Record<string, Shape> = {
  'xml nested 16n levels (refused)': (n) => [format('xml'), Buffer.from(`${'<a>'.repeat(16 * n)}x${'</a>'.repeat(16 * n)}`)],
  'xml one block, n identical inline spans': (n) => [format('xml'), Buffer.from(`<r><p>${times(n, () => '<b>word</b> text ')}</p></r>`)],
  'html one block, n identical inline spans': (n) => [format('html'), Buffer.from(`<p>${times(n, () => '<b>word</b> text ')}</p>`)],
  'json 10n strings': (n) => [format('json'), Buffer.from(JSON.stringify(Array.from({ length: 10 * n }, (_, i) => `word ${i}`)))],
  'srt one cue of 10n lines': (n) => [format('srt'), Buffer.from(`1\n00:00:01,000 --> 00:00:02,000\n${times(10 * n, (i) => `w${i}\n`)}`)],
  'xliff one unit, n g codes': (n) => [
    format('xliff'),
    Buffer.from(`<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file source-language="en" datatype="plaintext" original="a"><body><trans-unit id="1"><source>${times(n, (i) => `<g id="${i}">w${i}</g> t `)}</source></trans-unit></body></file></xliff>`),
  ],
  'docx one paragraph, n/2 fields': async (n) => [format('docx'), await minimalDocx(`<w:p>${times(n / 2, field)}</w:p>`)],
  'docx one paragraph, n nested open fields': async (n) => [
    format('docx'),
    await minimalDocx(`<w:p>${'<w:r><w:fldChar w:fldCharType="begin"/></w:r>'.repeat(n)}<w:r><w:t>x</w:t></w:r>${'<w:hyperlink><w:r><w:t>y</w:t></w:r></w:hyperlink>'.repeat(n)}</w:p>`),
  ],
  'pdf one paragraph of 4n full lines': async (n) => [format('pdf'), await pdfLines(n, 0)],
  'pdf 4n lines, every other one indented': async (n) => [format('pdf'), await pdfLines(n, 2)],
  'idml one paragraph, 4n ranges': async (n) => [format('idml'), await idml(`<ParagraphStyleRange AppliedParagraphStyle="ParagraphStyle/Body">${times(4 * n, range)}</ParagraphStyleRange>`)],
  'idml one range, 4n paragraphs': async (n) => [
    format('idml'),
    await idml(`<ParagraphStyleRange AppliedParagraphStyle="ParagraphStyle/Body"><CharacterStyleRange AppliedCharacterStyle="CharacterStyle/$ID/[No character style]">${times(4 * n, (i) => `<Content>The house ${i}.</Content><Br />`)}</CharacterStyleRange></ParagraphStyleRange>`),
  ],
};

/** Extract plus rebuild with an identity translation; a refused file counts its time to the refusal. */
async function run(shape: Shape, n: number): Promise<number> {
  const [f, input] = await shape(n);
  const start = performance.now();
  try {
    const doc = await f.extract(input, { targetLang: 'es' });
    if (doc.translateWith) await doc.translateWith(async (texts) => texts);
    else await doc.rebuild(doc.segments.map((s) => s.text));
  } catch {
    // refused (too deep): the time to the refusal is what counts
  }
  return performance.now() - start;
}

async function main() {
  // warm-up (JIT, module loading)
  parseMarkup('<p>a <b>b</b></p>', { format: 'xml', outlineDetection: true, splittingTags: [], nonSplittingTags: [], ignoreTags: [], targetLang: 'es' });
  console.log(`| shape | n = ${N} | 4n = ${4 * N} | ratio (linear ≈ 4) |`);
  console.log('|---|---:|---:|---:|');
  for (const [name, shape] of Object.entries(SHAPES)) {
    if (ONLY && !name.includes(ONLY)) continue;
    await run(shape, Math.max(8, N / 8));
    const small = await run(shape, N);
    const large = await run(shape, 4 * N);
    console.log(`| ${name} | ${small.toFixed(0)} ms | ${large.toFixed(0)} ms | ${(large / small).toFixed(1)} |`);
  }
}

await main();
