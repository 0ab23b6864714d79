// A local OpenAI-compatible Chat Completions server for tests: answers numbered-JSON prompts from a fixture table and
// can be scripted to fail (500, 429), hang, send garbage or drop placeholders, one behaviour per request.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach } from 'node:test';

export interface ChatRequestRecord {
  headers: IncomingMessage['headers'];
  body: { model: string; messages: { role: string; content: string }[]; response_format?: unknown };
  system: string;
  texts: Record<string, string>;
  /** The usage the answer reported (OpenAI's usage object), when it answered: a token per character, to be countable. */
  usage?: { prompt_tokens: number; completion_tokens: number };
}

/** What to do with one request; a function gets the numbered texts and the system prompt and returns the values. */
export type Behaviour =
  | 'ok'
  | 'status500'
  | 'status429'
  | 'status400'
  | 'hang'
  | 'garbage'
  | 'fenced'
  | 'drop_placeholders'
  | 'drop_last_key'
  | ((texts: Record<string, string>, system: string) => Record<string, string>);

export interface FakeLlmServer {
  url: string;
  requests: ChatRequestRecord[];
  /** Behaviours for the next requests, in order; afterwards 'ok'. */
  script(...behaviours: Behaviour[]): void;
  /** Answers by exact input text (translation, rephrase and correct alike). */
  answers: Map<string, string>;
  close(): Promise<void>;
}

const PROTECTED = /<\/?[A-Za-z_][^<>]*>|⟦[^⟦⟧\s]{1,16}⟧/g;

/** Default answers: the fixture, else a recognisable transformation that keeps placeholders. */
function defaultAnswer(text: string, system: string, answers: Map<string, string>): string {
  const fixed = answers.get(text);
  if (fixed !== undefined) return fixed;
  if (system.includes('proofreader')) return text;
  const target = /to ([A-Z][\w ]+?)\.\n/.exec(system)?.[1];
  return target ? `[${target}] ${text}` : `[improved] ${text}`;
}

export async function startFakeLlmServer(): Promise<FakeLlmServer> {
  const requests: ChatRequestRecord[] = [];
  const queue: Behaviour[] = [];
  const answers = new Map<string, string>();
  const sockets = new Set<Socket>();

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(raw) as ChatRequestRecord['body'];
    const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
    const user = body.messages.filter((m) => m.role === 'user').pop()?.content ?? '{}';
    const texts = JSON.parse(user) as Record<string, string>;
    const record: ChatRequestRecord = { headers: req.headers, body, system, texts };
    requests.push(record);
    const behaviour = queue.shift() ?? 'ok';
    const reply = (content: string) => {
      record.usage = { prompt_tokens: body.messages.reduce((n, m) => n + m.content.length, 0), completion_tokens: content.length };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', model: body.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: record.usage }));
    };
    const values = () => Object.fromEntries(Object.entries(texts).map(([k, t]) => [k, defaultAnswer(t, system, answers)]));
    switch (behaviour) {
      case 'status500':
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
        return;
      case 'status429':
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"error":"slow down"}');
        return;
      case 'status400':
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"model not found"}');
        return;
      case 'hang':
        return; // never answers; the socket is destroyed on close()
      case 'garbage':
        reply('Sure! Here are your translations: 1. something');
        return;
      case 'fenced':
        reply('```json\n' + JSON.stringify(values()) + '\n```');
        return;
      case 'drop_placeholders':
        reply(JSON.stringify(Object.fromEntries(Object.entries(values()).map(([k, v]) => [k, v.replace(PROTECTED, '')]))));
        return;
      case 'drop_last_key': {
        const v = values();
        delete v[String(Object.keys(v).length)];
        reply(JSON.stringify(v));
        return;
      }
      case 'ok':
        reply(JSON.stringify(values()));
        return;
      default:
        reply(JSON.stringify(behaviour(texts, system)));
    }
  };

  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => handle(req, res, raw));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    answers,
    script: (...behaviours) => queue.push(...behaviours),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A URL where nothing listens (a port that was just free). */
export async function unreachableUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

/**
 * One fake server for a suite (or describe block): started before its tests, cleared before each, closed after them
 * with the engines the tests registered through `track`.
 */
export function fakeLlmServerPerSuite(): { server: () => FakeLlmServer; track: <E extends { close(): Promise<void> }>(engine: E) => E } {
  let server: FakeLlmServer | undefined;
  const engines: { close(): Promise<void> }[] = [];
  before(async () => {
    server = await startFakeLlmServer();
  });
  after(async () => {
    await Promise.all(engines.map((e) => e.close()));
    await server?.close();
  });
  beforeEach(() => {
    server!.requests.length = 0;
    server!.answers.clear();
  });
  return {
    server: () => server!,
    track: (engine) => {
      engines.push(engine);
      return engine;
    },
  };
}
