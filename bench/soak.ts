// Soak: mixed load from several normal clients (translate short and long, correct, document upload/status/download,
// glossary operations), first alone, then beside one hostile client sending issue 17's worst inputs (deeply nested
// XML in translate and documents, 8 KB of non-words to correct, Upgrade headers, partial downloads, prototype-name
// bodies). Reports each phase's p50/p99 latency of the normal clients, the p99 ratio (target ≤ 2) and 5xx counts
// (target 0) over real sockets.
//
// Run: npm run bench:soak [-- --minutes=10 --clients=4 --pause-ms=50 --xml-depth=18000 --doc-depth=64000
//      --attacks=xml-translate,xml-document,correct-nonwords,upgrade,partial-download,prototype]

import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { ApertiumEngine } from '../src/engines/apertium/index.js';
import { buildServices } from '../src/services.js';
import { multipart } from '../test/documents/multipart.js';
import { freePort } from '../test/helpers/harness.js';
import { prng } from '../test/helpers/prng.js';
import { benchArgs } from './args.js';

const args = benchArgs();
const MINUTES = Number(args.get('minutes') ?? 10);
const CLIENTS = Number(args.get('clients') ?? 4);
const PAUSE_MS = Number(args.get('pause-ms') ?? 50);
const XML_DEPTH = Number(args.get('xml-depth') ?? 18_000);
const DOC_DEPTH = Number(args.get('doc-depth') ?? 64_000);
const ATTACKS = ['xml-translate', 'xml-document', 'correct-nonwords', 'upgrade', 'partial-download', 'prototype'];
/** The hostile client's inputs (default all): one kind alone shows what each costs the others. */
const ATTACKS_USED = args.get('attacks')?.split(',') ?? ATTACKS;
for (const a of ATTACKS_USED) if (!ATTACKS.includes(a)) throw new Error(`--attacks: unknown '${a}' (known: ${ATTACKS.join(', ')})`);
/** A request taking longer than this counts as failed (the client gives up), as a stalled server would make it. */
const CLIENT_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const random = prng(17);
const pick = <T>(xs: T[]): T => xs[random(xs.length)]!;

const SHORT = ['Hello, how are you?', 'The meeting starts at ten.', 'Please send me the report by Friday.', 'Where is the station?'];
const LONG = Array.from({ length: 12 }, (_, i) => `This is sentence ${i + 1} of a longer text about the weather, the trains and the prices in the city.`).join(' ');
const MISSPELT = ['Teh results were definately good.', 'We recieve the letters every day.', 'The goverment anounced new rules.'];

