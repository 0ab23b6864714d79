// Helpers of bench/translate.ts: HTTP client, ports, percentiles, formatting, and the CPU time of other processes (an
// engine's children, read from /proc) for per-request CPU figures that the machine's load hardly moves.
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';

export type Translate = (text: string) => Promise<string>;

/** One variant in one cell (mode × text kind) of one round. */
export interface Row {
  variant: string;
  mode: string;
  kind: string;
  requests: number;
  seconds: number;
  p50: number;
  p95: number;
  p99: number;
  /** CPU time of this Node process (bench client, Tolk server, engine glue; not the Apertium stages) per request. */
  cpuMsPerRequest: number;
  /** CPU time of the Apertium stages per request (engine variants; NaN elsewhere): load on the machine hardly moves it. */
  stageCpuMsPerRequest: number;
}

/** The bench's short sentences. */
export const SHORT = [
  'The house is big.',
  'Where is the train station?',
  'I have two dogs and a cat.',
  'Thank you very much.',
  'The weather is nice today.',
  'Can you help me, please?',
  'She reads a book every week.',
  'We are going to the beach tomorrow.',
];

/** POST over a keep-alive connection pool (one socket per concurrent client), resolving with status and body. */
export function post(agent: Agent, url: URL, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (data += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A keep-alive client for a `/v2/translate` server (Tolk or the bare Fastify route): the first translation's text. */
export function v2TranslateClient(
  label: string,
  url: URL,
  headers: Record<string, string>,
  bodyFor: (text: string) => string,
  sockets: number,
): { translate: Translate; agent: Agent } {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const translate: Translate = async (text) => {
    const res = await post(agent, url, headers, bodyFor(text));
    if (res.status !== 200) throw new Error(`${label} ${res.status}: ${res.body}`);
    return (JSON.parse(res.body) as { translations: { text: string }[] }).translations[0]?.text ?? '';
  };
  return { translate, agent };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function fmt(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '-';
}

/** utime + stime of these processes, ms (a process gone meanwhile counts 0: the relay's replaced taggers are missed). */
export function processCpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}
