// Two tenants of one server (issue 31): account B sends one short sentence every 150 ms; account A sends the largest
// legal /v2/translate requests (50 texts of 2.5 kB) in 2, then 6, concurrent loops. B's latency alone and beside A,
// and both accounts' errors, through `tolk serve` in its own process (Apertium en-es, the default install), one
// pipeline per pair as on a 2-core machine. --baseline=DIR runs another built checkout's server (e.g. /work/main) the
// same way in the same run. Memory: the server's resident memory (its Node process, and with its Apertium stages)
// before the bursts of A, at their peak (read every 250 ms) and --settle-ms after the last one (the issue: back within
// 20 % of before). Then B beside A's documents (75 kB text files, uploaded, polled and downloaded), and beside A's
// voice sessions (spoken English streamed at real-time pace over /v3/voice/realtime, transcribed, translated into
// Spanish text and speech). On request, B beside one text document of A's with no sentence break in N MB (the issue's
// long line: it must translate or end with a clear message, never an engine timeout; its outcome and time are printed).
// Flags: --seconds=20 (per phase), --loads=2,6 (0: no such phases), --documents=2 (concurrent document loops; 0: no
// such phase), --voices=2 (concurrent voice sessions; 0: no such phase), --long-line-mb=0, --baseline=DIR,
// --settle-ms=60000.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './args.js';
import { SHORT, freePort, percentile, post } from './translate-helpers.js';
import { residentBytes } from '../src/engines/process-pool.js';
import { treeRssMb } from './process-memory.js';
import { buildAudio, runStream } from './voice-stream.js';

const args = benchArgs();
const SECONDS = Number(args.get('seconds') ?? 20);
const LOADS = (args.get('loads') ?? '2,6').split(',').map(Number).filter((n) => n > 0);
/** Concurrent loops of A's 75 kB documents in the last phase (0: no such phase). */
const DOCUMENT_LOOPS = Number(args.get('documents') ?? 2);
/** Concurrent voice sessions of A in the voice phase (0: no such phase). */
const VOICE_LOOPS = Number(args.get('voices') ?? 2);
/** Size of A's one-line document in the long-line phase (0: no such phase). */
const LONG_LINE_MB = Number(args.get('long-line-mb') ?? 0);
const B_EVERY_MS = 150;
/** Idle time after the last phase before the server's memory is read again. */
const SETTLE_MS = Number(args.get('settle-ms') ?? 60_000);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** 2.5 kB of ordinary English prose; `n` makes each text differ. */
function longText(n: number): string {
  const sentences = [
    'The old house at the end of the street has a large garden with apple trees.',
    'Every morning the children walk to school along the river and cross the small bridge.',
    'My neighbour works in the hospital and often comes home late in the evening.',
    'We bought fresh bread, cheese and vegetables at the market on Saturday.',
    'The train to the city leaves at seven and arrives an hour later.',
    'In winter the lake freezes and people go skating when the weather is clear.',
  ];
  let out = '';
  for (let i = 0; out.length < 2450; i++) out += `${sentences[(i + n) % sentences.length]!.replace('The', `The ${n % 97}`)} `;
  return out.trim();
}

interface Server {
  keys: { a: string; b: string };
  url: URL;
  /** Resident memory, MiB: the server's Node process (its Apertium stages apart), and with them. */
  memory(): Memory;
  close(): Promise<void>;
}

function cli(root: string, env: NodeJS.ProcessEnv, argv: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [path.resolve(root, 'dist', 'src', 'cli.js'), ...argv], { env });
    let out = '';
    c.stdout.on('data', (d: Buffer) => (out += d));
    c.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`tolk ${argv.join(' ')} exited ${code}`))));
  });
}

