// Document benchmark: a ~20-page txt through the whole pipeline (upload → queue → translate → encrypted result →
// download) against the raw engine time for the same lines (TranslateService.translate in one call), en→es.
//
// Run: npm run bench:documents [-- --lines=600 --runs=3]

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { buildServices } from '../src/services.js';
import { buildApp } from '../src/app.js';
import { ApertiumEngine } from '../src/engines/apertium/index.js';
import { textRequest } from '../src/documents/document-request.js';
import { multipart } from '../test/documents/multipart.js';

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k!, v ?? 'true'] as const;
  }),
);
const LINES = Number(args.get('lines') ?? 600);
const RUNS = Number(args.get('runs') ?? 3);
const here = path.dirname(fileURLToPath(import.meta.url));
const flores = readFileSync(path.resolve(here, '../../../shared/data/flores-dev/flores-dev.en'), 'utf8').split('\n').filter(Boolean);
// ~20 pages: paragraphs of 3 sentences separated by blank lines, ~600 sentences (~75 KB)
const lines = Array.from({ length: LINES }, (_, i) => flores[i % flores.length]!);
const text = lines.map((l, i) => (i % 3 === 2 ? `${l}\n` : l)).join('\n') + '\n';

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

  // warm-up: both paths once
  await services.translate.translate(textRequest(segments.slice(0, 50), { targetLang: 'es', sourceLang: 'en', formality: 'default' }), segments.slice(0, 50).map(() => 'en'));

  const engineMs: number[] = [];
  const chunkedMs: number[] = [];
  const pipelineMs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    let t = performance.now();
    await services.translate.translate(textRequest(segments, { targetLang: 'es', sourceLang: 'en', formality: 'default' }), segments.map(() => 'en'));
    engineMs.push(performance.now() - t);

    // the same engine work in the pipeline's chunks (40 lines), one after another
    t = performance.now();
    for (let i = 0; i < segments.length; i += 40) {
      const chunk = segments.slice(i, i + 40);
      await services.translate.translate(textRequest(chunk, { targetLang: 'es', sourceLang: 'en', formality: 'default' }), chunk.map(() => 'en'));
    }
    chunkedMs.push(performance.now() - t);

    t = performance.now();
    const { payload, contentType } = multipart([
      { name: 'file', filename: 'report.txt', content: text },
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
    pipelineMs.push(performance.now() - t);
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
  await app.close();
  await services.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
