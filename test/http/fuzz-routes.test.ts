// Every route of the app, found from its routing table, gets random JSON, form and query input with the parameter
// names the API uses and hostile values, then structured hostile shapes (deep nesting, duplicate keys, the names every
// object inherits, repeated query parameters): the answer is never a 5xx, always carries X-Trace-ID, errors are
// {message} bodies, and no request stalls the event loop over 200 ms.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { WorkerLanguageDetector } from '../../src/detect/worker-language-detector.js';
import { LoopStallMonitor } from '../helpers/loop-stall.js';
import { createAccount, createTestApp, testEngines, type TestAccount, type TestContext } from '../helpers/harness.js';
import { prng } from '../helpers/prng.js';

let ctx: TestContext;
let account: TestAccount;

before(async () => {
  ctx = await createTestApp({ engines: testEngines(['en-es']) });
  account = await createAccount(ctx, { features: ['detection'] });
});
after(async () => ctx.close());

interface Route {
  method: string;
  path: string;
}

/** Reads Fastify's printRoutes tree ("├── /v2/document (POST)", nested segments indented by four columns). */
function routesOf(tree: string): Route[] {
  const routes: Route[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/u.exec(line);
    if (!m) continue;
    const depth = [...m[1]!].length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    for (const method of (m[3] ?? '').split(', ').filter((x) => x && x !== 'HEAD')) routes.push({ method, path: stack.join('') });
  }
  return routes;
}

const NAMES = [
  'text', 'target_lang', 'source_lang', 'context', 'formality', 'split_sentences', 'preserve_formatting', 'tag_handling',
  'tag_handling_version', 'ignore_tags', 'splitting_tags', 'non_splitting_tags', 'outline_detection', 'glossary_id',
  'glossary_ids', 'style_id', 'translation_memory_id', 'translation_memory_threshold', 'custom_instructions',
  'model_type', 'show_billed_characters', 'document_key', 'output_format', 'writing_style', 'tone', 'name',
  'dictionaries', 'entries', 'entries_format', 'key_id', 'label', 'characters', 'speech_to_text_milliseconds', 'scopes',
  'start_date', 'end_date', 'group_by', 'aggregate_by', 'page', 'page_size', 'language', 'configured_rules', 'prompt',
  'source_file', 'parameters', 'source_media_content_type', 'target_languages', 'message_format', 'type', 'resource',
  'include', 'token',
];


function hostileValue(rand: (n: number) => number, depth = 0): unknown {
  const pool: (() => unknown)[] = [
    () => null,
    () => true,
    () => -1,
    () => 1e300,
    () => 2 ** 53 + 1,
    () => 0.5,
    () => '',
    () => 'EN',
    () => 'es',
    () => 'x'.repeat(10_000),
    () => '\u0000\u0007\ud800<b>&amp;',
    () => '2026-02-30',
    () => '../../etc/passwd',
    () => "' OR 1=1 --",
    () => '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "xx">]><a>&x;</a>',
    () => 'Hello world.',
    () => ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'prototype'][rand(5)],
    () => ({ __proto__: { polluted: true }, constructor: { prototype: { polluted: true } } }),
    () => (depth < 3 ? Array.from({ length: rand(4) }, () => hostileValue(rand, depth + 1)) : []),
    () => (depth < 3 ? randomObject(rand, depth + 1) : {}),
  ];
  return pool[rand(pool.length)]!();
}

function randomObject(rand: (n: number) => number, depth = 0): Record<string, unknown> {
  const obj: Record<string, unknown> = {};
  const n = 1 + rand(6);
  for (let i = 0; i < n; i++) obj[NAMES[rand(NAMES.length)]!] = hostileValue(rand, depth);
  return obj;
}

function formOf(obj: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(obj)) params.append(k, typeof v === 'string' ? v : JSON.stringify(v) ?? '');
  return params.toString();
}

const PATH_VALUES = ['x', '00000000-0000-0000-0000-000000000000', '%00', '..%2F..', 'a'.repeat(300), '%E0%A4%A'];

const stalls = new LoopStallMonitor(200);
after(() => stalls.stop());

