// Peak memory of a long docx in a format thread (the job's path: extraction, translation through the main thread,
// rebuilding), at n and 4n paragraphs of FLORES text: the growth should be near-linear in the document and a small
// multiple of its XML. Baseline in the same run: the same thread on a 1,000-paragraph docx.
//   npm run bench:ooxml-memory -- --paragraphs=45000
import { DEFAULT_FORMAT_MEMORY_MB } from '../src/documents/document-worker.js';
import { FormatThreads } from '../src/documents/format-threads.js';
import { floresLines } from '../test/helpers/flores.js';
import { MIB, sampleMemory } from '../test/helpers/peak-memory.js';
import { manyParagraphsDocx } from '../test/helpers/zip.js';
import { benchArgs } from './args.js';

const args = benchArgs();
const n = Number(args.get('paragraphs') ?? 45_000);
const sentences = floresLines('en');

/** One fresh thread per document, so no run sees another's garbage. */
async function measure(paragraphs: number): Promise<{ bytes: number; growthMib: number; ms: number }> {
  const threads = new FormatThreads({ budgetMs: 600_000, maxHeapMb: DEFAULT_FORMAT_MEMORY_MB });
  try {
    const input = await manyParagraphsDocx(sentences, paragraphs);
    const sampler = sampleMemory();
    const t0 = performance.now();
    const doc = await threads.extract('docx', input, { targetLang: 'es' }, new AbortController().signal);
    try {
      await doc.translateWith!(async (texts) => texts.map((t) => t.toUpperCase()));
    } finally {
      doc.release();
    }
    const growth = sampler.stop() - sampler.baseline;
    return { bytes: input.length, growthMib: Math.round(growth / MIB), ms: Math.round(performance.now() - t0) };
  } finally {
    await threads.close();
  }
}

console.log('| paragraphs | docx bytes | peak RSS growth | time |\n|---:|---:|---:|---:|');
for (const paragraphs of [1000, n, 4 * n]) {
  const r = await measure(paragraphs);
  console.log(`| ${paragraphs.toLocaleString('en')} | ${r.bytes.toLocaleString('en')} | ${r.growthMib} MiB | ${(r.ms / 1000).toFixed(1)} s |`);
}
