// `tolk serve` as a real process given documents made to exhaust its memory through pixels: giant blank PDF pages
// (one, many, from two accounts at once), images inside PDFs that expand to hundreds of megabytes or claim gigabytes,
// PNG/JPEG/TIFF decompression bombs, and a document over the format thread's heap limit. Each ends with a clear
// message (or done), the server keeps serving, and its peak resident memory, sampled from outside while the jobs run,
// stays under the bound of issue 42: 1 GiB above its level before the request, 1.5 GiB for two accounts at once.
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgresDatabase } from '../helpers/fresh-database.js';
import { freePort, testDatabase } from '../helpers/harness.js';
import { growthMib, MIB, sampleMemory } from '../helpers/peak-memory.js';
import { blankPagesPdf, imageBombPdf, jpegBomb, lyingInlineJpegPdf, lyingJpegPdf, PDF_MAX_PAGE_PT, pngBomb, tiffBomb } from '../helpers/pixel-bombs.js';
import { cliJson, startServe, type ServeProcess } from '../helpers/serve-process.js';

const ONE_JOB_BOUND = 1024 * MIB;
const TWO_JOBS_BOUND = 1536 * MIB;

type Outcome = { upload: number; message: string } | { status: string; message: string };

/** A server with its own data folder and database (a fresh PostgreSQL database when the suite runs on it). */
class Server {
  private constructor(
    readonly served: ServeProcess,
    readonly keys: string[],
    private readonly base: string,
    private readonly cleanup: () => Promise<void>,
  ) {}

