// Document tests: an app with its own data directory, sample files, and a client for upload → status → download.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authHeaders, createAccount, createTestApp, type TestAccount, type TestContext } from './harness.js';
import { multipart, type Part } from '../documents/multipart.js';
import { HUNG_TEST_MS, waitFor } from './wait.js';

const FIXTURES = new URL('../../../test/fixtures/documents/', import.meta.url);

/** A sample file under test/fixtures/documents. */
export const fixture = (name: string): Buffer => readFileSync(new URL(name, FIXTURES));

/**
 * Counts the status requests (POST /v2/document/{id}) a listening app receives, per upper-case document id: a client
 * that sleeps between polls (deepl-node: 5 s) shows by their number whether the first poll already found it done.
 */
export function countStatusPolls(ctx: TestContext): Map<string, number> {
  const polls = new Map<string, number>();
  ctx.app.server.on('request', (req: IncomingMessage) => {
    const id = /^\/v2\/document\/([0-9A-Fa-f]{32})$/.exec(req.url ?? '')?.[1]?.toUpperCase();
    if (req.method === 'POST' && id) polls.set(id, (polls.get(id) ?? 0) + 1);
  });
  return polls;
}

/** The document characters charged to the account's key this period. */
export async function documentUsage(ctx: TestContext, account: TestAccount): Promise<number> {
  const summary = await ctx.services.usage.summary((await ctx.services.accounts.authenticate(account.key))!);
  return summary.products.find((p) => p.product === 'document_translation')!.key;
}

export interface DocumentsTestApp {
  ctx: TestContext;
  account: TestAccount;
  client: DocumentClient;
  close(): Promise<void>;
}

/** A test app whose documents live in a fresh temporary directory, with one pro account. */
export async function createDocumentsTestApp(env: Record<string, string> = {}): Promise<DocumentsTestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-docs-'));
  const ctx = await createTestApp({ env: { TOLK_DATA_DIR: dataDir, ...env } });
  const account = await createAccount(ctx);
  return {
    ctx,
    account,
    client: new DocumentClient(ctx, account),
    async close() {
      await ctx.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface FinishedDocument {
  /** The last status body (`done` or `error`). */
  status: Record<string, any>;
  /** The downloaded result, when done. */
  file?: { type: string; data: Buffer };
}

/** /v2/document calls of one account, through inject. */
export class DocumentClient {
  constructor(
    private readonly ctx: TestContext,
    private readonly account: TestAccount,
  ) {}

  upload(parts: Part[], headers: Record<string, string> = {}) {
    const { payload, contentType } = multipart(parts);
    return this.ctx.app.inject({ method: 'POST', url: '/v2/document', headers: { ...authHeaders(this.account), 'content-type': contentType, ...headers }, payload });
  }

  status(id: string, key: string) {
    return this.ctx.app.inject({ method: 'POST', url: `/v2/document/${id}`, headers: authHeaders(this.account), payload: { document_key: key } });
  }

  download(id: string, key: string) {
    return this.ctx.app.inject({
      method: 'POST',
      url: `/v2/document/${id}/result`,
      headers: { ...authHeaders(this.account), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `document_key=${key}`,
    });
  }

  /** Polls until the job is done or failed; returns the last status body. */
  async waitFor(id: string, key: string, timeoutMs = HUNG_TEST_MS): Promise<Record<string, any>> {
    return waitFor(`document ${id} to end`, async () => {
      const res = await this.status(id, key);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      return (body.status === 'done' || body.status === 'error') && (body as Record<string, any>);
    }, timeoutMs);
  }

  /** Uploads, waits for the job to end and downloads the result when it is done. */
  async translateFile(parts: Part[], timeoutMs?: number): Promise<FinishedDocument & { id: string; key: string }> {
    const up = await this.upload(parts);
    assert.equal(up.statusCode, 200, up.body);
    const { document_id: id, document_key: key } = up.json() as { document_id: string; document_key: string };
    const status = await this.waitFor(id, key, timeoutMs);
    if (status.status !== 'done') return { id, key, status };
    const dl = await this.download(id, key);
    assert.equal(dl.statusCode, 200, dl.body);
    return { id, key, status, file: { type: String(dl.headers['content-type']), data: dl.rawPayload } };
  }
}
