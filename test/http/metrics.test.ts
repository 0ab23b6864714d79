// /metrics after real traffic, read with a Prometheus text-format parser: the counters match what was sent.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { authHeaders, createAccount, createTestApp, type TestAccount, type TestContext } from '../helpers/harness.js';

let ctx: TestContext;
let account: TestAccount;
before(async () => {
  ctx = await createTestApp();
  account = await createAccount(ctx);
});
after(async () => ctx.close());

type Families = ReturnType<typeof parsePrometheusTextFormat>;
function sample(families: Families, name: string, labels: Record<string, string> = {}) {
  const family = families.find((f) => f.name === name);
  assert.ok(family, `${name} is exposed`);
  return family.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

it('counts requests by route and status, latency, characters by engine and pair, and reads the gauges', async () => {
  const texts = ['The cat sleeps.', 'The house is big.', 'Where is the station?', 'I like green apples.', 'Ça va très bien.'];
  for (const text of texts.slice(0, 4)) {
    const res = await ctx.app.inject({ method: 'POST', url: '/v2/translate', headers: authHeaders(account), payload: { text: [text], source_lang: 'EN', target_lang: 'ES' } });
    assert.equal(res.statusCode, 200, res.body);
  }
  const fr = await ctx.app.inject({ method: 'POST', url: '/v2/translate', headers: authHeaders(account), payload: { text: [texts[4]], source_lang: 'FR', target_lang: 'ES' } });
  assert.equal(fr.statusCode, 200, fr.body);
  for (let i = 0; i < 3; i++) {
    const bad = await ctx.app.inject({ method: 'POST', url: '/v2/translate', headers: authHeaders(account), payload: { text: ['x'] } });
    assert.equal(bad.statusCode, 400);
  }
  const document = await ctx.app.inject({ method: 'POST', url: '/v2/document/abc', headers: authHeaders(account), payload: { document_key: 'k' } });
  assert.ok(document.statusCode >= 400);
  await ctx.app.inject({ method: 'GET', url: '/no/such/path', headers: authHeaders(account) });

  // Admin key only.
  const developer = await ctx.app.inject({ method: 'GET', url: '/metrics', headers: authHeaders(account) });
  assert.equal(developer.statusCode, 403);
  const res = await ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Service-Auth-Key ${account.adminKey}`, host: account.host } });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const families = parsePrometheusTextFormat(res.body);

  const requests = (route: string, status: string) => Number(sample(families, 'tolk_http_requests_total', { route, method: 'POST', status })?.value ?? 0);
  assert.equal(requests('/v2/translate', '200'), 5);
  assert.equal(requests('/v2/translate', '400'), 3);
  assert.equal(requests('/v2/document/:document_id', String(document.statusCode)), 1);
  assert.equal(Number(sample(families, 'tolk_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })?.value), 1);
  // The parser folds labelled histograms into one bucket map; the count per route is read from the registry.
  assert.equal(families.find((f) => f.name === 'tolk_http_request_duration_seconds')?.type, 'HISTOGRAM');
  const latency = await ctx.services.metrics.registry.getSingleMetric('tolk_http_request_duration_seconds')!.get();
  const values = latency.values as { metricName?: string; labels: Record<string, unknown>; value: number }[];
  const count = values.find((v) => v.metricName === 'tolk_http_request_duration_seconds_count' && v.labels.route === '/v2/translate');
  assert.equal(count?.value, 8);

  const chars = (pair: string) => Number(sample(families, 'tolk_translated_characters_total', { engine: 'apertium', pair })?.value ?? 0);
  assert.equal(chars('en-es'), texts.slice(0, 4).reduce((n, t) => n + [...t].length, 0));
  assert.equal(chars('fr-es'), [...texts[4]!].length);

  assert.equal(Number(sample(families, 'tolk_engine_queue_depth', { pair: 'en-es' })?.value), 0);
  assert.equal(Number(sample(families, 'tolk_apertium_pipelines', { pair: 'en-es' })?.value), 1);
  assert.equal(Number(sample(families, 'tolk_apertium_pipeline_restarts_total', { pair: 'en-es' })?.value), 0);
  assert.equal(Number(sample(families, 'tolk_voice_sessions_open')?.value), 0);
  assert.ok(Number(sample(families, 'tolk_db_pool_connections', { state: 'total' })?.value) >= 1);
  assert.ok(Number(sample(families, 'process_resident_memory_bytes')?.value) > 0);
});

it('reports jobs by kind and status with the age of the oldest', async () => {
  // Before any job: every series present at 0, and no document job ended yet.
  const empty = parsePrometheusTextFormat((await ctx.services.metrics.exposition()).body);
  for (const status of ['queued', 'translating', 'done', 'error']) assert.equal(sample(empty, 'tolk_jobs', { kind: 'document', status })?.value, '0', status);
  for (const status of ['awaiting_input', 'processing', 'completed', 'failed']) assert.equal(sample(empty, 'tolk_jobs', { kind: 'translation_memory', status })?.value, '0', status);
  assert.equal(sample(empty, 'tolk_document_jobs_total', { outcome: 'done' })?.value, '0');
  assert.equal(sample(empty, 'tolk_document_jobs_total', { outcome: 'error' })?.value, '0');
  const now = Date.now();
  await ctx.services.store.db
    .insertInto('tm_jobs')
    .values({ id: 'job-1', account_id: account.accountId, operation: 'import', status: 'queued', memory_id: null, display_name: 'm', content_type: null, content_length: null, file_path: null, error_message: null, skipped_segment_count: 0, created_at: now - 60_000, updated_at: now, expires_at: null, lease_owner: null, lease_expires_at: null, attempts: 0 })
    .execute();
  const families = parsePrometheusTextFormat((await ctx.services.metrics.exposition()).body);
  assert.equal(Number(sample(families, 'tolk_jobs', { kind: 'translation_memory', status: 'queued' })?.value), 1);
  assert.ok(Number(sample(families, 'tolk_jobs_oldest_age_seconds', { kind: 'translation_memory', status: 'queued' })?.value) >= 59);
});