  static async start(env: Record<string, string> = {}, accounts = 2): Promise<Server> {
    const dataDir = mkdtempSync(join(tmpdir(), 'tolk-pixels-'));
    const database = testDatabase() === 'postgres' ? await freshPostgresDatabase('tolk_pixels') : undefined;
    const port = await freePort();
    const fullEnv = {
      ...process.env,
      TOLK_DATA_DIR: dataDir,
      TOLK_PORT: String(await freePort()),
      TOLK_FREE_PORT: String(port),
      TOLK_APERTIUM_PAIRS: 'en-es',
      ...(database ? { TOLK_DATABASE_URL: database.url } : {}),
      ...env,
    };
    const served = await startServe(fullEnv);
    const cleanup = async () => {
      await served.stop('SIGKILL');
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
    try {
      const keys: string[] = [];
      for (let k = 0; k < accounts; k++) keys.push((await cliJson(fullEnv, ['account', 'create', '--plan', 'free'])).admin_key!);
      return new Server(served, keys, `http://127.0.0.1:${port}`, cleanup);
    } catch (err) {
      await cleanup();
      throw err;
    }
  }

  /** Uploads a document with `key` and waits for its job to end (status requests are held until it changes). */
  async translate(key: string, bytes: Buffer, fileName: string): Promise<Outcome> {
    const auth = { authorization: `Service-Auth-Key ${key}` };
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), fileName);
    form.append('source_lang', 'EN');
    form.append('target_lang', 'ES');
    const up = await this.upload(auth, form);
    const uploaded = (await up.json()) as { document_id: string; document_key: string; message?: string };
    if (up.status !== 200) return { upload: up.status, message: String(uploaded.message) };
    // only a hung job reaches this: each ends within the format time budget (2 minutes) on any machine
    for (const deadline = Date.now() + 5 * 60_000; Date.now() < deadline; ) {
      const res = await fetch(`${this.base}/v2/document/${uploaded.document_id}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: `document_key=${uploaded.document_key}`,
      });
      const body = (await res.json()) as { status: string; error_message?: string };
      if (body.status === 'done' || body.status === 'error') return { status: body.status, message: body.error_message ?? '' };
    }
    assert.fail(`${fileName}: the job did not end`);
  }

  /**
   * The upload, sent again once when its connection closes before any answer while the server still runs (seen once in a
   * loaded CI run: undici's "other side closed" with nothing read; not reproduced in 15 loaded runs since). What the
   * suite asserts is the job's outcome and memory, not the transport; the first failure is printed with the server's log
   * so that a real cause shows, and a dead server fails at once.
   */
  private async upload(auth: Record<string, string>, form: FormData): Promise<Response> {
    try {
      return await fetch(`${this.base}/v2/document`, { method: 'POST', headers: auth, body: form });
    } catch (err) {
      const logs = this.served.logs().slice(-2000);
      if (this.served.child.exitCode !== null || this.served.child.signalCode !== null) assert.fail(`the server exited (${this.served.child.exitCode ?? this.served.child.signalCode}) during an upload:\n${logs}`);
      console.error(`upload failed (${String((err as Error).cause ?? err)}); sending it again. Server log:\n${logs}`);
      return fetch(`${this.base}/v2/document`, { method: 'POST', headers: auth, body: form });
    }
  }

  /** Each key translates its file at the same time; the server's peak RSS above its level before is returned with the outcomes. */
  async measured(t: TestContext, files: { bytes: Buffer; name: string }[]): Promise<{ outcomes: Outcome[]; growth: number; mib: number }> {
    const memory = sampleMemory(this.served.child.pid!);
    const outcomes = await Promise.all(files.map((f, k) => this.translate(this.keys[k]!, f.bytes, f.name)));
    memory.stop();
    assert.equal(this.served.child.exitCode, null, `the server exited:\n${this.served.logs().slice(-2000)}`);
    t.diagnostic(`${files.map((f) => f.name).join(' + ')}: peak RSS ${Math.round(memory.baseline / MIB)} → ${Math.round(memory.peak() / MIB)} MiB`);
    return { outcomes, growth: memory.peak() - memory.baseline, mib: growthMib(memory) };
  }

  close(): Promise<void> {
    return this.cleanup();
  }
}

function assertError(outcome: Outcome, message: RegExp): void {
  assert.ok('status' in outcome, `the upload was refused: ${JSON.stringify(outcome)}`);
  assert.equal(outcome.status, 'error', JSON.stringify(outcome));
  assert.match(outcome.message, message);
}

describe('documents made to exhaust memory through pixels, on a real server', () => {
  let server: Server;
  before(async () => {
    server = await Server.start();
  });
  after(() => server?.close());

  it('one blank 5000 × 5000 pt page without text (312 bytes): too large to read, under 1 GiB', async (t) => {
    const pdf = blankPagesPdf(1, 5000);
    assert.ok(pdf.length < 400);
    const { outcomes, growth, mib } = await server.measured(t, [{ bytes: pdf, name: 'blank.pdf' }]);
    assertError(outcomes[0]!, /no text to translate.*Page 1 without a usable text layer is too large for text recognition \(more than 25 megapixels/su);
    assert.ok(growth < ONE_JOB_BOUND, `peak RSS grew by ${mib} MiB`);
  });

  it('the same page from two accounts at once: both end in a clear error, under 1.5 GiB', async (t) => {
    const pdf = blankPagesPdf(1, 5000);
    const { outcomes, growth, mib } = await server.measured(t, [
      { bytes: pdf, name: 'blank.pdf' },
      { bytes: pdf, name: 'blank.pdf' },
    ]);
    for (const o of outcomes) assertError(o, /too large for text recognition/u);
    assert.ok(growth < TWO_JOBS_BOUND, `peak RSS grew by ${mib} MiB`);
  });

  it('a blank 3000 pt page, drawn at the pixel cap and read, from two accounts at once: under 1.5 GiB', async (t) => {
    // 9 million square points: drawn at 1.67 px/pt (25 megapixels), not at 3 px/pt (81 megapixels)
    const pdf = blankPagesPdf(1, 3000);
    const { outcomes, growth, mib } = await server.measured(t, [
      { bytes: pdf, name: 'blank.pdf' },
      { bytes: pdf, name: 'blank.pdf' },
    ]);
    for (const o of outcomes) assertError(o, /no text to translate \(text recognition found none either\)/u);
    assert.ok(growth < TWO_JOBS_BOUND, `peak RSS grew by ${mib} MiB`);
  });

  it(`100 blank pages of ${PDF_MAX_PAGE_PT} pt (the largest PDF allows): none drawn, under 1 GiB`, async (t) => {
    const { outcomes, growth, mib } = await server.measured(t, [{ bytes: blankPagesPdf(100, PDF_MAX_PAGE_PT), name: 'huge.pdf' }]);
    assertError(outcomes[0]!, /Pages 1, 2, 3, .* and 80 more without a usable text layer are too large for text recognition/su);
    assert.ok(growth < ONE_JOB_BOUND, `peak RSS grew by ${mib} MiB`);
  });

  it('images inside a PDF: 400 MB of Flate pixels, a JPEG (and an inline one) whose header claims 20000 × 20000; under 1 GiB', async (t) => {
    for (const [pdf, name] of [
      [await imageBombPdf(20_000), 'flate.pdf'],
      [lyingJpegPdf(20_000), 'jpeg.pdf'],
      [lyingInlineJpegPdf(20_000), 'inline-jpeg.pdf'],
    ] as const) {
      const { outcomes, growth, mib } = await server.measured(t, [{ bytes: pdf, name }]);
      assertError(outcomes[0]!, /no text to translate/u);
      assert.ok(growth < ONE_JOB_BOUND, `${name}: peak RSS grew by ${mib} MiB`);
    }
  });

  it('PNG and JPEG decompression bombs are refused from their headers, under 1 GiB', async (t) => {
    const png = await pngBomb(30_000, 30_000);
    assert.ok(png.length < 2 * MIB, `${png.length} bytes`);
    for (const [bytes, name, size] of [
      [png, 'bomb.png', '30000×30000'],
      [jpegBomb(50_000, 50_000), 'bomb.jpg', '50000×50000'],
    ] as const) {
      const { outcomes, growth, mib } = await server.measured(t, [{ bytes, name }]);
      assertError(outcomes[0]!, new RegExp(`The image is too large: ${size} pixels; at most 25 megapixels`, 'u'));
      assert.ok(growth < ONE_JOB_BOUND, `${name}: peak RSS grew by ${mib} MiB`);
    }
  });

  it('a TIFF bomb is refused as a format, and as a PNG by name: never decoded, under 1 GiB', async (t) => {
    const tiff = tiffBomb(100_000, 100_000);
    const asTiff = await server.measured(t, [{ bytes: tiff, name: 'bomb.tiff' }]);
    const refused = asTiff.outcomes[0]!;
    // the API's answer for a file type it does not translate (api-details.md)
    assert.deepEqual(refused, { upload: 400, message: 'Invalid file data.' });
    const asPng = await server.measured(t, [{ bytes: tiff, name: 'bomb.png' }]);
    assertError(asPng.outcomes[0]!, /not a PNG or JPEG image/u);
    for (const m of [asTiff, asPng]) assert.ok(m.growth < ONE_JOB_BOUND, `peak RSS grew by ${m.mib} MiB`);
  });
});

describe("a document over the format thread's heap limit, on a real server", () => {
  let server: Server;
  before(async () => {
    server = await Server.start({ TOLK_DOCUMENT_MEMORY_MB: '64' }, 1);
  });
  after(() => server?.close());

  it('ends that job with a clear error; the next document is translated', async (t) => {
    // 9 MB of JSON strings: well under the upload limit, several times a 64 MB heap once parsed into segments
    const entries = Array.from({ length: 320_000 }, (_, k) => `"k${k}":"Word ${k} here."`);
    const json = Buffer.from(`{${entries.join(',')}}`);
    const { outcomes, growth, mib } = await server.measured(t, [{ bytes: json, name: 'big.json' }]);
    assertError(outcomes[0]!, /needs more memory than this server allows for one document \(64 MB\)/u);
    assert.ok(growth < ONE_JOB_BOUND, `peak RSS grew by ${mib} MiB`);
    const next = await server.translate(server.keys[0]!, Buffer.from('Hello world.\n'), 'small.txt');
    assert.deepEqual(next, { status: 'done', message: '' });
  });
});