/** `tolk serve` of the checkout at `root`, with two pro accounts made by its CLI. */
async function startServer(root: string): Promise<Server> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tolk-tenants-'));
  const port = await freePort();
  const env = {
    ...process.env,
    TOLK_DATA_DIR: dir,
    TOLK_HOST: '127.0.0.1',
    TOLK_PORT: String(port),
    TOLK_FREE_PORT: String(await freePort()),
    TOLK_RATE_LIMIT_PER_MINUTE: '100000000',
    TOLK_APERTIUM_PAIRS: 'en-es',
    TOLK_APERTIUM_PIPELINES_PER_PAIR: '1',
    TOLK_LOG_LEVEL: 'warn',
  };
  const account = async () =>
    (JSON.parse(await cli(root, env, ['account', 'create', '--plan', 'pro', '--character-limit', 'unlimited', '--json'])) as { admin_key: string }).admin_key;
  const keys = { a: await account(), b: await account() };
  const child: ChildProcess = spawn(process.execPath, [path.resolve(root, 'dist', 'src', 'cli.js'), 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-2000)));
  const url = new URL(`http://127.0.0.1:${port}/v2/translate`);
  const agent = new Agent({ keepAlive: true });
  for (const deadline = Date.now() + 60_000; ; ) {
    const res = await send(agent, url, keys.b, ['Warm up.']).catch(() => undefined);
    if (res?.status === 200) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`tolk did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  agent.destroy();
  return {
    keys,
    url,
    memory: () => ({ node: Math.round(residentBytes(child.pid!) / 2 ** 20), all: treeRssMb(child.pid!).mb }),
    close: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function send(agent: Agent, url: URL, key: string, texts: string[]): Promise<{ status: number; body: string }> {
  const headers = { 'content-type': 'application/json', authorization: `DeepL-Auth-Key ${key}` };
  return post(agent, url, headers, JSON.stringify({ text: texts, source_lang: 'EN', target_lang: 'ES' }));
}

interface Memory {
  node: number;
  all: number;
}

const maxMemory = (a: Memory, b: Memory): Memory => ({ node: Math.max(a.node, b.node), all: Math.max(a.all, b.all) });

interface Phase {
  bLatencies: number[];
  bErrors: Map<string, number>;
  aRequests: number;
  aErrors: Map<string, number>;
  aBytes: number;
  seconds: number;
  /** Highest resident memory read during the phase. */
  peak: Memory;
}

const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

/** One of A's requests: the characters translated, or a thrown Error whose message is what went wrong (a status). */
type ARequest = (server: Server, agent: Agent, loop: number, n: number) => Promise<number>;

/** The largest legal /v2/translate request: 50 texts of 2.5 kB. */
const textRequest: ARequest = async (server, agent, loop, n) => {
  const texts = Array.from({ length: 50 }, (_, i) => longText(loop * 1000 + n * 50 + i));
  const res = await send(agent, server.url, server.keys.a, texts);
  if (res.status !== 200) throw new Error(String(res.status));
  return texts.reduce((s, t) => s + t.length, 0);
};

/**
 * A text document uploaded, waited for (polled every 250 ms) and downloaded; counts its characters. The document's
 * status `error` (with its message) or a result under half the text's size is an error.
 */
async function translateDocument(server: Server, text: string): Promise<number> {
  const base = new URL('/v2/document', server.url);
  const auth = { authorization: `DeepL-Auth-Key ${server.keys.a}` };
  const form = new FormData();
  form.set('file', new Blob([text], { type: 'text/plain' }), 'tenant-a.txt');
  form.set('source_lang', 'EN');
  form.set('target_lang', 'ES');
  const upload = await fetch(base, { method: 'POST', headers: auth, body: form });
  if (upload.status !== 200) throw new Error(`upload ${upload.status}`);
  const { document_id: id, document_key: documentKey } = (await upload.json()) as { document_id: string; document_key: string };
  const json = { ...auth, 'content-type': 'application/json' };
  for (;;) {
    const res = await fetch(`${base}/${id}`, { method: 'POST', headers: json, body: JSON.stringify({ document_key: documentKey }) });
    const { status, error_message: message } = (await res.json()) as { status?: string; error_message?: string };
    if (status === 'done') break;
    if (status === 'error' || res.status !== 200) throw new Error(`document ${status ?? res.status}${message ? `: ${message}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const result = await fetch(`${base}/${id}/result`, { method: 'POST', headers: json, body: JSON.stringify({ document_key: documentKey }) });
  if (result.status !== 200) throw new Error(`result ${result.status}`);
  const translated = (await result.arrayBuffer()).byteLength;
  if (translated < text.length / 2) throw new Error(`result of ${translated} bytes for ${text.length}`);
  return text.length;
}

/** A 75 kB text document: 30 paragraphs of 2.5 kB. */
const documentRequest: ARequest = (server, _agent, loop, n) =>
  translateDocument(server, Array.from({ length: 30 }, (_, i) => longText(loop * 1000 + n * 30 + i)).join('\n\n'));

/** A text document of LONG_LINE_MB with no sentence break (`the house 0 and the house 1 and …`); its outcome is printed. */
const longLineRequest: ARequest = async (server) => {
  const parts: string[] = [];
  for (let i = 0, size = 0; size < LONG_LINE_MB * 1e6; i++) size += (parts[i] = `the house ${i} and `).length;
  const text = parts.join('');
  const t0 = performance.now();
  const seconds = () => ((performance.now() - t0) / 1000).toFixed(1);
  try {
    const characters = await translateDocument(server, text);
    console.error(`A's one-line document of ${text.length} characters: translated in ${seconds()} s`);
    return characters;
  } catch (err) {
    console.error(`A's one-line document of ${text.length} characters: ${(err as Error).message} after ${seconds()} s`);
    throw err;
  }
};

