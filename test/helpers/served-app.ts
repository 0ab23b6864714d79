// `tolk serve` as a real child process on the suite's database (a fresh PostgreSQL database when the suite runs on
// PostgreSQL) with one pro account: hostile-input tests post to it over HTTP and sample its resident memory.
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, testDatabase } from './harness.js';
import { sampleMemory } from './peak-memory.js';
import { freshPostgresDatabase, type FreshDatabase } from './fresh-database.js';
import { cliJson, startServe, type ServeProcess } from './serve-process.js';
import { HUNG_TEST_MS } from './wait.js';
import { multipart, type Part } from '../documents/multipart.js';

export interface ServedApp {
  base: string;
  /** The account's key header. */
  auth: Record<string, string>;
  serve: ServeProcess;
  /** The key header of another pro account (`tolk account create`). */
  newAccount(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export async function startServedApp(env: Record<string, string> = {}): Promise<ServedApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-served-'));
  let database: FreshDatabase | undefined;
  let serve: ServeProcess | undefined;
  const close = async () => {
    await serve?.stop('SIGKILL');
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    if (testDatabase() === 'postgres') database = await freshPostgresDatabase('tolk_served');
    const port = await freePort();
    const fullEnv: NodeJS.ProcessEnv = {
      ...process.env,
      TOLK_DATA_DIR: dataDir,
      TOLK_PORT: String(port),
      TOLK_FREE_PORT: String(await freePort()),
      TOLK_APERTIUM_PAIRS: 'en-es',
      ...(database ? { TOLK_DATABASE_URL: database.url } : {}),
      ...env,
    };
    serve = await startServe(fullEnv);
    const newAccount = async () => ({ authorization: `Service-Auth-Key ${(await cliJson(fullEnv, ['account', 'create', '--plan', 'pro'])).admin_key!}` });
    return { base: `http://127.0.0.1:${port}`, auth: await newAccount(), serve, newAccount, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** `fn`'s result and the server's peak resident memory above its level when `fn` began, sampled from outside. */
export async function peakGrowth<T>(app: ServedApp, fn: () => Promise<T>): Promise<{ result: T; growthBytes: number }> {
  const sampler = sampleMemory(app.serve.child.pid!);
  try {
    const result = await fn();
    return { result, growthBytes: sampler.stop() - sampler.baseline };
  } finally {
    sampler.stop();
  }
}

export interface Answer {
  status: number;
  body: Record<string, any>;
}

/**
 * One request, as the app's account unless `headers` names another key, on a connection of its own: a kept-alive
 * socket the server closes after its idle timeout while a slow test prepares its next file would break it (EPIPE).
 */
export function call(app: ServedApp, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${app.base}${path}`, { method, agent: false, headers: { ...app.auth, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, any>) : {} });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A multipart body posted with call(). */
export function postMultipart(app: ServedApp, path: string, parts: Part[], auth = app.auth): Promise<Answer> {
  const { payload, contentType } = multipart(parts);
  return call(app, 'POST', path, { ...auth, 'content-type': contentType }, payload);
}

export interface DocumentOutcome {
  /** Status of the upload; when not 200, `body` is its error body. */
  upload: number;
  /** The last status body (`done` or `error`), or the upload's error body. */
  body: { status?: string; error_message?: string; message?: string };
}

/** Uploads a document and polls its status until it is done or failed (each poll waits up to 4 s on the server). */
export async function translateDocument(
  app: ServedApp,
  fileName: string,
  content: Buffer,
  fields: Record<string, string> = { target_lang: 'ES' },
  auth = app.auth,
): Promise<DocumentOutcome> {
  const up = await postMultipart(app, '/v2/document', [...Object.entries(fields).map(([name, value]) => ({ name, value })), { name: 'file', filename: fileName, content }], auth);
  if (up.status !== 200) return { upload: up.status, body: up.body };
  const { document_id: id, document_key: key } = up.body as { document_id: string; document_key: string };
  const deadline = Date.now() + HUNG_TEST_MS * 3;
  for (;;) {
    const res = await call(app, 'POST', `/v2/document/${id}`, { ...auth, 'content-type': 'application/json' }, JSON.stringify({ document_key: key }));
    if (res.status !== 200) return { upload: 200, body: { status: `HTTP ${res.status}`, ...res.body } };
    const body = res.body as DocumentOutcome['body'];
    if (body.status === 'done' || body.status === 'error') return { upload: 200, body };
    if (Date.now() > deadline) throw new Error(`document still ${body.status} after ${HUNG_TEST_MS * 3} ms`);
  }
}
