// Two Tolk nodes on one PostgreSQL with no shared disk, behind HAProxy (issue 25): requests alternate between the
// nodes, a document uploaded through one downloads through the other, a node killed with kill -9 during a document
// job leaves it to the other one, a key's rate limit is spent once across both, and the usage totals equal what was
// sent. Skips only without haproxy or PostgreSQL.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { clusterUnavailable, startCluster, type Cluster } from '../helpers/cluster-nodes.js';
import { floresLines } from '../helpers/flores.js';
import { HUNG_TEST_MS, waitFor } from '../helpers/wait.js';

const unavailable = await clusterUnavailable();
/** Short, so the surviving node takes the dead node's job quickly; renewed every third of it. */
const LEASE_MS = 3000;
/** Requests per key and minute: above what the other cases send with their one key, reached by one case's burst. */
const RATE_LIMIT = 600;

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  await waitFor(what, check);
}

interface Uploaded {
  document_id: string;
  document_key: string;
}

describe('a cluster of two nodes behind HAProxy', { skip: unavailable, timeout: 5 * HUNG_TEST_MS }, () => {
  let cluster: Cluster;
  let auth: Record<string, string>;
  /** Characters this test sent that must be billed: translated texts and downloaded documents. */
  let sent = 0;

  before(async () => {
    cluster = await startCluster({ env: { TOLK_DOCUMENT_LEASE_MS: String(LEASE_MS), TOLK_DOCUMENT_WORKERS: '1', TOLK_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) } });
    const key = (await cluster.cli(['account', 'create', '--plan', 'pro'])).admin_key;
    assert.ok(key);
    auth = { authorization: `DeepL-Auth-Key ${key}` };
  });
  after(async () => {
    await cluster?.close();
  });

  const translate = async (base: string, text: string) => {
    const res = await fetch(`${base}/v2/translate`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ text: [text], source_lang: 'EN', target_lang: 'ES' }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    sent += text.length;
    return { node: res.headers.get('x-tolk-node'), text: ((await res.json()) as { translations: { text: string }[] }).translations[0]!.text };
  };

  const upload = async (base: string, content: string): Promise<Uploaded & { node: string }> => {
    const form = new FormData();
    form.append('file', new Blob([content]), 'a.txt');
    form.append('source_lang', 'EN');
    form.append('target_lang', 'ES');
    const res = await fetch(`${base}/v2/document`, { method: 'POST', headers: auth, body: form });
    assert.equal(res.status, 200, await res.clone().text());
    return { ...((await res.json()) as Uploaded), node: res.headers.get('x-tolk-node') ?? base };
  };

  const form = (doc: Uploaded) => ({
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
    body: `document_key=${doc.document_key}`,
  });

  const waitDone = async (base: string, doc: Uploaded, ms: number) => {
    for (const end = Date.now() + ms; ; ) {
      const res = await fetch(`${base}/v2/document/${doc.document_id}`, form(doc));
      assert.equal(res.status, 200, await res.clone().text());
      const body = (await res.json()) as { status: string; billed_characters?: number; error_message?: string };
      assert.notEqual(body.status, 'error', body.error_message);
      if (body.status === 'done') return body.billed_characters!;
      if (Date.now() > end) assert.fail(`document still ${body.status} after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  const download = async (base: string, doc: Uploaded, billed: number) => {
    const res = await fetch(`${base}/v2/document/${doc.document_id}/result`, form(doc));
    assert.equal(res.status, 200, await res.clone().text());
    sent += billed;
    return { node: res.headers.get('x-tolk-node'), text: await res.text() };
  };

  it('alternates translations between the nodes', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const res = await translate(cluster.url, `The house number ${i} is big.`);
      assert.match(res.text, /casa/i);
      seen.add(res.node!);
    }
    assert.deepEqual([...seen].sort(), cluster.nodes.map((n) => n.name).sort());
  });

  it('a document uploaded through one node is translated, polled and downloaded through the other', async () => {
    const [a, b] = cluster.nodes;
    const doc = await upload(a!.url, 'The dog sleeps in the house.\nThe cat is small.');
    const billed = await waitDone(b!.url, doc, HUNG_TEST_MS);
    const result = await download(b!.url, doc, billed);
    assert.match(result.text, /perro/i);
    // its files are deleted from the database once the response has gone out (no node kept one on its disk)
    await until('the downloaded files to be deleted', async () => {
      const rows = await cluster.query<{ n: string }>('select count(*) as n from document_chunks where file_id = $1', [doc.document_id]);
      return Number(rows[0]!.n) === 0;
    });
    // downloaded once, whichever node is asked again
    assert.equal((await fetch(`${a!.url}/v2/document/${doc.document_id}/result`, form(doc))).status, 404);
  });

  it('uploads and downloads through the load balancer land on both nodes', async () => {
    const docs: (Uploaded & { node: string })[] = [];
    for (let i = 0; i < 4; i++) docs.push(await upload(cluster.url, `Document ${i}: the house is big.`));
    assert.equal(new Set(docs.map((d) => d.node)).size, 2, `uploads taken by ${docs.map((d) => d.node).join(', ')}`);
    let crossed = 0;
    for (const doc of docs) {
      const billed = await waitDone(cluster.url, doc, HUNG_TEST_MS);
      const result = await download(cluster.url, doc, billed);
      assert.match(result.text, /casa/i);
      if (result.node !== doc.node) crossed++;
    }
    assert.ok(crossed > 0, 'some document was downloaded through another node than the one that took its upload');
  });

  it('a TMX import uploaded through one node is exported and downloaded through the other', async () => {
    const [a, b] = cluster.nodes;
    const json = { ...auth, 'content-type': 'application/json' };
    const tmx = readFileSync(new URL('../../../test/fixtures/customization/small.tmx', import.meta.url));
    const start = await fetch(`${a!.url}/v3/translation_memories/import`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ source_file: { file_name: 'a.tmx', content_length: tmx.length }, parameters: { display_name: 'Cluster' } }),
    });
    assert.equal(start.status, 200, await start.clone().text());
    const { job_id, upload_url } = (await start.json()) as { job_id: string; upload_url: string };
    // the URL node A signed, sent to node B
    const upload = new URL(upload_url);
    const put = await fetch(`${b!.url}${upload.pathname}${upload.search}`, { method: 'PUT', headers: { 'content-type': 'application/xml' }, body: tmx });
    assert.equal(put.status, 204, await put.text());
    const result = async (base: string, id: string) =>
      ((await (await fetch(`${base}/v3/translation_memories/jobs/${id}`, { headers: auth })).json()) as { results: Record<string, any>[] }).results[0]!;
    await until('the import to complete', async () => (await result(a!.url, job_id)).status === 'completed');
    const memoryId = (await result(a!.url, job_id)).translation_memory_id as string;
    const exp = await fetch(`${a!.url}/v3/translation_memories/${memoryId}/export`, { method: 'POST', headers: auth });
    assert.equal(exp.status, 202, await exp.clone().text());
    const exportJob = ((await exp.json()) as { job_id: string }).job_id;
    await until('the export to complete', async () => (await result(b!.url, exportJob)).status === 'completed');
    const download = new URL((await result(b!.url, exportJob)).download_url as string);
    const dl = await fetch(`${a!.url}${download.pathname}${download.search}`);
    assert.equal(dl.status, 200);
    assert.match(await dl.text(), /La impresora no tiene papel\./);
  });

  it('the request rate limit of a key holds across both nodes: its budget is spent once, not once per node', async () => {
    const key = (await cluster.cli(['account', 'create', '--plan', 'pro'])).admin_key;
    const headers = { authorization: `DeepL-Auth-Key ${key}` };
    const statuses = new Map<number, number>();
    const nodes = new Set<string>();
    // one window starts at the key's first request; the burst ends long before it does
    const burst = RATE_LIMIT + 40;
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < burst) {
        next += 1;
        const res = await fetch(`${cluster.url}/v2/usage`, { headers });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 200) nodes.add(res.headers.get('x-tolk-node') ?? '');
      }
    }));
    assert.deepEqual([...nodes].sort(), cluster.nodes.map((n) => n.name).sort(), 'premise: both nodes answered');
    assert.equal(statuses.get(200), RATE_LIMIT, `statuses: ${JSON.stringify([...statuses])}`);
    assert.equal(statuses.get(429), burst - RATE_LIMIT);
  });

  it('a node killed (kill -9) during a document job leaves it to the other node, which finishes it', async () => {
    const text = floresLines('en').join('\n');
    const doc = await upload(cluster.nodes[0]!.url, text);
    // the node whose worker holds the job (workers log their lease owner id when they start)
    let holder: string | undefined;
    for (const end = Date.now() + 60_000; holder === undefined; ) {
      const [row] = await cluster.query<{ status: string; lease_owner: string | null }>('select status, lease_owner from documents where id = $1', [doc.document_id]);
      if (row?.status === 'translating' && row.lease_owner) holder = row.lease_owner;
      else if (Date.now() > end) assert.fail(`the job was never claimed (${row?.status})`);
      else await new Promise((r) => setTimeout(r, 20));
    }
    const victim = cluster.nodes.find((n) => n.serve.logs().includes(holder!));
    assert.ok(victim, `no node logged worker ${holder}`);
    await victim.kill();
    const [row] = await cluster.query<{ status: string }>('select status from documents where id = $1', [doc.document_id]);
    assert.equal(row!.status, 'translating', 'premise: the job was still running when its node died');

    const survivor = cluster.nodes.find((n) => n !== victim)!;
    // polled and downloaded through the load balancer, which must route around the dead node
    const billed = await waitDone(cluster.url, doc, 180_000);
    const [after] = await cluster.query<{ attempts: number }>('select attempts from documents where id = $1', [doc.document_id]);
    assert.equal(Number(after!.attempts), 2, 'claimed once by each node');
    const result = await download(cluster.url, doc, billed);
    assert.equal(result.node, survivor.name);
    assert.equal(result.text.split('\n').filter((l) => l.trim() !== '').length, text.split('\n').length);
    assert.match(result.text, /\b(el|la|de)\b/);
    assert.ok(billed >= text.length * 0.9, `billed ${billed} for ${text.length} characters`);
  });

  it('usage totals equal what was sent, read through the surviving node', async () => {
    const count = async () => {
      const res = await fetch(`${cluster.url}/v2/usage`, { headers: auth });
      assert.equal(res.status, 200);
      return ((await res.json()) as { character_count: number }).character_count;
    };
    // a download is charged once its response has gone out, just after the client has it
    let last = 0;
    try {
      await until(`usage to reach ${sent}`, async () => (last = await count()) >= sent);
    } catch (err) {
      // what the nodes said about charges, to tell a lost charge from a slow one
      const said = cluster.nodes.flatMap((n) => n.serve.logs().split('\n').filter((l) => /charge|completion|release|delivery|"level":[56]0/.test(l)));
      assert.fail(`${(err as Error).message}: usage stayed at ${last} of ${sent}\n${said.slice(-30).join('\n')}`);
    }
    assert.equal(await count(), sent);
  });
});