let voiceAudio: ReturnType<typeof buildAudio> | undefined;

/**
 * One voice session of A: five English utterances with pauses (~19 s) streamed in 100 ms chunks at real-time pace,
 * transcribed and translated into Spanish text and speech; counts the transcript's characters. An error message on the
 * stream, or an utterance never concluded, is an error.
 */
const voiceRequest: ARequest = async (server) => {
  voiceAudio ??= buildAudio();
  const res = await fetch(new URL('/v3/voice/realtime', server.url), {
    method: 'POST',
    headers: { authorization: `DeepL-Auth-Key ${server.keys.a}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      source_media_content_type: 'audio/pcm;encoding=s16le;rate=16000',
      source_language: 'en',
      target_languages: ['es'],
      target_media_languages: ['es'],
      target_media_content_type: 'audio/ogg;codecs=opus',
    }),
  });
  if (res.status !== 200) throw new Error(`session ${res.status}`);
  const { token } = (await res.json()) as { token: string };
  const stream = await runStream(`ws://${server.url.host}/v3/voice/realtime/connect?token=${encodeURIComponent(token)}`, voiceAudio.pcm, voiceAudio.ends);
  if (stream.errors.length > 0) throw new Error(`voice error ${stream.errors[0]!.slice(0, 80)}`);
  if (stream.transcriptLatency.some(Number.isNaN)) throw new Error('utterance not concluded');
  return stream.text.length;
};

/** B every 150 ms (open loop: a slow answer does not delay the next request) beside `aLoops` loops of A's `request`. */
async function phase(server: Server, aLoops: number, request: ARequest = textRequest): Promise<Phase> {
  const agentA = new Agent({ keepAlive: true, maxSockets: Math.max(1, aLoops) });
  const agentB = new Agent({ keepAlive: true });
  const result: Phase = { bLatencies: [], bErrors: new Map(), aRequests: 0, aErrors: new Map(), aBytes: 0, seconds: SECONDS, peak: server.memory() };
  const sampler = setInterval(() => (result.peak = maxMemory(result.peak, server.memory())), 250);
  let running = true;
  const aLoop = async (loop: number) => {
    for (let n = 0; running; n++) {
      try {
        // read after the await: `+= await` would add to the total as it was before, losing the other loops' counts
        const characters = await request(server, agentA, loop, n);
        result.aBytes += characters;
        result.aRequests++;
      } catch (err) {
        count(result.aErrors, (err as Error).message);
      }
    }
  };
  const aDone = Promise.all(Array.from({ length: aLoops }, (_, i) => aLoop(i)));
  // A's requests are in the pipeline before B is measured
  if (aLoops > 0) await new Promise((r) => setTimeout(r, 1000));
  const bPending: Promise<void>[] = [];
  const started = Date.now();
  for (let i = 0; Date.now() - started < SECONDS * 1000; i++) {
    const t0 = performance.now();
    bPending.push(
      send(agentB, server.url, server.keys.b, [SHORT[i % SHORT.length]!]).then(
        (res) => {
          if (res.status === 200) result.bLatencies.push(performance.now() - t0);
          else count(result.bErrors, String(res.status));
        },
        () => void count(result.bErrors, 'connection'),
      ),
    );
    await new Promise((r) => setTimeout(r, Math.max(0, started + (i + 1) * B_EVERY_MS - Date.now())));
  }
  await Promise.all(bPending);
  running = false;
  await aDone;
  clearInterval(sampler);
  agentA.destroy();
  agentB.destroy();
  return result;
}

const errors = (m: Map<string, number>) => ([...m.values()].reduce((a, b) => a + b, 0) === 0 ? '0' : [...m].map(([k, v]) => `${v}× ${k}`).join(', '));

const memoryRows: string[] = [];

async function run(name: string, root: string): Promise<void> {
  const server = await startServer(root);
  const mem = (label: string, m: Memory) => memoryRows.push(`| ${name} | ${label} | ${m.node} | ${m.all} |`);
  try {
    let before: Memory | undefined;
    const phases: [label: string, loops: number, request: ARequest][] = [
      ['B alone', 0, textRequest],
      ...LOADS.map((n): [string, number, ARequest] => [`beside ${n} × A`, n, textRequest]),
      ...(DOCUMENT_LOOPS > 0 ? [[`beside ${DOCUMENT_LOOPS} × A's documents`, DOCUMENT_LOOPS, documentRequest] as [string, number, ARequest]] : []),
      ...(VOICE_LOOPS > 0 ? [[`beside ${VOICE_LOOPS} × A's voice sessions`, VOICE_LOOPS, voiceRequest] as [string, number, ARequest]] : []),
      ...(LONG_LINE_MB > 0 ? [[`beside A's ${LONG_LINE_MB} MB one-line document`, 1, longLineRequest] as [string, number, ARequest]] : []),
    ];
    for (const [label, loads, request] of phases) {
      if (loads > 0 && before === undefined) mem('before the bursts (after B alone)', (before = server.memory()));
      const r = await phase(server, loads, request);
      if (loads > 0) mem(`peak ${label}`, r.peak);
      const l = [...r.bLatencies].sort((a, b) => a - b);
      const a = loads === 0 ? '– | – | –' : `${r.aRequests} | ${errors(r.aErrors)} | ${(r.aBytes / 1000 / r.seconds).toFixed(1)}`;
      console.log(
        `| ${name} | ${label} | ${l.length} | ${percentile(l, 50).toFixed(0)} | ${percentile(l, 99).toFixed(0)} | ${errors(r.bErrors)} | ${a} | ${server.memory().node} |`,
      );
    }
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const settled = server.memory();
    const change = (now: number, then: number) => `${now >= then ? '+' : ''}${Math.round((100 * (now - then)) / then)} %`;
    mem(`${SETTLE_MS / 1000} s after the last burst`, settled);
    if (before) memoryRows.push(`| ${name} | change from before | ${change(settled.node, before.node)} | ${change(settled.all, before.all)} |`);
  } finally {
    await server.close();
  }
}

console.log(`B: one short sentence every ${B_EVERY_MS} ms; A: 50 × 2.5 kB per request; ${SECONDS} s per phase; Apertium en-es, 1 pipeline\n`);
console.log('| server | phase | B answered | B p50 ms | B p99 ms | B errors | A answered | A errors | A kB/s translated | server RSS after, MiB |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
const baseline = args.get('baseline');
if (baseline) await run(`baseline (${path.basename(path.resolve(baseline))})`, path.resolve(baseline));
await run('this checkout', repoRoot);
console.log('\n| server | moment | Node process RSS, MiB | with its Apertium stages, MiB |');
console.log('|---|---|---:|---:|');
for (const row of memoryRows) console.log(row);