/** One request, checked: no 5xx, X-Trace-ID, a message on errors, no loop stall while it ran. */
async function check(failures: string[], where: string, options: InjectOptions): Promise<void> {
  stalls.reset();
  const res = await ctx.app.inject(options);
  const stall = stalls.worst();
  if (stall) failures.push(`${where}: stalled the event loop ${stall.lagMs} ms (${stall.cpuMs} ms CPU)`);
  if (res.statusCode >= 500) failures.push(`${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  if (!res.headers['x-trace-id']) failures.push(`${where}: no X-Trace-ID`);
  if (res.statusCode >= 400 && res.statusCode !== 404 && !/"message"/.test(res.body)) failures.push(`${where}: ${res.statusCode} without a message: ${res.body.slice(0, 100)}`);
}

it('the stall monitor sees a busy event loop (so the checks below can fail)', () => {
  stalls.reset();
  const start = process.cpuUsage();
  for (let cpu = start; (cpu.user + cpu.system - start.user - start.system) / 1000 < 300; cpu = process.cpuUsage());
  assert.ok(stalls.worst(), 'a busy loop of 300 ms CPU is a stall');
  stalls.reset();
});

const routesOfApp = () => routesOf(ctx.app.printRoutes({ commonPrefix: false }));

it('the first detection starts the detector (by default on first use) without stalling the event loop', async () => {
  const detector = ctx.services.detector;
  assert.ok(detector instanceof WorkerLanguageDetector && !detector.started, 'the detector was started before the first detection');
  const headers = { authorization: `Service-Auth-Key ${account.key}`, host: account.host, 'content-type': 'application/json' };
  const payload = JSON.stringify({ text: ['The weather is nice today and the dog sleeps in the garden.', 'Das Wetter ist heute schön und der Hund schläft.'] });
  stalls.reset();
  const res = await ctx.app.inject({ method: 'POST', url: '/v3/detect/language', headers, payload });
  const stall = stalls.worst();
  assert.equal(stall, undefined, `the first detection stalled the event loop ${stall?.lagMs} ms (${stall?.cpuMs} ms CPU)`);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json<{ results: { detected_language?: string }[] }>().results.map((r) => r.detected_language), ['en', 'de']);
});

it('no route answers 5xx to random parameters, bodies and path values', async () => {
  // the OpenAPI document is built on its first request, once per process, whatever the input: not a stall a request
  // can cause
  assert.equal((await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).statusCode, 200);
  const routes = routesOfApp();
  assert.ok(routes.length >= 40, `only ${routes.length} routes found in the routing table`);
  const failures: string[] = [];
  for (const [r, route] of routes.entries()) {
    for (let i = 0; i < 60; i++) {
      const seed = r * 1000 + i + 1;
      const rand = prng(seed);
      const path = route.path.replace(/:[a-z_]+/g, () => PATH_VALUES[rand(PATH_VALUES.length)]!);
      const query = rand(2) === 0 ? `?${formOf(randomObject(rand))}` : '';
      const body = randomObject(rand);
      const kind = rand(4);
      const headers: Record<string, string> = { authorization: `Service-Auth-Key ${rand(5) === 0 ? account.key : account.adminKey}`, host: account.host };
      if (rand(6) === 0) headers['x-service-reporting-tag'] = String(hostileValue(rand)).slice(0, 200);
      let payload: string | undefined;
      if (route.method !== 'GET' && route.method !== 'DELETE') {
        if (kind === 0) {
          headers['content-type'] = 'application/json';
          payload = JSON.stringify(body);
        } else if (kind === 1) {
          headers['content-type'] = 'application/x-www-form-urlencoded';
          payload = formOf(body);
        } else if (kind === 2) {
          headers['content-type'] = 'application/json';
          payload = JSON.stringify(body).slice(0, 1 + rand(40)); // truncated JSON
        } else {
          headers['content-type'] = ['text/plain', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=latin1'][rand(4)]!;
          payload = formOf(body);
        }
      }
      await check(failures, `${route.method} ${route.path} seed ${seed}`, { method: route.method as 'GET', url: path + query, headers, ...(payload !== undefined ? { payload } : {}) });
    }
  }
  assert.deepEqual(failures, []);
});

/** `{"a":{"a":…}}` and `[[…]]` this deep, as JSON text. */
const DEPTH = 5_000;
const deepObject = (key: string) => `${`{"${key}":`.repeat(DEPTH)}"x"${'}'.repeat(DEPTH)}`;
const deepArray = `${'['.repeat(DEPTH)}"x"${']'.repeat(DEPTH)}`;
const INHERITED = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype'];

/** JSON texts no object literal can express: duplicate keys, inherited names as keys, deep nesting under real names. */
function structuredBodies(rand: (n: number) => number): string[] {
  const name = () => NAMES[rand(NAMES.length)]!;
  const inherited = () => INHERITED[rand(INHERITED.length)]!;
  const n1 = name();
  const n2 = name();
  return [
    `{"${n1}":"a","${n1}":["b"],"${n2}":1,"${n2}":{"x":1},"target_lang":"ES","target_lang":"DE","text":"Hi","text":["Hi"]}`,
    `{"${inherited()}":{"${inherited()}":"x"},"${n1}":{"${inherited()}":"x","${inherited()}":{"${inherited()}":[]}}}`,
    `{"constructor":{"prototype":{"polluted":true}},"${n1}":{"constructor":{"prototype":{"polluted":true}}}}`,
    `{"__proto__":{"polluted":true},"${n1}":{"__proto__":{"polluted":true}}}`,
    `{"${n1}":${deepArray},"${n2}":"x"}`,
    `{"${n1}":${deepObject(n2)}}`,
    `{"configured_rules":{"punctuation":{"toString":"x"},"constructor":{"x":"y"}},"dictionaries":[{"${inherited()}":"x"}],"name":"x","language":"en"}`,
    deepArray,
    JSON.stringify(Object.fromEntries(NAMES.map((n, i) => [n, INHERITED[i % INHERITED.length]]))),
  ];
}

/** Query strings with repeated names and inherited names. */
function structuredQueries(rand: (n: number) => number): string[] {
  const name = () => NAMES[rand(NAMES.length)]!;
  const n1 = name();
  return [
    `?${n1}=a&${n1}=b&${n1}=c`,
    `?__proto__=x&constructor=y&toString=z&valueOf=1&hasOwnProperty=2&${name()}=v`,
    `?${n1}[__proto__][polluted]=1&${n1}[]=a&${n1}[0]=b`,
    `?${Array.from({ length: 200 }, () => `${n1}=x`).join('&')}`,
    `?${NAMES.map((n, i) => `${n}=${INHERITED[(i + 1) % INHERITED.length]}`).join('&')}`,
  ];
}

it('no route answers 5xx to deep nesting, duplicate keys, inherited names and repeated query parameters', async () => {
  const routes = routesOfApp();
  const failures: string[] = [];
  for (const [r, route] of routes.entries()) {
    const rand = prng(100_000 + r);
    const path = route.path.replace(/:[a-z_]+/g, () => PATH_VALUES[rand(2)]!);
    const headers = { authorization: `Service-Auth-Key ${account.adminKey}`, host: account.host };
    const where = (what: string) => `${route.method} ${route.path} ${what}`;
    for (const [i, query] of structuredQueries(rand).entries()) {
      await check(failures, where(`query ${i}`), { method: route.method as 'GET', url: path + query, headers });
    }
    if (route.method === 'GET' || route.method === 'DELETE') continue;
    for (const [i, body] of structuredBodies(rand).entries()) {
      await check(failures, where(`json body ${i}`), { method: route.method as 'POST', url: path, headers: { ...headers, 'content-type': 'application/json' }, payload: body });
    }
    const n1 = NAMES[rand(NAMES.length)]!;
    const form = `${n1}=a&${n1}=b&__proto__=x&constructor=y&toString=z&text=Hi&text=Hi&target_lang=ES&target_lang=DE`;
    await check(failures, where('form body'), { method: route.method as 'POST', url: path, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: form });
  }
  assert.deepEqual(failures, []);
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
});
