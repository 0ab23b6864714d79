// Graceful shutdown of a real `tolk serve` process: SIGTERM during a document job and a burst of translations loses
// no accepted request, hands the job back to the queue (no lease to wait out), and charges usage exactly once.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { freePort } from '../helpers/harness.js';
import { cliJson, startServe } from '../helpers/serve-process.js';
import { waitFor } from '../helpers/wait.js';

/** One POST on its own connection. */
function post(port: number, path: string, headers: Record<string, string>, body: string): { written: Promise<void>; answer: Promise<{ status: number; body: string }> } {
  let written!: () => void;
  const writtenP = new Promise<void>((r) => (written = r));
  const answer = new Promise<{ status: number; body: string }>((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', agent: false, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (data += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    // A reset is a failure here too (every request was written before the signal): report it as status 0.
    req.on('error', (err) => resolve({ status: 0, body: err.message }));
    req.end(body, () => written());
  });
  return { written: writtenP, answer };
}

it('SIGTERM: accepted requests answered, document job handed back and finished after restart, usage charged once', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-shutdown-'));
  const port = await freePort();
  const env = { ...process.env, TOLK_DATA_DIR: dataDir, TOLK_PORT: String(port), TOLK_FREE_PORT: String(port), TOLK_APERTIUM_PAIRS: 'en-es', TOLK_LOG_LEVEL: 'debug' };
  let server = await startServe(env);
  try {
    const account = await cliJson(env, ['account', 'create', '--plan', 'pro']);
    const auth = { authorization: `Service-Auth-Key ${account.admin_key}` };
    const base = `http://127.0.0.1:${port}`;

    // A document long enough to be translating when the signal comes.
    const lines = Array.from({ length: 6000 }, (_, i) => `The house number ${i} is big and the garden is green.`).join('\n');
    const form = new FormData();
    form.set('target_lang', 'ES');
    form.set('source_lang', 'EN');
    form.set('file', new Blob([lines], { type: 'text/plain' }), 'long.txt');
    const up = await fetch(`${base}/v2/document`, { method: 'POST', headers: auth, body: form });
    assert.equal(up.status, 200, await up.clone().text());
    const { document_id: id, document_key: key } = (await up.json()) as { document_id: string; document_key: string };
    const status = async () => {
      const res = await fetch(`${base}/v2/document/${id}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ document_key: key }) });
      assert.equal(res.status, 200);
      return (await res.json()) as { status: string; billed_characters?: number };
    };
    for (let s = await status(); s.status !== 'translating'; s = await status()) assert.equal(s.status, 'queued');

    // A burst of translations, every request received by the server (its debug line "incoming request") before the
    // signal: then each must be answered.
    // Each text is long enough (40 sentences) that the burst is still being translated when the signal comes.
    const texts = Array.from({ length: 24 }, (_, i) => `Request ${i}: ` + 'The cat sleeps in the warm kitchen. '.repeat(40).trim());
    const json = { ...auth, 'content-type': 'application/json' };
    const burst = texts.map((t) => post(port, '/v2/translate', json, JSON.stringify({ text: [t], source_lang: 'EN', target_lang: 'ES' })));
    await Promise.all(burst.map((b) => b.written));
    const received = () => server.logs().split('\n').filter((l) => l.includes('incoming request') && l.includes('/v2/translate')).length;
    await waitFor('every request of the burst to be received', () => received() >= texts.length);
    assert.equal(await server.stop('SIGTERM'), 0, server.logs());
    const answers = await Promise.all(burst.map((b) => b.answer));
    const complaints = () => server.logs().split('\n').filter((l) => /"level":(4|5)0|shut/.test(l)).join('\n');
    for (const a of answers) assert.equal(a.status, 200, `${a.body}\n${complaints()}`);
    assert.match(server.logs(), /document job handed back/);
    // The burst was still in flight when the signal came (the document job holds the pair's pipeline).
    const afterSignal = server.logs().split('"shutting down"')[1]!.split('\n').filter((l) => l.includes('request completed') && l.includes('/v2/translate'));
    assert.ok(afterSignal.length > 0, 'some translations were answered after the signal');

    // The job is back in the queue with no lease, and its interrupted claim is not counted against it.
    const db = new Database(join(dataDir, 'tolk.db'), { readonly: true });
    const row = db.prepare('SELECT status, lease_owner, lease_expires_at, attempts FROM documents WHERE id = ?').get(id) as Record<string, unknown>;
    db.close();
    assert.deepEqual(row, { status: 'queued', lease_owner: null, lease_expires_at: null, attempts: 0 });

    // Restarted, the node claims the job at once and finishes it; the download is charged once, with the burst.
    server = await startServe(env);
    let done = await status();
    while (done.status !== 'done') {
      assert.match(done.status, /^(queued|translating)$/);
      done = await status();
    }
    const dl = await fetch(`${base}/v2/document/${id}/result`, { method: 'POST', headers: json, body: JSON.stringify({ document_key: key }) });
    assert.equal(dl.status, 200);
    assert.equal((await dl.text()).split('\n').length, 6000);
    // The download is charged once the client proves it received it: its next request on that connection, or the
    // connection's clean end (at the latest when the server's keep-alive timeout closes it).
    const burstChars = texts.reduce((n, t) => n + [...t].length, 0);
    const charged = async () => ((await (await fetch(`${base}/v2/usage`, { headers: auth })).json()) as { character_count: number }).character_count;
    await waitFor('the download to be charged', async () => (await charged()) !== burstChars);
    assert.equal(await charged(), burstChars + done.billed_characters!);
    assert.equal(await server.stop('SIGINT'), 0);
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
