// Authorization across the route table: every route the app registers (app.registeredRoutes, filled by an onRoute
// hook) is tried with no key, a key of the wrong plan, a developer key on admin routes, a key scoped to another
// endpoint group, and (routes naming a resource) another account's resource id. A new route is covered without
// editing this file, or fails here until it is classified below.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { authHeaders, createAccount, createTestApp, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';
import { multipart } from '../documents/multipart.js';
import type { Scope } from '../../src/admin/scopes.js';

/** Routes anyone may call, each with the reason. */
const PUBLIC: Record<string, string> = {
  'GET /openapi.json': 'the API description',
  'GET /docs': 'the browsable documentation',
  'GET /docs/static/index.html': 'the browsable documentation',
  'GET /docs/static/swagger-initializer.js': 'the browsable documentation',
  'GET /docs/static/*': 'the browsable documentation',
  'GET /docs/static/theme/tolk.css': 'the browsable documentation (its style sheet)',
  'GET /docs/json': 'the browsable documentation',
  'GET /docs/yaml': 'the browsable documentation',
  'GET /health/live': 'liveness probe of the orchestrator',
  'GET /health/ready': 'readiness probe of the load balancer',
  'GET /': 'the web page (it asks for a key itself)',
  'GET /web/:name': 'the web page’s scripts and styles',
  'GET /v3/voice/realtime/connect': 'the WebSocket carries the session token from POST /v3/voice/realtime (test/http/voice-session.test.ts)',
  'GET /languages': 'LibreTranslate’s language list, read without a key (Mastodon does)',
  'GET /frontend/settings': 'LibreTranslate’s settings for its web page',
  'GET /spec': 'LibreTranslate’s API description',
  'GET /health': 'LibreTranslate’s liveness answer',
  'POST /suggest': 'LibreTranslate’s “suggestions are disabled” answer (403 for everyone)',
  // browsers' preflight requests carry no credentials (test/http/libretranslate.test.ts)
  ...Object.fromEntries(
    ['/translate', '/detect', '/languages', '/translate_file', '/download_file/:document_id/:filename', '/frontend/settings', '/spec', '/health', '/suggest'].map(
      (path) => [`OPTIONS ${path}`, 'a CORS preflight of LibreTranslate’s routes'],
    ),
  ),
};

/** Routes without a key whose signed URL is their authorization: unsigned, they answer 403. */
const SIGNED: Record<string, string> = {
  'GET /v3/translation_memories/jobs/:job_id/download': 'download URL handed out by the job status',
  'PUT /v3/translation_memories/jobs/:job_id/upload': 'upload URL handed out by the import',
  'GET /download_file/:document_id/:filename': 'translatedFileUrl handed out by LibreTranslate’s /translate_file',
};

