// Document benchmark: a ~20-page txt and a ~20-page docx through the whole pipeline (upload → queue → translate →
// encrypted result → download) against the raw engine time for the same text (TranslationCore.translateSegments), en→es.
//
// Run: npm run bench:documents [-- --lines=600 --runs=3]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { buildServices } from '../src/services.js';
import { buildApp } from '../src/app.js';
import { ApertiumEngine } from '../src/engines/apertium/index.js';
import { documentSpec } from '../src/documents/document-request.js';
import { multipart } from '../test/documents/multipart.js';
import { minimalDocx } from '../test/helpers/zip.js';
import { docxFormat } from '../src/documents/formats/ooxml.js';
import { benchArgs } from './args.js';
import { floresLines } from '../test/helpers/flores.js';

const args = benchArgs();
const LINES = Number(args.get('lines') ?? 600);
const RUNS = Number(args.get('runs') ?? 3);
const flores = floresLines('en');
// ~20 pages: paragraphs of 3 sentences separated by blank lines, ~600 sentences (~75 KB)
const lines = Array.from({ length: LINES }, (_, i) => flores[i % flores.length]!);
const text = lines.map((l, i) => (i % 3 === 2 ? `${l}\n` : l)).join('\n') + '\n';

// The same sentences as a docx: one paragraph per three sentences, every second paragraph with a bold phrase (three
// words in the middle of its first sentence) and every fifth with an italic one, as Word writes runs.
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const run = (t: string, rPr = '') => `<w:r>${rPr ? `<w:rPr>${rPr}</w:rPr>` : ''}<w:t xml:space="preserve">${esc(t)}</w:t></w:r>`;
const paragraphs: string[] = [];
for (let i = 0; i < lines.length; i += 3) paragraphs.push(lines.slice(i, i + 3).join(' '));
const docxBody = paragraphs
  .map((p, i) => {
    const words = p.split(' ');
    const rPr = i % 2 === 0 ? '<w:b/>' : i % 5 === 0 ? '<w:i/>' : '';
    if (!rPr || words.length < 8) return `<w:p>${run(p)}</w:p>`;
    return `<w:p>${run(words.slice(0, 3).join(' ') + ' ')}${run(words.slice(3, 6).join(' '), rPr)}${run(' ' + words.slice(6).join(' '))}</w:p>`;
  })
  .join('');
const docx = await minimalDocx(docxBody);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'tolk-bench-docs-'));
  const config = loadConfig({ TOLK_DATA_DIR: dir, TOLK_PORT: '8080', TOLK_FREE_PORT: '8080', TOLK_LOG_LEVEL: 'silent' });
  const services = await buildServices(config, { engineOverride: [new ApertiumEngine({ pairs: ['en-es'] })] });
  const app = await buildApp({ config, services, logger: false });
  await app.ready();
  const { account } = await services.accounts.createAccount({ plan: 'pro' });
  const key = await services.accounts.createKey(account.id);
  const headers = { authorization: `Service-Auth-Key ${key.secret}` };
  const segments = lines;

  const enEs = await services.translate.prepare(account.id, documentSpec({ targetLang: 'es', sourceLang: 'en', formality: 'default' }));
  // warm-up: both paths once
  await services.translate.translateSegments(enEs, segments.slice(0, 50));

  const engineMs: number[] = [];
  const chunkedMs: number[] = [];
  const pipelineMs: number[] = [];
  const docxEngineMs: number[] = [];
  const docxSentMs: number[] = [];
  // What the docx pipeline sends to the engine: the paragraphs plus each formatted span alone (realign placement).
  let sent: string[] = [];
  await (await docxFormat.extract(docx, { targetLang: 'es' })).translateWith!(async (texts) => {
    if (sent.length === 0) sent = texts;
    return texts;
  });
  const docxMs: number[] = [];
  const roundTrip = async (filename: string, content: string | Buffer) => {
    const { payload, contentType } = multipart([
      { name: 'file', filename, content },
      { name: 'source_lang', value: 'EN' },
      { name: 'target_lang', value: 'ES' },
    ]);
    const up = await app.inject({ method: 'POST', url: '/v2/document', headers: { ...headers, 'content-type': contentType }, payload });
    const { document_id, document_key } = up.json();
    for (;;) {
      const s = await app.inject({ method: 'POST', url: `/v2/document/${document_id}`, headers, payload: { document_key } });
      const st = s.json().status;
      if (st === 'done') break;
      if (st === 'error') throw new Error(s.body);
    }
    const dl = await app.inject({ method: 'POST', url: `/v2/document/${document_id}/result`, headers, payload: { document_key } });
    if (dl.statusCode !== 200) throw new Error(dl.body);
  };
  for (let run = 0; run < RUNS; run++) {
    let t = performance.now();
    await services.translate.translateSegments(enEs, segments);
    engineMs.push(performance.now() - t);

    // the same engine work in the pipeline's chunks (40 lines), one after another
    t = performance.now();
    for (let i = 0; i < segments.length; i += 40) {
      const chunk = segments.slice(i, i + 40);
      await services.translate.translateSegments(enEs, chunk);
    }
    chunkedMs.push(performance.now() - t);

    t = performance.now();
    await roundTrip('report.txt', text);
    pipelineMs.push(performance.now() - t);

    // docx: the raw engine on its paragraphs (one call), then the whole pipeline
    t = performance.now();
    await services.translate.translateSegments(enEs, paragraphs, { splitSentences: 'nonewlines' });
    docxEngineMs.push(performance.now() - t);
    t = performance.now();
    await services.translate.translateSegments(enEs, sent, { splitSentences: 'nonewlines' });
    docxSentMs.push(performance.now() - t);
    t = performance.now();
    await roundTrip('report.docx', docx);
    docxMs.push(performance.now() - t);
  }
  const e = median(engineMs);
  const p = median(pipelineMs);
  const c = median(chunkedMs);
  console.log(`document: ${LINES} sentences, ${Buffer.byteLength(text)} bytes, ${RUNS} runs (median)`);
  console.log(`| path | ms | × engine |`);
  console.log(`|---|---:|---:|`);
  console.log(`| raw engine (TranslateService.translate, one call) | ${e.toFixed(0)} | 1.00 |`);
  console.log(`| raw engine in 40-line chunks, sequential | ${c.toFixed(0)} | ${(c / e).toFixed(2)} |`);
  console.log(`| /v2/document upload → done → download | ${p.toFixed(0)} | ${(p / e).toFixed(2)} |`);
  const de = median(docxEngineMs);
  const d = median(docxMs);
  console.log(`\ndocx: ${paragraphs.length} paragraphs (${Math.ceil(paragraphs.length / 2)} with a bold or italic phrase), ${docx.length} bytes`);
  console.log(`| path | ms | × engine |`);
  console.log(`|---|---:|---:|`);
  console.log(`| raw engine on the paragraphs (TranslateService.translate, one call) | ${de.toFixed(0)} | 1.00 |`);
  const ds = median(docxSentMs);
  console.log(`| raw engine on the paragraphs and the ${sent.length - paragraphs.length} formatted spans (one call) | ${ds.toFixed(0)} | ${(ds / de).toFixed(2)} |`);
  console.log(`| /v2/document docx upload → done → download | ${d.toFixed(0)} | ${(d / de).toFixed(2)} |`);
  await app.close();
  await services.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
