// PDFs made with real fonts (DejaVu), one page in a font without a usable character mapping, translated en→es by
// real Apertium through /v2/document: the share of the input's words still present in the output, read as a reader
// would (poppler's pdftotext, and OCR of the rendered page where the text was kept as it was or was read by OCR and
// painted translated), must be ≥ 95 %.
// A paragraph counts as present in English (kept) or in Spanish (the engine's own translation of it).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authHeaders } from '../helpers/harness.js';
import { createDocumentsTestApp, type DocumentsTestApp } from '../helpers/documents.js';
import { buildPdf, wordsOf, type PageSpec, type Paragraph } from '../documents/pdf-builder.js';
import { pdftotext } from '../documents/pdf-inspect.js';
import { ocrPage } from '../documents/pdf-ocr.js';
import { overlap, pdfBoxes } from '../documents/pdf-boxes.js';

let app: DocumentsTestApp;
before(async () => {
  app = await createDocumentsTestApp();
});
after(async () => app.close());

const TEXTS = [
  'The old house stands next to the river. My grandmother lived there for many years, and every summer the whole family came to visit her.',
  'The village is small and quiet. There is a school, a church and a shop, and the people know each other well.',
  'The kitchen is big and bright. In the morning the sun comes through the window and we eat breakfast at the long table.',
  'The garden is behind the house. We grow apples, potatoes and flowers, and the dog sleeps under the tree in the afternoon.',
  'When the weather is good we eat dinner outside. In the evening my father reads a book and my mother writes letters to her friends.',
];
const para = (text: string, extra: Partial<Paragraph> = {}): Paragraph => ({ text, ...extra });

/** kept: pages whose unreadable text stays as it is; ocr: pages without any readable text, read by OCR. */
const DOCUMENTS: { name: string; pages: PageSpec[]; kept: number[]; ocr?: number[]; regions?: number[] }[] = [
  {
    name: 'report.pdf',
    pages: [{ items: [para('The house by the river', { font: 'bold', size: 16 }), para(TEXTS[0]!), para(TEXTS[1]!, { justify: true }), para(TEXTS[2]!, { font: 'sans' })] }],
    kept: [],
  },
  {
    name: 'table.pdf',
    pages: [{ items: [para(TEXTS[3]!), { rows: [['Fruit', 'Colour', 'Season'], ['Apples', 'Red', 'Autumn'], ['Lemons', 'Yellow', 'Winter']], columnWidth: 140 }] }],
    kept: [],
  },
  {
    name: 'paper.pdf',
    pages: [
      {
        items: [
          para('Roads of the village', { font: 'bold', size: 16 }),
          para('Anna Smith, John Brown and Maria Garcia', { font: 'sans', superscripts: { Smith: '1', Brown: '2', Garcia: '1' } }),
          para(TEXTS[0]!, { justify: true }),
          para('More about the house is on the web page of the village and in the old town book of the valley.', { links: ['web page', 'town book'] }),
          para(TEXTS[4]!, { justify: true }),
        ],
      },
    ],
    kept: [],
  },
  {
    name: 'unmapped.pdf',
    pages: [
      { items: [para(TEXTS[4]!), para(TEXTS[0]!)] },
      { unmapped: true, items: [para('The village', { font: 'bold', size: 16 }), para(TEXTS[1]!), para(TEXTS[2]!, { justify: true }), para(TEXTS[3]!)] },
      // a page mixing readable paragraphs with one in a font without mapping: only that one is read by recognition
      { items: [para('The garden', { font: 'bold', size: 16 }), para(TEXTS[3]!), para(TEXTS[1]!, { unmapped: true }), para(TEXTS[2]!, { font: 'sans' })] },
    ],
    kept: [],
    ocr: [2],
    regions: [3],
  },
];

async function translateTexts(texts: string[]): Promise<string[]> {
  const res = await app.ctx.app.inject({ method: 'POST', url: '/v2/translate', headers: authHeaders(app.account), payload: { text: texts, source_lang: 'EN', target_lang: 'ES' } });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { translations: { text: string }[] }).translations.map((t) => t.text);
}

describe('PDF words kept through translation (real fonts, Apertium en→es)', () => {
  it('≥ 95 % of the input words are present in every output (as text or OCR); kept pages are named in the status', async (t) => {
    const report: string[] = [];
    for (const d of DOCUMENTS) {
      const { status, file } = await app.client.translateFile([
        { name: 'file', filename: d.name, content: await buildPdf(d.pages) },
        { name: 'source_lang', value: 'EN' },
        { name: 'target_lang', value: 'ES' },
      ]);
      assert.equal(status.status, 'done', status.error_message);
      const out = file!.data;
      // the redrawn text overlaps nothing of itself (authors with superscripts, lines of paragraphs with links)
      for (const page of pdfBoxes(out)) {
        const words = page.flatMap((b) => b.lines.flatMap((l) => l.words));
        for (let i = 0; i < words.length; i++) {
          for (let j = i + 1; j < words.length; j++) assert.ok(!overlap(words[i]!, words[j]!, 1), `${d.name}: "${words[i]!.text}" overlaps "${words[j]!.text}"`);
        }
      }
      const outputWords = new Set(wordsOf(`${pdftotext(out) ?? ''}\n${[...d.kept, ...(d.ocr ?? []), ...(d.regions ?? [])].map((p) => ocrPage(out, p)).join('\n')}`));
      const paragraphs = d.pages.flatMap((p) => p.items.flatMap((i) => ('rows' in i ? i.rows.map((r) => r.join(' ')) : 'codes' in i ? [] : [i.text])));
      const translations = await translateTexts(paragraphs);
      let present = 0;
      let total = 0;
      paragraphs.forEach((source, n) => {
        const share = (text: string) => {
          const words = wordsOf(text);
          return words.filter((w) => outputWords.has(w)).length / words.length;
        };
        const words = wordsOf(source).length;
        present += Math.max(share(source), share(translations[n]!)) * words;
        total += words;
      });
      const ratio = present / total;
      report.push(`${d.name}: ${(100 * ratio).toFixed(1)} % of ${total} words`);
      assert.ok(ratio >= 0.95, `${d.name}: only ${(100 * ratio).toFixed(1)} % of the input's words are in the output`);
      if (d.kept.length > 0) assert.match(String(status.message), new RegExp(`kept untranslated on pages? ${d.kept.join(', ')} `), d.name);
      if (d.ocr) assert.match(String(status.message), new RegExp(`\\(OCR\\) read pages? ${d.ocr.join(', ')}:`), d.name);
      if (d.regions) assert.match(String(status.message), new RegExp(`read by text recognition \\(OCR\\) on pages? ${d.regions.join(', ')}:`), d.name);
      if (d.kept.length === 0 && !d.ocr) assert.equal(status.message, undefined, d.name);
    }
    t.diagnostic(report.join('; '));
  });
});
