// `tolk serve` as a user runs it: a real process on loopback, an account from the CLI, a translation over HTTP,
// JSON logs with trace ids, and a clean exit on SIGTERM.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/harness.js';
import { cliJson, startServe } from '../helpers/serve-process.js';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { waitFor } from '../helpers/wait.js';

it('serves translations from a fresh data directory and shuts down cleanly', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-serve-'));
  const [port, freePortNumber, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const env = {
    ...process.env,
    TOLK_DATA_DIR: dataDir,
    TOLK_PORT: String(port),
    TOLK_FREE_PORT: String(freePortNumber),
    TOLK_APERTIUM_PAIRS: 'en-es,es-en',
    TOLK_METRICS_PORT: String(metricsPort),
  };
  const server = await startServe(env);
  try {
    const account = await cliJson(env, ['account', 'create', '--plan', 'free']);
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
    // Metrics on their own port, without a key; not on the API then.
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(metrics.status, 200);
    const requests = parsePrometheusTextFormat(await metrics.text()).find((f) => f.name === 'tolk_http_requests_total')!;
    assert.equal(requests.metrics.find((m) => m.labels?.route === '/v2/translate' && m.labels.status === '200')?.value, '1');
    assert.equal((await fetch(`http://127.0.0.1:${port}/metrics`, { headers })).status, 404);
    // Log lines are buffered and flushed on a timer, not only when the buffer fills.
    const logged = () =>
      server.logs().split('\n').filter((l) => l.startsWith('{')).some((l) => (JSON.parse(l) as Record<string, unknown>).trace_id === traceId);
    await waitFor('a JSON log line carrying the trace id', logged);
    assert.equal(await server.stop('SIGTERM'), 0);
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