/** The endpoint group of a path (src/admin/scopes.ts); null: never scoped (admin, voice, the web page's session). */
function scopeOf(path: string): Scope | null | undefined {
  const groups: [RegExp, Scope | null][] = [
    [/^\/v2\/translate$/, 'translate'],
    [/^\/translate$/, 'translate'],
    [/^\/detect$/, 'detect'],
    [/^\/translate_file$/, 'document'],
    [/^\/v2\/document(\/|$)/, 'document'],
    [/^\/v3\/detect\//, 'detect'],
    [/^\/v2\/glossar(ies|y-language-pairs)(\/|$)/, 'glossary'],
    [/^\/v3\/glossaries(\/|$)/, 'glossary'],
    [/^\/v3\/style_rules(\/|$)/, 'style_rules'],
    [/^\/v3\/translation_memories(\/|$)/, 'translation_memory'],
    [/^\/v2\/write\//, 'write'],
    [/^\/v2\/usage$/, 'usage'],
    [/^\/v[23]\/languages(\/|$)/, 'languages'],
    [/^\/v2\/admin\//, null],
    [/^\/metrics$/, null],
    [/^\/v3\/voice\//, null],
    [/^\/v3\/spoken-terms(\/|$)/, null],
    [/^\/web\/api\/session$/, null],
  ];
  return groups.find(([re]) => re.test(path))?.[1];
}

/** The error's text: `message` in the DeepL-style body, `error` in LibreTranslate's. */
const messageOf = (res: LightMyRequestResponse): string => res.json().message ?? res.json().error;

const isAdminRoute = (path: string) => path.startsWith('/v2/admin/') || path === '/metrics';
/** Routes a free-plan account may not call even on its own endpoint (the spec: text improvement is Pro). */
const PRO_ONLY = (path: string) => path.startsWith('/v2/write/');
/** Routes an account needs a feature for (spec: language detection is a beta feature). */
const FEATURE = (path: string) => (path.startsWith('/v3/detect/') ? 'detection' : undefined);

type Route = { method: string; url: string; name: string };

let ctx: TestContext;
let owner: TestAccount; // holds the resources
let other: TestAccount; // another pro account, without the detection feature
let free: TestAccount;
let otherAdmin: TestAccount; // `other` calling with its admin key
let ownerAdmin: TestAccount;
let routes: Route[];
/** Path parameter → the owner's resource of that kind. */
const ids: Record<string, string> = {};
let documentKey = '';
let ownerKeyId = '';

const tmx = readFileSync(new URL('../../../test/fixtures/customization/small.tmx', import.meta.url));

before(async () => {
  ctx = await createTestApp({ engines: testEngines(['en-es']), env: { TOLK_RATE_LIMIT_PER_MINUTE: '100000', TOLK_DOCUMENT_WORKERS: '0', TOLK_LIBRETRANSLATE: 'true' } });
  owner = await createAccount(ctx, { plan: 'pro', features: ['detection'] });
  other = await createAccount(ctx, { plan: 'pro' });
  free = await createAccount(ctx, { plan: 'free', features: ['detection'] });
  ownerAdmin = { ...owner, key: owner.adminKey };
  otherAdmin = { ...other, key: other.adminKey };
  ownerKeyId = owner.keyId;
  routes = ctx.app.registeredRoutes
    // Fastify answers HEAD with the GET route's hooks and handler
    .filter((r) => r.method !== 'HEAD')
    .map((r) => ({ ...r, name: `${r.method} ${r.url}` }));
  await createOwnerResources();
});
after(async () => ctx.close());

async function call(who: TestAccount | undefined, method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) {
  const base = who ? authHeaders(who) : { host: owner.host };
  return ctx.app.inject({ method: method as 'GET', url, headers: { ...base, ...headers }, ...(payload !== undefined ? { payload: payload as object } : {}) });
}

async function createOwnerResources(): Promise<void> {
  const ok = (res: LightMyRequestResponse, what: string) => {
    assert.ok(res.statusCode < 300, `${what}: ${res.statusCode} ${res.body}`);
    return res.statusCode === 204 ? undefined : res.json();
  };
  ids.glossary_id = ok(await call(owner, 'POST', '/v3/glossaries', { name: 'G', dictionaries: [{ source_lang: 'en', target_lang: 'es', entries: 'cat\tgato', entries_format: 'tsv' }] }), 'glossary').glossary_id;
  const style = ok(await call(owner, 'POST', '/v3/style_rules', { name: 'S', language: 'en', custom_instructions: [{ label: 'Tone', prompt: 'Be brief.' }] }), 'style rules');
  ids.style_id = style.style_id;
  ids.instruction_id = style.custom_instructions[0].id;
  ids.spoken_terms_id = ok(await call(owner, 'POST', '/v3/spoken-terms', { name: 'T', term_lists: [{ lang: 'en', entries: 'Tolk' }] }), 'spoken terms').spoken_terms_id;
  const start = ok(await call(owner, 'POST', '/v3/translation_memories/import', { source_file: { file_name: 'm.tmx', content_type: 'application/xml', content_length: tmx.length }, parameters: { display_name: 'M' } }), 'memory import');
  const upload = new URL(start.upload_url);
  ok(await ctx.app.inject({ method: 'PUT', url: upload.pathname + upload.search, headers: { host: owner.host, 'content-type': 'application/xml' }, payload: tmx }), 'memory upload');
  await ctx.services.memories.idle();
  const job = ok(await call(owner, 'GET', `/v3/translation_memories/jobs/${start.job_id}`), 'memory job');
  assert.equal(job.results[0].status, 'completed', JSON.stringify(job));
  ids.job_id = start.job_id;
  ids.id = job.results[0].translation_memory_id;
  const { payload, contentType } = multipart([
    { name: 'target_lang', value: 'ES' },
    { name: 'source_lang', value: 'EN' },
    { name: 'file', filename: 'a.txt', content: 'Hello.', contentType: 'text/plain' },
  ]);
  const doc = ok(await ctx.app.inject({ method: 'POST', url: '/v2/document', headers: { ...authHeaders(owner), 'content-type': contentType }, payload }), 'document');
  ids.document_id = doc.document_id;
  documentKey = doc.document_key;
}

/** A request body the route's schema accepts, so what is checked is authorization and not validation. */
function bodyFor(route: Route): unknown {
  const { method, url } = route;
  if (method === 'GET' || method === 'DELETE') return undefined;
  if (url.startsWith('/v2/document/')) return { document_key: documentKey };
  if (url.startsWith('/v2/admin/developer-keys/')) return { key_id: ownerKeyId, label: 'x', scopes: ['translate'], characters: 10 };
  if (url === '/v3/glossaries/:glossary_id') return { name: 'renamed' };
  if (url === '/v3/glossaries/:glossary_id/dictionaries') return { source_lang: 'en', target_lang: 'es', entries: 'dog\tperro', entries_format: 'tsv' };
  if (url === '/v3/style_rules/:style_id') return { name: 'renamed' };
  if (url === '/v3/style_rules/:style_id/configured_rules') return {};
  if (url.startsWith('/v3/style_rules/:style_id/custom_instructions')) return { label: 'L', prompt: 'P' };
  if (url === '/v3/spoken-terms/:spoken_terms_id/term-lists') return { lang: 'en', entries: 'Tolk' };
  return {};
}

/** The route's URL with the owner's resources for its path parameters (a placeholder for the signed routes' job). */
function urlFor(route: Route): string {
  return route.url.replace(/:(\w+)/g, (_m, name: string) => ids[name] ?? 'x').replace('*', 'index.css') + queryFor(route.url);
}

/** The query the route's schema requires (checked before the resource is looked up). */
function queryFor(url: string): string {
  if (/^\/v3\/glossaries\/:glossary_id\/(entries|dictionaries)$/.test(url)) return '?source_lang=en&target_lang=es';
  if (url === '/v3/spoken-terms/:spoken_terms_id/entries') return '?lang=en';
  return '';
}

const scoped = new Map<Scope, TestAccount>();
/**
 * A developer key of the other account that may call only `scope` (not the owner's: on the routes scopes do not
 * restrict, it would delete the owner's resources).
 */
async function keyScopedTo(scope: Scope): Promise<TestAccount> {
  let acc = scoped.get(scope);
  if (!acc) {
    const key = await ctx.services.accounts.createKey(other.accountId, { label: `only ${scope}`, scopes: [scope] });
    acc = { ...other, key: key.secret, keyId: key.key.id };
    scoped.set(scope, acc);
  }
  return acc;
}

const keyed = () => routes.filter((r) => PUBLIC[r.name] === undefined && SIGNED[r.name] === undefined);

describe('authorization of every registered route', () => {
  it('finds the routes, and every exception names a real route', () => {
    assert.ok(routes.length > 60, `${routes.length} routes`);
    const names = new Set(routes.map((r) => r.name));
    assert.deepEqual([...Object.keys(PUBLIC), ...Object.keys(SIGNED)].filter((n) => !names.has(n)), []);
    assert.ok(names.has('GET /metrics'), 'the metrics route is in the route table');
    const unclassified = keyed().filter((r) => scopeOf(r.url) === undefined).map((r) => r.name);
    assert.deepEqual(unclassified, [], 'new routes: add their endpoint group to scopeOf (or to PUBLIC with the reason)');
  });

  it('public routes answer without a key', async () => {
    // the voice socket needs its token; /suggest is LibreTranslate's fixed 403 for a server without suggestions
    for (const route of routes.filter((r) => PUBLIC[r.name] !== undefined && r.url !== '/v3/voice/realtime/connect' && r.name !== 'POST /suggest')) {
      const res = await call(undefined, route.method, urlFor(route));
      assert.notEqual(res.statusCode, 403, `${route.name}: ${res.body}`);
      assert.notEqual(res.statusCode, 401, route.name);
    }
  });

  it('403 without a key (or without the URL’s signature) on every other route', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((r) => PUBLIC[r.name] === undefined)) {
      const res = await call(undefined, route.method, urlFor(route), bodyFor(route));
      if (res.statusCode !== 403) failures.push(`${route.name}: ${res.statusCode} ${res.body}`);
      else if (SIGNED[route.name] === undefined && !/Authorization/.test(messageOf(res))) failures.push(`${route.name}: ${res.body}`);
    }
    assert.deepEqual(failures, []);
  });

  it('403 naming the right endpoint for a key of the other plan', async () => {
    const failures: string[] = [];
    for (const route of keyed()) {
      const freeOnPaid = await call({ ...free, host: owner.host }, route.method, urlFor(route), bodyFor(route));
      if (freeOnPaid.statusCode !== 403 || !messageOf(freeOnPaid).includes(ctx.config.freeBaseUrl)) failures.push(`free key, ${route.name}: ${freeOnPaid.statusCode} ${freeOnPaid.body}`);
      const paidOnFree = await call({ ...owner, host: free.host }, route.method, urlFor(route), bodyFor(route));
      if (paidOnFree.statusCode !== 403 || !messageOf(paidOnFree).includes(ctx.config.baseUrl)) failures.push(`paid key, ${route.name}: ${paidOnFree.statusCode} ${paidOnFree.body}`);
    }
    assert.deepEqual(failures, []);
  });

  it('403 for a plan or account that lacks the endpoint (Pro-only text improvement, the detection beta)', async () => {
    const restricted = keyed().filter((r) => PRO_ONLY(r.url) || FEATURE(r.url));
    assert.ok(restricted.length >= 3, restricted.map((r) => r.name).join());
    for (const route of restricted) {
      const who = PRO_ONLY(route.url) ? free : other;
      const res = await call(who, route.method, urlFor(route), { text: ['Hello.'], target_lang: 'de' });
      assert.equal(res.statusCode, 403, `${route.name}: ${res.body}`);
      assert.match(res.json().message, PRO_ONLY(route.url) ? /Pro plan/ : /not enabled/, route.name);
    }
  });

  it('403 for a developer key on admin routes', async () => {
    const admin = keyed().filter((r) => isAdminRoute(r.url));
    assert.ok(admin.length >= 8, admin.map((r) => r.name).join());
    for (const route of admin) {
      const res = await call(owner, route.method, urlFor(route), bodyFor(route));
      assert.equal(res.statusCode, 403, `${route.name}: ${res.body}`);
      assert.match(res.json().message, /admin key/, route.name);
    }
  });

  it('403 for a key scoped to another endpoint group; unscoped routes ignore scopes', async () => {
    const failures: string[] = [];
    for (const route of keyed().filter((r) => !isAdminRoute(r.url))) {
      const group = scopeOf(route.url);
      const elsewhere = await keyScopedTo(group === 'usage' ? 'translate' : 'usage');
      const res = await call(elsewhere, route.method, urlFor(route), bodyFor(route));
      const refused = res.statusCode === 403 && /scopes do not include/.test(res.body);
      if (group !== null && !(refused && res.body.includes(`'${group}'`))) failures.push(`${route.name} (${group}): ${res.statusCode} ${res.body}`);
      if (group === null && refused) failures.push(`${route.name} is not scopable but refused a scoped key`);
    }
    assert.deepEqual(failures, []);
    // and the key of the route's own group passes the check
    const own = await call(await keyScopedTo('glossary'), 'GET', '/v3/glossaries');
    assert.equal(own.statusCode, 200, own.body);
  });

  it('404 for another account’s resource, as for one that does not exist', async () => {
    const named = keyed().filter((r) => /:\w+/.test(r.url) || (r.url.startsWith('/v2/admin/developer-keys/') && r.method === 'PUT'));
    assert.ok(named.length >= 30, `${named.length} routes naming a resource`);
    const failures: string[] = [];
    for (const route of named) {
      const res = await call(isAdminRoute(route.url) ? otherAdmin : other, route.method, urlFor(route), bodyFor(route));
      if (res.statusCode !== 404) failures.push(`${route.name}: ${res.statusCode} ${res.body}`);
    }
    assert.deepEqual(failures, []);
    // the ids are real: their owner reads them
    for (const route of named.filter((r) => r.method === 'GET')) {
      const res = await call(owner, route.method, urlFor(route));
      assert.equal(res.statusCode, 200, `${route.name} for the owner: ${res.body}`);
    }
    assert.equal((await call(ownerAdmin, 'GET', '/v2/admin/developer-keys')).json().some((k: { key_id: string }) => k.key_id === ownerKeyId), true);
  });
});
