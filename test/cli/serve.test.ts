// `tolk serve` as a user runs it: a real process on loopback, an account from the CLI, a translation over HTTP,
// JSON logs with trace ids, and a clean exit on SIGTERM.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/harness.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

it('serves translations from a fresh data directory and shuts down cleanly', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-serve-'));
  const [port, freePortNumber] = [await freePort(), await freePort()];
  const env = {
    ...process.env,
    TOLK_DATA_DIR: dataDir,
    TOLK_PORT: String(port),
    TOLK_FREE_PORT: String(freePortNumber),
    TOLK_APERTIUM_PAIRS: 'en-es,es-en',
  };
  const server = spawn(process.execPath, [CLI, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let logs = '';
  server.stdout.on('data', (d) => (logs += d));
  server.stderr.on('data', (d) => (logs += d));
  try {
    const deadline = Date.now() + 30_000;
    while (!logs.includes('Tolk is listening')) {
      if (Date.now() > deadline || server.exitCode !== null) assert.fail(`server did not start:\n${logs}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const account = JSON.parse((await run(process.execPath, [CLI, 'account', 'create', '--plan', 'free', '--json'], { env })).stdout);
    const headers = { authorization: `Service-Auth-Key ${account.admin_key}`, 'content-type': 'application/x-www-form-urlencoded' };
    const res = await fetch(`http://127.0.0.1:${freePortNumber}/v2/translate`, { method: 'POST', headers, body: 'text=Hello%20world&target_lang=ES' });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { translations: { text: string; detected_source_language: string }[] };
    assert.match(body.translations[0]!.text, /mundo/i);
    const traceId = res.headers.get('x-trace-id');
    assert.match(traceId ?? '', /^[0-9a-f]{32}$/);
    // The same free key on the paid port is refused with the right base URL.
    const wrong = await fetch(`http://127.0.0.1:${port}/v2/translate`, { method: 'POST', headers, body: 'text=Hi&target_lang=ES' });
    assert.equal(wrong.status, 403);
    assert.match(((await wrong.json()) as { message: string }).message, new RegExp(`:${freePortNumber}`));
    // Log lines are buffered and flushed at least every 200 ms.
    const logged = () =>
      logs.split('\n').filter((l) => l.startsWith('{')).some((l) => (JSON.parse(l) as Record<string, unknown>).trace_id === traceId);
    for (const stop = Date.now() + 2000; !logged() && Date.now() < stop; ) await new Promise((r) => setTimeout(r, 50));
    assert.ok(logged(), 'a JSON log line carries the trace id');
    server.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => server.once('exit', resolve));
    assert.equal(code, 0);
  } finally {
    if (server.exitCode === null) server.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
