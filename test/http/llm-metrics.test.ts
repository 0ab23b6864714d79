// /metrics beyond HTTP routes, after real traffic: the language model's calls by operation and outcome (a rephrase
// whose model output is refused answers 200 but counts as refused, with its fallback), its tokens and queue; the
// build; LibreTranslate requests by route and by what really happened (a spent quota and a bad key are both 403 there).
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { LlmEngine } from '../../src/engines/llm/index.js';
import { startFakeLlmServer, type FakeLlmServer } from '../engines/llm-test-server.js';
import { authHeaders, createAccount, createTestApp, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';

let server: FakeLlmServer;
let ctx: TestContext;
let account: TestAccount;
before(async () => {
  server = await startFakeLlmServer();
  const llm = new LlmEngine({ url: server.url, model: 'test', languages: ['en', 'en-us', 'de'], retries: 0, timeoutMs: 5000 });
  ctx = await createTestApp({ env: { TOLK_LIBRETRANSLATE: 'true' }, engines: [...testEngines(['en-es']), llm] });
  account = await createAccount(ctx);
});
after(async () => {
  await ctx?.close();
  await server?.close();
});

async function scrape() {
  const res = await ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Service-Auth-Key ${account.adminKey}`, host: account.host } });
  assert.equal(res.statusCode, 200);
  return parsePrometheusTextFormat(res.body);
}

type Families = Awaited<ReturnType<typeof scrape>>;
function value(families: Families, name: string, labels: Record<string, string> = {}): number | undefined {
  const family = families.find((f) => f.name === name);
  assert.ok(family, `${name} is exposed`);
  const metric = family.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return metric && 'value' in metric ? Number(metric.value) : undefined;
}

const post = (url: string, payload: unknown, headers: Record<string, string> = authHeaders(account)) =>
  ctx.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });

it('language model: a refused rephrase answers 200 yet counts as refused with its fallback; translations, tokens, queue', async () => {
  const before = await scrape();
  assert.equal(value(before, 'tolk_llm_requests_total', { operation: 'improve', outcome: 'refused' }), 0);
  assert.equal(value(before, 'tolk_llm_fallbacks_total', { kind: 'rephrase_unchanged' }), 0);

  // unreadable answers to the request and to both repairs: the texts come back unchanged, with a 200
  server.script('garbage', 'garbage', 'garbage', 'garbage');
  const refused = await post('/v2/write/rephrase', { text: ['This sentence could be better.'], target_lang: 'en-US' });
  assert.equal(refused.statusCode, 200, refused.body);
  assert.equal(refused.json().improvements[0].text, 'This sentence could be better.');
  const ok = await post('/v2/write/rephrase', { text: ['Another one.', 'And a third.'], target_lang: 'en-US' });
  assert.equal(ok.statusCode, 200, ok.body);
  const translated = await post('/v2/translate', { text: ['The house is big.'], source_lang: 'EN', target_lang: 'DE' });
  assert.equal(translated.statusCode, 200, translated.body);
  assert.match(translated.json().translations[0].text, /^\[German\]/);

  const families = await scrape();
  assert.equal(value(families, 'tolk_http_requests_total', { route: '/v2/write/rephrase', method: 'POST', status: '200' }), 2);
  assert.equal(value(families, 'tolk_llm_requests_total', { operation: 'improve', outcome: 'refused' }), 1);
  assert.equal(value(families, 'tolk_llm_requests_total', { operation: 'improve', outcome: 'ok' }), 1);
  assert.equal(value(families, 'tolk_llm_requests_total', { operation: 'translate', outcome: 'ok' }), 1);
  assert.equal(value(families, 'tolk_llm_requests_total', { operation: 'post_edit', outcome: 'ok' }), 0);
  assert.equal(value(families, 'tolk_llm_fallbacks_total', { kind: 'rephrase_unchanged' }), 1);
  assert.equal(value(families, 'tolk_llm_fallbacks_total', { kind: 'post_edit_draft_kept' }), 0);
  const reported = (field: 'prompt_tokens' | 'completion_tokens') => server.requests.reduce((n, r) => n + (r.usage?.[field] ?? 0), 0);
  assert.equal(value(families, 'tolk_llm_tokens_total', { direction: 'input' }), reported('prompt_tokens'));
  assert.equal(value(families, 'tolk_llm_tokens_total', { direction: 'output' }), reported('completion_tokens'));
  assert.equal(value(families, 'tolk_llm_queue_length'), 0);
  const wait = await ctx.services.metrics.registry.getSingleMetric('tolk_llm_queue_wait_seconds')!.get();
  const count = (wait.values as { metricName?: string; value: number }[]).find((v) => v.metricName === 'tolk_llm_queue_wait_seconds_count');
  assert.equal(count?.value, server.requests.length, 'one wait per model call');
});

it('build information: the version, the Node.js version and, in a git checkout, the commit', async () => {
  const families = await scrape();
  const family = families.find((f) => f.name === 'tolk_build_info');
  assert.ok(family);
  assert.equal(family.metrics.length, 1);
  const [info] = family.metrics as { value: string; labels: Record<string, string> }[];
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal(info!.value, '1');
  assert.equal(info!.labels.version, pkg.version);
  assert.equal(info!.labels.node, process.version);
  const head = await promisify(execFile)('git', ['rev-parse', 'HEAD'], { cwd: new URL('../../../', import.meta.url) }).then(
    (r) => r.stdout.trim(),
    () => undefined,
  );
  // without a git program the checkout's commit is not known to the test; with one, it must be the label
  if (head !== undefined) assert.equal(info!.labels.commit, head);
});

it('LibreTranslate requests by route and outcome: a spent quota and a refused key told apart', async () => {
  const small = await createAccount(ctx, { characterLimit: 10 });
  const lt = (url: string, payload: Record<string, unknown>) => post(url, payload, { host: account.host });
  assert.equal((await lt('/translate', { q: 'The dog.', source: 'en', target: 'es', api_key: account.key })).statusCode, 200);
  assert.equal((await lt('/translate', { q: 'The cat.', source: 'en', target: 'es', api_key: account.key })).statusCode, 200);
  assert.equal((await lt('/translate', { source: 'en', target: 'es', api_key: account.key })).statusCode, 400);
  assert.equal((await lt('/translate', { q: 'The dog.', source: 'en', target: 'es', api_key: 'not-a-key' })).statusCode, 403);
  assert.equal((await lt('/translate', { q: 'The house is very big.', source: 'en', target: 'es', api_key: small.key })).statusCode, 403);
  assert.equal((await lt('/detect', { q: 'Hello world', api_key: account.key })).statusCode, 200);
  assert.equal((await ctx.app.inject({ method: 'GET', url: '/languages', headers: { host: account.host } })).statusCode, 200);
  const families = await scrape();
  const requests = (route: string, outcome: string) => value(families, 'tolk_libretranslate_requests_total', { route, outcome });
  assert.equal(requests('/translate', 'ok'), 2);
  assert.equal(requests('/translate', 'invalid_request'), 1);
  assert.equal(requests('/translate', 'forbidden'), 1);
  assert.equal(requests('/translate', 'quota_exceeded'), 1);
  assert.equal(requests('/detect', 'ok'), 1);
  assert.equal(requests('/languages', 'ok'), 1);
  // the DeepL-style routes are not counted as LibreTranslate traffic
  const routes = new Set(families.find((f) => f.name === 'tolk_libretranslate_requests_total')!.metrics.map((m) => m.labels?.route));
  assert.deepEqual([...routes].sort(), ['/detect', '/languages', '/translate']);
});