interface Stats {
  latencies: number[];
  byOp: Map<string, number[]>;
  errors5xx: number;
  /** 5xx answers and failures per operation, e.g. "correct 504". */
  errorsByOp: Map<string, number>;
  failures: number;
  requests: number;
}
const newStats = (): Stats => ({ latencies: [], byOp: new Map(), errors5xx: 0, errorsByOp: new Map(), failures: 0, requests: 0 });

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'tolk-soak-'));
  const port = await freePort();
  const config = loadConfig({ TOLK_DATA_DIR: dir, TOLK_PORT: String(port), TOLK_FREE_PORT: String(port), TOLK_LOG_LEVEL: 'silent' });
  const services = await buildServices(config, { engineOverride: [new ApertiumEngine({ pairs: ['en-es'] })] });
  const app = await buildApp({ config, services, logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${port}`;
  const newKey = async () => {
    const { account } = await services.accounts.createAccount({ plan: 'pro' });
    return (await services.accounts.createKey(account.id)).secret;
  };

  /** One timed request; a 5xx or a network failure is counted, the body returned for the caller. */
  async function call(stats: Stats | undefined, op: string, key: string, method: string, route: string, body?: unknown): Promise<{ status: number; json: any }> {
    const started = performance.now();
    let status = 0;
    let json: any;
    try {
      const init: RequestInit = { method, headers: { authorization: `Service-Auth-Key ${key}` }, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) };
      if (typeof body === 'string') {
        init.body = body;
        (init.headers as Record<string, string>)['content-type'] = 'application/json';
      } else if (body && 'payload' in (body as object)) {
        const mp = body as { payload: Buffer; contentType: string };
        init.body = new Uint8Array(mp.payload);
        (init.headers as Record<string, string>)['content-type'] = mp.contentType;
      } else if (body !== undefined) {
        init.body = JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] = 'application/json';
      }
      const res = await fetch(base + route, init);
      status = res.status;
      const text = await res.text();
      json = text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
    } catch {
      status = 0;
    }
    if (stats) {
      const ms = performance.now() - started;
      stats.requests++;
      stats.latencies.push(ms);
      const byOp = stats.byOp.get(op) ?? [];
      byOp.push(ms);
      stats.byOp.set(op, byOp);
      if (status >= 500) stats.errors5xx++;
      if (status === 0) stats.failures++;
      if (status >= 500 || status === 0) stats.errorsByOp.set(`${op} ${status || 'failed'}`, (stats.errorsByOp.get(`${op} ${status || 'failed'}`) ?? 0) + 1);
    }
    return { status, json };
  }

  /** A normal client: one request after another, a short pause between them. */
  async function normalClient(key: string, stats: Stats, until: number): Promise<void> {
    const uploads: { id: string; key: string }[] = [];
    while (Date.now() < until) {
      const op = pick(['translate-short', 'translate-short', 'translate-long', 'correct', 'document', 'document', 'glossary']);
      if (op === 'translate-short') await call(stats, op, key, 'POST', '/v2/translate', { text: [pick(SHORT)], source_lang: 'EN', target_lang: 'ES' });
      else if (op === 'translate-long') await call(stats, op, key, 'POST', '/v2/translate', { text: [LONG], source_lang: 'EN', target_lang: 'ES' });
      else if (op === 'correct') await call(stats, op, key, 'POST', '/v2/write/correct', { text: [pick(MISSPELT)], target_lang: 'en-US' });
      else if (op === 'document') {
        const done = uploads[0];
        if (done) {
          const status = await call(stats, 'document-status', key, 'POST', `/v2/document/${done.id}`, { document_key: done.key });
          if (status.json?.status === 'done') {
            uploads.shift();
            await call(stats, 'document-download', key, 'POST', `/v2/document/${done.id}/result`, { document_key: done.key });
          } else if (status.json?.status === 'error' || status.status >= 400) uploads.shift();
        }
        if (uploads.length < 2) {
          const file = multipart([
            { name: 'target_lang', value: 'ES' },
            { name: 'source_lang', value: 'EN' },
            { name: 'file', filename: 'note.txt', content: `${pick(SHORT)}\n${pick(SHORT)}\n` },
          ]);
          const up = await call(stats, 'document-upload', key, 'POST', '/v2/document', file);
          if (up.json?.document_id) uploads.push({ id: up.json.document_id, key: up.json.document_key });
        }
      } else {
        const created = await call(stats, 'glossary-create', key, 'POST', '/v3/glossaries', {
          name: 'soak',
          dictionaries: [{ source_lang: 'en', target_lang: 'es', entries: 'station\testación\nreport\tinforme', entries_format: 'tsv' }],
        });
        await call(stats, 'glossary-list', key, 'GET', '/v3/glossaries');
        if (created.json?.glossary_id) await call(stats, 'glossary-delete', key, 'DELETE', `/v3/glossaries/${created.json.glossary_id}`);
      }
      await sleep(PAUSE_MS);
    }
  }

  /** A raw request on its own socket: reads `readBytes` of the answer (all when undefined), then drops the connection. */
  function raw(head: string, body = '', readBytes?: number): Promise<void> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let got = 0;
      const done = () => {
        socket.destroy();
        resolve();
      };
      socket.setTimeout(CLIENT_TIMEOUT_MS, done);
      socket.on('error', done);
      socket.on('close', done);
      socket.on('data', (c: Buffer) => {
        got += c.length;
        if (readBytes !== undefined && got >= readBytes) done();
        // a whole answer is in once the connection goes quiet; a short pause is enough for these small ones
        else if (readBytes === undefined) setTimeout(done, 200);
      });
      socket.write(head + body);
    });
  }

  /** The hostile client: issue 17's worst inputs, one after another. */
  async function hostileClient(key: string, stats: Stats, until: number): Promise<void> {
    const deepText = `${'<a>'.repeat(XML_DEPTH)}x${'</a>'.repeat(XML_DEPTH)}`;
    const deepDoc = `<?xml version="1.0"?>${'<a>'.repeat(DOC_DEPTH)}text${'</a>'.repeat(DOC_DEPTH)}`;
    const letters = 'qwrtzpsdfghjklxcvbnm';
    const nonWords = () => {
      let s = '';
      while (s.length < 8000) s += `${Array.from({ length: 30 + random(30) }, () => letters[random(letters.length)]).join('')} `;
      return s.trim();
    };
    const bigDoc = Array.from({ length: 3000 }, (_, i) => `Line ${i} of a document that is downloaded only in part.`).join('\n');
    const auth = `Authorization: Service-Auth-Key ${key}\r\n`;
    while (Date.now() < until) {
      const attack = pick(ATTACKS_USED);
      if (attack === 'xml-translate') await call(stats, attack, key, 'POST', '/v2/translate', { text: [deepText], target_lang: 'ES', source_lang: 'EN', tag_handling: 'xml' });
      else if (attack === 'xml-document') {
        await call(stats, attack, key, 'POST', '/v2/document', multipart([{ name: 'target_lang', value: 'ES' }, { name: 'file', filename: 'deep.xml', content: deepDoc }]));
      } else if (attack === 'correct-nonwords') await call(stats, attack, key, 'POST', '/v2/write/correct', { text: [nonWords()], target_lang: 'en-US' });
      else if (attack === 'upgrade') {
        await Promise.all(
          ['h2c', 'websocket', 'foo'].map((proto) =>
            raw(`GET /v2/usage HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Connection: Upgrade\r\nUpgrade: ${proto}\r\n\r\n`),
          ),
        );
      } else if (attack === 'partial-download') {
        const up = await call(stats, 'partial-upload', key, 'POST', '/v2/document', multipart([{ name: 'target_lang', value: 'ES' }, { name: 'source_lang', value: 'EN' }, { name: 'file', filename: 'big.txt', content: bigDoc }]));
        const id = up.json?.document_id as string | undefined;
        for (let i = 0; id && i < 60 && Date.now() < until; i++) {
          const s = await call(stats, 'partial-status', key, 'POST', `/v2/document/${id}`, { document_key: up.json.document_key });
          if (s.json?.status === 'done') {
            const body = JSON.stringify({ document_key: up.json.document_key });
            await raw(`POST /v2/document/${id}/result HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, body, 16 * 1024);
            break;
          }
          if (s.json?.status === 'error' || s.status >= 400) break;
          await sleep(500);
        }
      } else {
        await call(stats, attack, key, 'POST', '/v2/translate', '{"__proto__":{"polluted":1},"constructor":{"prototype":{}},"toString":"x","text":["Hi"],"target_lang":"ES"}');
        await call(stats, attack, key, 'POST', '/v3/glossaries', { name: 'x', dictionaries: [null] });
        await call(stats, attack, key, 'POST', '/v3/style_rules', { name: 'x', language: 'en', configured_rules: { punctuation: { toString: 'x' } } });
        await call(stats, attack, key, 'POST', '/v2/translate?text=a&text=b&target_lang=ES&target_lang=DE');
      }
    }
  }

  const normalKeys = await Promise.all(Array.from({ length: CLIENTS }, newKey));
  const hostileKey = await newKey();
  // warm-up: the engines and checkers the load uses
  await Promise.all(normalKeys.map((k) => call(undefined, 'warm', k, 'POST', '/v2/translate', { text: ['Hello'], source_lang: 'EN', target_lang: 'ES' })));
  await call(undefined, 'warm', normalKeys[0]!, 'POST', '/v2/write/correct', { text: ['Teh test.'], target_lang: 'en-US' });

  const phases: { name: string; normal: Stats; hostile: Stats | undefined; maxLoopDelayMs: number }[] = [];
  for (const withHostile of [false, true]) {
    const until = Date.now() + MINUTES * 60_000;
    const normal = newStats();
    const hostile = withHostile ? newStats() : undefined;
    // the event loop's worst stall this phase: a timer that should fire every 100 ms
    let maxLoopDelayMs = 0;
    let last = performance.now();
    const probe = setInterval(() => {
      const now = performance.now();
      maxLoopDelayMs = Math.max(maxLoopDelayMs, now - last - 100);
      last = now;
    }, 100);
    await Promise.all([...normalKeys.map((k) => normalClient(k, normal, until)), ...(hostile ? [hostileClient(hostileKey, hostile, until)] : [])]);
    clearInterval(probe);
    phases.push({ name: withHostile ? 'with hostile client' : 'normal clients only', normal, hostile, maxLoopDelayMs });
  }

  const pct = (xs: number[], p: number) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!);
  console.log(
    `soak: ${CLIENTS} normal clients, ${MINUTES} min per phase, pause ${PAUSE_MS} ms, xml depth ${XML_DEPTH}, document depth ${DOC_DEPTH}, attacks ${ATTACKS_USED.join(',')}\n`,
  );
  // Closed-loop clients send nothing while they wait, so a long stall weighs little in p99: max and the loop stall show it.
  console.log('| phase | normal requests | p50 ms | p99 ms | max ms | normal 5xx | failed/timed out | hostile requests | hostile 5xx | worst loop stall ms |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const ph of phases) {
    const s = ph.normal;
    console.log(
      `| ${ph.name} | ${s.requests} | ${pct(s.latencies, 50).toFixed(0)} | ${pct(s.latencies, 99).toFixed(0)} | ${Math.max(...s.latencies).toFixed(0)} | ${s.errors5xx} | ${s.failures} | ${ph.hostile?.requests ?? '–'} | ${ph.hostile?.errors5xx ?? '–'} | ${ph.maxLoopDelayMs.toFixed(0)} |`,
    );
  }
  const [alone, beside] = phases;
  const ratio = pct(beside!.normal.latencies, 99) / pct(alone!.normal.latencies, 99);
  const served = beside!.normal.requests / alone!.normal.requests;
  const errors = alone!.normal.errors5xx + beside!.normal.errors5xx + alone!.normal.failures + beside!.normal.failures;
  console.log(`\np99 ratio (with hostile / alone): ${ratio.toFixed(2)} (target ≤ 2); normal 5xx and failures: ${errors} (target 0)`);
  // a stalled server answers few requests, each slow: the p99 of the few can look fine, the count cannot
  console.log(`normal requests served beside the hostile client / alone: ${served.toFixed(2)}; worst loop stall ${beside!.maxLoopDelayMs.toFixed(0)} ms`);
  const pass = ratio <= 2 && errors === 0 && served >= 0.5 && beside!.maxLoopDelayMs < 1000;
  console.log(`verdict: ${pass ? 'PASS' : 'FAIL'} (p99 ratio ≤ 2, no 5xx or failures, at least half the requests served, no loop stall ≥ 1 s)`);
  console.log('\nper operation, p99 ms alone → beside the hostile client:');
  for (const op of [...alone!.normal.byOp.keys()].sort()) {
    console.log(`  ${op}: ${pct(alone!.normal.byOp.get(op)!, 99).toFixed(0)} → ${pct(beside!.normal.byOp.get(op) ?? [], 99).toFixed(0)}`);
  }
  for (const ph of phases) {
    const errors = [...ph.normal.errorsByOp].map(([k, n]) => `${k} ×${n}`).join(', ');
    if (errors) console.log(`normal clients' errors, ${ph.name}: ${errors}`);
    const hostileErrors = [...(ph.hostile?.errorsByOp ?? [])].map(([k, n]) => `${k} ×${n}`).join(', ');
    if (hostileErrors) console.log(`hostile client's errors: ${hostileErrors}`);
  }
  if (beside!.hostile) {
    console.log('hostile requests by kind (count):');
    for (const [op, xs] of [...beside!.hostile.byOp].sort()) console.log(`  ${op}: ${xs.length}`);
  }
  // a hostile document job may still hold a worker: closing gets a few seconds, then the process ends anyway
  await Promise.race([app.close().then(() => services.close()), sleep(5000)]);
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

await main();
