// /openapi.json: a valid OpenAPI 3.1 document listing every registered route; /docs served from this server.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createTestApp, type TestContext } from '../helpers/harness.js';

let ctx: TestContext;
type Operation = {
  responses?: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
  requestBody?: { content?: Record<string, { schema?: { properties?: object; additionalProperties?: unknown; type?: string } }> };
  parameters?: { in: string; name: string }[];
};
let doc: { openapi: string; paths: Record<string, Record<string, Operation>> };

/** Routes that take no parameter beyond their path (nothing in body or query). */
const PARAMETERLESS = new Set([
  'GET /health/live', 'GET /health/ready', 'GET /', 'GET /web/{name}', 'GET /web/api/session',
  'GET /v2/admin/developer-keys', 'GET /v2/glossaries', 'GET /v2/glossaries/{glossary_id}', 'DELETE /v2/glossaries/{glossary_id}',
  'GET /v2/glossary-language-pairs', 'GET /v3/glossaries', 'GET /v3/glossaries/{glossary_id}', 'DELETE /v3/glossaries/{glossary_id}',
  'GET /v3/spoken-terms', 'GET /v3/spoken-terms/{spoken_terms_id}', 'DELETE /v3/spoken-terms/{spoken_terms_id}',
  'GET /v3/style_rules/{style_id}', 'DELETE /v3/style_rules/{style_id}',
  'GET /v3/style_rules/{style_id}/custom_instructions/{instruction_id}', 'DELETE /v3/style_rules/{style_id}/custom_instructions/{instruction_id}',
  'GET /v3/translation_memories/{id}', 'DELETE /v3/translation_memories/{id}', 'POST /v3/translation_memories/{id}/export',
  'GET /v3/translation_memories/jobs/{job_id}', 'GET /v2/glossaries/{glossary_id}/entries',
  'GET /v2/usage', 'POST /v2/usage', 'GET /v3/languages/resources', 'GET /metrics',
  // LibreTranslate's (TOLK_LIBRETRANSLATE, on here so its routes are checked too)
  'GET /languages', 'GET /frontend/settings', 'GET /spec', 'GET /health', 'POST /suggest',
]);
before(async () => {
  ctx = await createTestApp({ engines: [], env: { TOLK_LIBRETRANSLATE: 'true' } });
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
    // CORS preflights (LibreTranslate's routes) are answered by the server, not operations of the API
    .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS' && r.url !== '/openapi.json' && !r.url.startsWith('/docs'))
    .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`);
  assert.ok(routes.length > 40, `${routes.length} routes`);
  assert.deepEqual(routes.filter((r) => !listed.has(r)), []);
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) assert.ok(Object.keys(op.responses ?? {}).length > 0, `${method} ${path} has responses`);
  }
  // Request and response schemas come from the routes' own TypeBox schemas.
  const missing: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const name = `${method.toUpperCase()} ${path}`;
      const bodySchemas = Object.values(op.requestBody?.content ?? {}).map((c) => c.schema);
      const described = bodySchemas.some(
        (s) => s && (Object.keys(s.properties ?? {}).length > 0 || typeof s.additionalProperties === 'object' || s.type === 'string'),
      );
      const queried = (op.parameters ?? []).some((p) => p.in === 'query');
      if (!PARAMETERLESS.has(name) && !described && !queried) missing.push(`${name}: request schema`);
      const success = Object.entries(op.responses ?? {}).filter(([status]) => /^2\d\d$|^101$/.test(status));
      const schemaOf = (r: Operation['responses'] extends Record<string, infer R> | undefined ? R : never) =>
        Object.values(r.content ?? {}).some((c) => c.schema !== undefined);
      if (!success.some(([status, r]) => status === '204' || status === '101' || schemaOf(r))) missing.push(`${name}: success response schema`);
    }
  }
  assert.deepEqual(missing, []);
  assert.deepEqual([...PARAMETERLESS].filter((name) => !listed.has(name)), [], 'the exemptions name real routes');
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
  // the YAML form is the same document (as JSON text, which is YAML 1.2)
  const yaml = await ctx.app.inject({ method: 'GET', url: '/docs/yaml' });
  assert.equal(yaml.statusCode, 200);
  assert.deepEqual(JSON.parse(yaml.body), doc);
});

it('describes every operation with a summary, a unique operationId and a declared tag', () => {
  const full = doc as unknown as {
    paths: Record<string, Record<string, { summary?: string; operationId?: string; tags?: string[]; responses: Record<string, { description?: string }> }>>;
    tags: { name: string; description: string }[];
    servers: { url: string }[];
  };
  const declared = new Set(full.tags.map((t) => t.name));
  assert.ok(full.tags.every((t) => t.description.length > 10));
  const ids: string[] = [];
  const problems: string[] = [];
  for (const [path, ops] of Object.entries(full.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const name = `${method.toUpperCase()} ${path}`;
      if (!op.summary?.trim()) problems.push(`${name}: summary`);
      if (!op.operationId || !/^[a-z][A-Za-z0-9]+$/.test(op.operationId)) problems.push(`${name}: operationId`);
      else ids.push(op.operationId);
      if (!op.tags?.length || !op.tags.every((t) => declared.has(t))) problems.push(`${name}: tags ${JSON.stringify(op.tags)}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  assert.ok(ids.length >= 69, `${ids.length} operations`);
  // Every declared tag groups at least one operation, so /docs shows no empty section.
  const used = new Set(Object.values(full.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags ?? [])));
  assert.deepEqual([...declared].filter((t) => !used.has(t)), []);
  assert.equal(full.paths['/v2/translate']!.post!.operationId, 'translateText');
  assert.deepEqual(full.paths['/v2/document']!.post!.tags, ['documents']);
  // The two base URLs, paid then free, and what each error status means.
  assert.deepEqual(full.servers.map((s) => s.url), [ctx.config.baseUrl, ctx.config.freeBaseUrl]);
  const translateErrors = full.paths['/v2/translate']!.post!.responses;
  assert.match(translateErrors['456']!.description!, /Quota exceeded/);
  assert.match(translateErrors['400']!.description!, /parameter/);
});

it('/docs carries Tolk\'s name and lists operations grouped by tag', async () => {
  const page = await ctx.app.inject({ method: 'GET', url: '/docs/' });
  assert.match(page.body, /<title>Tolk API documentation<\/title>/);
  const initializer = await ctx.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
  const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer.body);
  assert.ok(logo, 'the logo is replaced');
  assert.match(Buffer.from(logo[1]!, 'base64').toString(), />Tolk </);
  assert.match(initializer.body, /"docExpansion":\s*"list"/, 'operations listed under their tags, collapsed');
});
