// Document tests: an app with its own data directory, sample files, and a client for upload → status → download.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authHeaders, createAccount, createTestApp, type TestAccount, type TestContext } from './harness.js';
import { multipart, type Part } from '../documents/multipart.js';

const FIXTURES = new URL('../../../test/fixtures/documents/', import.meta.url);

/** A sample file under test/fixtures/documents. */
export const fixture = (name: string): Buffer => readFileSync(new URL(name, FIXTURES));

export interface DocumentsTestApp {
  ctx: TestContext;
  account: TestAccount;
  client: DocumentClient;
  close(): Promise<void>;
}

/** A test app whose documents live in a fresh temporary directory, with one pro account. */
export async function createDocumentsTestApp(): Promise<DocumentsTestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-docs-'));
  const ctx = await createTestApp({ env: { TOLK_DATA_DIR: dataDir } });
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
  async waitFor(id: string, key: string, timeoutMs = 60_000): Promise<Record<string, any>> {
    const start = Date.now();
    for (;;) {
      const res = await this.status(id, key);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      if (body.status === 'done' || body.status === 'error') return body;
      if (Date.now() - start > timeoutMs) assert.fail(`document still ${body.status}`);
      await new Promise((r) => setTimeout(r, 25));
    }
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
