// Document throughput of a cluster: the same batch of txt documents (FLORES en, translated to es) uploaded at once
// through HAProxy, polled and downloaded, with one node and with two nodes on one PostgreSQL (documents in the
// database), and one node with its documents on disk as the baseline of the database store. Each configuration is a
// fresh cluster (test/helpers/cluster-nodes.ts); start-up is not timed. On one machine the nodes share its cores.
//
// Run: npm run bench:documents-cluster [-- --docs=12 --lines=150 --runs=2]

import { benchArgs } from './args.js';
import { floresLines } from '../test/helpers/flores.js';
import { clusterUnavailable, startCluster } from '../test/helpers/cluster-nodes.js';

const args = benchArgs();
const DOCS = Number(args.get('docs') ?? 12);
const LINES = Number(args.get('lines') ?? 150);
const RUNS = Number(args.get('runs') ?? 2);
const flores = floresLines('en');
const documents = Array.from({ length: DOCS }, (_, d) =>
  Array.from({ length: LINES }, (_, i) => flores[(d * LINES + i) % flores.length]!).join('\n') + '\n',
);
const characters = documents.reduce((n, t) => n + t.length, 0);

interface Setup {
  name: string;
  nodes: number;
  env: Record<string, string>;
}
const setups: Setup[] = [
  { name: '1 node, disk store (baseline)', nodes: 1, env: { TOLK_DOCUMENT_STORE: 'disk' } },
  { name: '1 node, database store', nodes: 1, env: {} },
  { name: '2 nodes, database store', nodes: 2, env: {} },
];

async function batch(url: string, auth: Record<string, string>): Promise<number> {
  const start = performance.now();
  await Promise.all(
    documents.map(async (content) => {
      const form = new FormData();
      form.append('file', new Blob([content]), 'a.txt');
      form.append('source_lang', 'EN');
      form.append('target_lang', 'ES');
      const up = await fetch(`${url}/v2/document`, { method: 'POST', headers: auth, body: form });
      if (up.status !== 200) throw new Error(`upload: ${up.status} ${await up.text()}`);
      const doc = (await up.json()) as { document_id: string; document_key: string };
      const init = { method: 'POST', headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, body: `document_key=${doc.document_key}` };
      for (;;) {
        const res = await fetch(`${url}/v2/document/${doc.document_id}`, init);
        if (res.status !== 200) throw new Error(`status: ${res.status} ${await res.text()}`);
        const st = (await res.json()) as { status: string; message?: string };
        if (st.status === 'error') throw new Error(`document failed: ${st.message}`);
        if (st.status === 'done') break;
        await new Promise((r) => setTimeout(r, 250));
      }
      const dl = await fetch(`${url}/v2/document/${doc.document_id}/result`, init);
      if (dl.status !== 200) throw new Error(`download: ${dl.status}`);
      await dl.arrayBuffer();
    }),
  );
  return performance.now() - start;
}

async function main() {
  const why = await clusterUnavailable();
  if (why) throw new Error(`cannot start a cluster: ${why}`);
  console.log(`${DOCS} txt documents of ${LINES} lines (${characters} characters in all), en→es, ${RUNS} runs per configuration`);
  const results: { name: string; ms: number[] }[] = [];
  for (const setup of setups) {
    const cluster = await startCluster({ nodes: setup.nodes, env: setup.env });
    try {
      const key = (await cluster.cli(['account', 'create', '--plan', 'pro'])).admin_key!;
      const auth = { authorization: `DeepL-Auth-Key ${key}` };
      await batch(cluster.url, auth); // warm-up: every node's pipelines and format threads
      const ms: number[] = [];
      for (let r = 0; r < RUNS; r++) ms.push(await batch(cluster.url, auth));
      results.push({ name: setup.name, ms });
    } finally {
      await cluster.close();
    }
  }
  const base = Math.min(...results[0]!.ms);
  for (const r of results) {
    const best = Math.min(...r.ms);
    console.log(
      `${r.name.padEnd(32)} best ${(best / 1000).toFixed(2)} s (runs ${r.ms.map((m) => (m / 1000).toFixed(2)).join(', ')} s)  ` +
        `${((DOCS / best) * 60_000).toFixed(1)} documents/min  ${Math.round((characters / best) * 1000)} characters/s  ${(base / best).toFixed(2)}× baseline`,
    );
  }
}

await main();
