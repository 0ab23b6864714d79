// `tolk serve` as a real process against a careless client: a document whose result file is gone is a clean 503 and
// the process keeps serving (no unhandled stream error); a key sent as ?auth_key= never reaches the log; the database
// file is 0600.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/harness.js';
import { cliJson, startServe } from '../helpers/serve-process.js';
import { waitFor } from '../helpers/wait.js';

it('survives a download whose result file is absent, and logs no key', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-serve-'));
  const freePortNumber = await freePort();
  const env = { ...process.env, TOLK_DATA_DIR: dataDir, TOLK_PORT: String(await freePort()), TOLK_FREE_PORT: String(freePortNumber), TOLK_APERTIUM_PAIRS: 'en-es' };
  const served = await startServe(env);
  try {
    const key = (await cliJson(env, ['account', 'create', '--plan', 'free'])).admin_key;
    assert.ok(key);
    const base = `http://127.0.0.1:${freePortNumber}`;
    const auth = { authorization: `Service-Auth-Key ${key}` };

    const form = new FormData();
    form.append('file', new Blob(['Hello world.\n']), 'a.txt');
    form.append('source_lang', 'EN');
    form.append('target_lang', 'ES');
    const up = await fetch(`${base}/v2/document`, { method: 'POST', headers: auth, body: form });
    assert.equal(up.status, 200);
    const { document_id, document_key } = (await up.json()) as { document_id: string; document_key: string };
    const formBody = { ...auth, 'content-type': 'application/x-www-form-urlencoded' };
    for (let status = ''; status !== 'done'; ) {
      const res = await fetch(`${base}/v2/document/${document_id}`, { method: 'POST', headers: formBody, body: `document_key=${document_key}` });
      status = ((await res.json()) as { status: string }).status;
      assert.notEqual(status, 'error');
    }
    const documents = join(dataDir, 'documents');
    for (const name of readdirSync(documents)) if (name.endsWith('.result')) rmSync(join(documents, name));

    const dl = await fetch(`${base}/v2/document/${document_id}/result`, { method: 'POST', headers: formBody, body: `document_key=${document_key}` });
    assert.equal(dl.status, 503);
    assert.match(((await dl.json()) as { message: string }).message, /not available/);
    // still serving after the failed download (a later crash shows in the exit code at the end)
    assert.equal((await fetch(`${base}/v2/languages`, { headers: auth })).status, 200);
    assert.equal(served.child.exitCode, null, `the server exited:\n${served.logs().slice(-2000)}`);

    const legacy = await fetch(`${base}/v2/languages?auth_key=${encodeURIComponent(key)}`);
    assert.equal(legacy.status, 403);
    const traceId = legacy.headers.get('x-trace-id')!;
    await waitFor('the refused request to be logged', () => served.logs().includes(traceId));
    assert.ok(!served.logs().includes(key), 'the key is not in the log');

    const db = readdirSync(dataDir).find((n) => n.endsWith('.db'));
    assert.ok(db, `no database file in ${readdirSync(dataDir).join(', ')}`);
    assert.equal(statSync(join(dataDir, db)).mode & 0o777, 0o600);
    assert.equal(await served.stop('SIGTERM'), 0);
  } finally {
    if (served.child.exitCode === null) served.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
