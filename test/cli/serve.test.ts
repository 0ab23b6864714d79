// `tolk serve` as a user runs it: a real process on loopback, an account from the CLI, a translation over HTTP,
// JSON logs with trace ids, and a clean exit on SIGTERM.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { startServe } from '../helpers/serve.js';

it('serves translations from a fresh data directory and shuts down cleanly', async () => {
  const served = await startServe({ TOLK_APERTIUM_PAIRS: 'en-es,es-en' });
  const { server, port, freePort: freePortNumber } = served;
  try {
    const account = JSON.parse(await served.cli('account', 'create', '--plan', 'free', '--json'));
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
      served.logs().split('\n').filter((l) => l.startsWith('{')).some((l) => (JSON.parse(l) as Record<string, unknown>).trace_id === traceId);
    for (const stop = Date.now() + 2000; !logged() && Date.now() < stop; ) await new Promise((r) => setTimeout(r, 50));
    assert.ok(logged(), 'a JSON log line carries the trace id');
    server.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => server.once('exit', resolve));
    assert.equal(code, 0);
  } finally {
    served.cleanup();
  }
});
