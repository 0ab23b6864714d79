// /openapi.json: a valid OpenAPI 3.1 document listing every registered route; /docs served from this server.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createTestApp, type TestContext } from '../helpers/harness.js';

let ctx: TestContext;
let doc: { openapi: string; paths: Record<string, Record<string, { responses?: Record<string, unknown>; requestBody?: unknown }>> };
before(async () => {
  ctx = await createTestApp({ engines: [] });
  const res = await ctx.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  assert.ok(res.headers['x-trace-id']);
  doc = res.json();
});
after(async () => ctx.close());

it('is a valid OpenAPI 3.1 document (checked by an OpenAPI validator)', async () => {
  assert.equal(doc.openapi, '3.1.0');
  const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
  assert.deepEqual(result, { valid: true });
});

it('lists every registered route (but the documentation itself) with its responses', () => {
  const listed = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
  const routes = ctx.app.registeredRoutes
    .filter((r) => r.method !== 'HEAD' && r.url !== '/openapi.json' && !r.url.startsWith('/docs'))
    .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`);
  assert.ok(routes.length > 40, `${routes.length} routes`);
  assert.deepEqual(routes.filter((r) => !listed.has(r)), []);
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) assert.ok(Object.keys(op.responses ?? {}).length > 0, `${method} ${path} has responses`);
  }
  // Request and response schemas come from the routes' own TypeBox schemas.
  const translate = doc.paths['/v2/translate']!.post!;
  assert.ok(translate.requestBody, 'POST /v2/translate has a request body');
  assert.ok((translate.responses as Record<string, { content?: unknown }>)['200']?.content, 'POST /v2/translate has a 200 schema');
});

it('serves the browsable documentation and its assets locally, without a key', async () => {
  const page = await ctx.app.inject({ method: 'GET', url: '/docs/' });
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /text\/html/);
  assert.doesNotMatch(page.body, /https?:\/\/(?!127\.0\.0\.1|localhost)[^"']*\.(js|css)/, 'no asset from another host');
  const bundle = await ctx.app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
  assert.equal(bundle.statusCode, 200);
  assert.ok(bundle.body.length > 100_000);
});
