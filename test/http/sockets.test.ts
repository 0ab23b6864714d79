// Over real sockets: an upgrade request answered as plain HTTP closes its socket; a document download is charged and
// deleted only once the client has received it (a client that reads part and hangs up can retry, uncharged); a
// result file that is absent or damaged gives a clean answer and the server keeps serving.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDocumentsTestApp, type DocumentsTestApp } from '../helpers/documents.js';
import { HUNG_TEST_MS, waitFor } from '../helpers/wait.js';

let t: DocumentsTestApp;
let port: number;

before(async () => {
  // a proxy on this host is trusted; requests without X-Forwarded-For are still the client's own
  t = await createDocumentsTestApp({ TOLK_TRUST_PROXY: '127.0.0.1' });
  await t.ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.ctx.app.server.address() as AddressInfo).port;
});
after(async () => t.close());

/** Resolves when the server ends or closes the socket; rejects after `ms` (the socket leaked). */
function closedByServer(socket: Socket, ms = HUNG_TEST_MS): Promise<string> {
  let data = '';
  socket.on('data', (d: Buffer) => (data += d.toString('latin1')));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`socket still open after ${ms} ms; received: ${data.slice(0, 200)}`)), ms);
    const done = () => {
      clearTimeout(timer);
      resolve(data);
    };
    socket.once('end', done);
    socket.once('close', done);
    socket.once('error', done);
  });
}

describe('Connection: Upgrade on routes that do not upgrade', () => {
  for (const upgrade of ['h2c', 'websocket', 'foo']) {
    it(`answers and closes the socket (Upgrade: ${upgrade})`, async () => {
      const socket = connect(port, '127.0.0.1');
      const closed = closedByServer(socket);
      socket.write(
        `GET /v2/languages HTTP/1.1\r\nHost: ${t.account.host}\r\nAuthorization: Service-Auth-Key ${t.account.key}\r\n` +
          `Connection: Upgrade, HTTP2-Settings\r\nUpgrade: ${upgrade}\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n`,
      );
      const received = await closed;
      socket.destroy();
      assert.match(received, /^HTTP\/1\.1 200/);
      assert.match(received, /x-trace-id: /i);
    });
  }
});

/** The key's characters charged so far for documents. */
async function documentCharacters(): Promise<number> {
  const ctx = (await t.ctx.services.accounts.authenticate(t.account.key))!;
  const summary = await t.ctx.services.usage.summary(ctx);
  return summary.products.find((p) => p.product === 'document_translation')?.key ?? 0;
}

/** A JSON document with one sentence to translate and about 3.5 MB of numbers: a large result made quickly. */
async function largeDocument(): Promise<{ id: string; key: string; billed: number }> {
  const numbers = Array.from({ length: 320_000 }, (_, i) => 1_000_000_000 + i);
  const content = JSON.stringify({ greeting: 'Hello world.', numbers });
  const res = await t.client.upload([{ name: 'file', filename: 'big.json', content }, { name: 'target_lang', value: 'ES' }, { name: 'source_lang', value: 'EN' }]);
  assert.equal(res.statusCode, 200, res.body);
  const { document_id: id, document_key: key } = res.json();
  const done = await t.client.waitFor(id, key);
  assert.equal(done.status, 'done', JSON.stringify(done));
  return { id, key, billed: done.billed_characters };
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  await waitFor(what, check);
}

function downloadRequest(id: string, key: string, connection: string, forwardedFor?: string): string {
  const body = `document_key=${key}`;
  return (
    `POST /v2/document/${id}/result HTTP/1.1\r\nHost: ${t.account.host}\r\nAuthorization: Service-Auth-Key ${t.account.key}\r\n` +
    (forwardedFor ? `X-Forwarded-For: ${forwardedFor}\r\n` : '') +
    `Connection: ${connection}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`
  );
}

/** Sends the download over a raw socket, reads `bytes` of the answer and drops the connection. */
async function partialDownload(id: string, key: string, bytes: number, connection = 'keep-alive', forwardedFor?: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  let received = Buffer.alloc(0);
  await new Promise<void>((resolve, reject) => {
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      if (received.length >= bytes) {
        socket.pause();
        resolve();
      }
    });
    socket.once('error', reject);
    socket.write(downloadRequest(id, key, connection, forwardedFor));
  });
  socket.resetAndDestroy();
  return received.subarray(0, 200).toString('latin1');
}

/** A full download with a keep-alive agent of one socket; returns the body and the agent (its socket still open). */
function fullDownload(agent: Agent, id: string, key: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        agent, host: '127.0.0.1', port, method: 'POST', path: `/v2/document/${id}/result`,
        headers: { host: t.account.host, authorization: `Service-Auth-Key ${t.account.key}`, 'content-type': 'application/x-www-form-urlencoded' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(`document_key=${key}`);
  });
}

function get(agent: Agent, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ agent, host: '127.0.0.1', port, path, headers: { host: t.account.host, authorization: `Service-Auth-Key ${t.account.key}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('document download billed on receipt', () => {
  it('a client that reads 64 KB and drops the connection is not charged and can download again', async () => {
    const { id, key, billed } = await largeDocument();
    assert.ok(billed > 0);
    const before = await documentCharacters();
    for (const connection of ['keep-alive', 'close']) {
      const head = await partialDownload(id, key, 64 * 1024, connection);
      assert.match(head, /^HTTP\/1\.1 200/);
      await until('the download to be released', async () => (await t.ctx.services.documents.repository.get(id.toUpperCase()))?.status === 'done');
      assert.equal(await documentCharacters(), before, `nothing charged for a download the client did not receive (Connection: ${connection})`);
    }

    // the retry reads everything; its next request on the connection is the proof of receipt
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const full = await fullDownload(agent, id, key);
      assert.equal(full.status, 200);
      assert.ok(full.body.length > 3_000_000, `${full.body.length} bytes`);
      assert.doesNotThrow(() => JSON.parse(full.body.toString('utf8')));
      assert.equal(await get(agent, '/v2/usage'), 200);
      assert.equal(await documentCharacters(), before + billed);
      assert.equal(await t.ctx.services.documents.repository.get(id.toUpperCase()), undefined, 'deleted once received');
      assert.equal((await fullDownload(agent, id, key)).status, 404);
    } finally {
      agent.destroy();
    }
  });

  it('a client that reads everything and closes the connection is charged', async () => {
    const { id, key, billed } = await largeDocument();
    const before = await documentCharacters();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const full = await fullDownload(agent, id, key);
    assert.equal(full.status, 200);
    agent.destroy();
    // charged, then deleted
    await until('the charge', async () => (await t.ctx.services.documents.repository.get(id.toUpperCase())) === undefined);
    assert.equal(await documentCharacters(), before + billed);
  });
});

describe('document download through a trusted proxy', () => {
  // A proxy reads a response as it arrives and resets idle connections to the server (HAProxy does): a reset after
  // the last byte says nothing about the client, so the download counts as delivered; one before it does not.
  it('a proxy that read the whole response and resets its connection has the download charged', async () => {
    const { id, key, billed } = await largeDocument();
    const before = await documentCharacters();
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    await new Promise<void>((resolve, reject) => {
      socket.on('data', (d: Buffer) => {
        received = Buffer.concat([received, d]);
        const end = received.indexOf('\r\n\r\n');
        const length = Number(/content-length: (\d+)/i.exec(received.subarray(0, Math.max(0, end)).toString('latin1'))?.[1]);
        if (end >= 0 && received.length >= end + 4 + length) resolve();
      });
      socket.once('error', reject);
      socket.write(downloadRequest(id, key, 'keep-alive', '127.0.0.1'));
    });
    // all of it read, then the proxy's reset
    socket.resetAndDestroy();
    assert.match(received.subarray(0, 20).toString('latin1'), /^HTTP\/1\.1 200/);
    await until('the charge', async () => (await t.ctx.services.documents.repository.get(id.toUpperCase())) === undefined);
    assert.equal(await documentCharacters(), before + billed);
  });

  it('a proxy that resets before the last byte leaves the download uncharged', async () => {
    const { id, key } = await largeDocument();
    const before = await documentCharacters();
    const head = await partialDownload(id, key, 64 * 1024, 'keep-alive', '127.0.0.1');
    assert.match(head, /^HTTP\/1\.1 200/);
    await until('the download to be released', async () => (await t.ctx.services.documents.repository.get(id.toUpperCase()))?.status === 'done');
    assert.equal(await documentCharacters(), before);
  });
});

describe('downloads on one keep-alive connection', () => {
  it('each download settled by the next request leaves no listener behind on the socket', async () => {
    const upload = async () => {
      const res = await t.client.upload([{ name: 'file', filename: 'small.txt', content: 'Hello world.' }, { name: 'target_lang', value: 'ES' }, { name: 'source_lang', value: 'EN' }]);
      assert.equal(res.statusCode, 200, res.body);
      const { document_id: id, document_key: key } = res.json();
      assert.equal((await t.client.waitFor(id, key)).status, 'done');
      return { id, key };
    };
    const docs = [await upload(), await upload(), await upload()];
    const sockets: Socket[] = [];
    const onConnection = (s: Socket) => sockets.push(s);
    t.ctx.app.server.on('connection', onConnection);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const counts: number[] = [];
      for (const d of docs) {
        assert.equal((await fullDownload(agent, d.id, d.key)).status, 200);
        assert.equal(await get(agent, '/v2/usage'), 200);
        assert.equal(sockets.length, 1, 'one connection');
        counts.push(sockets[0]!.listenerCount('close'));
      }
      assert.equal(new Set(counts).size, 1, `close listeners per download: ${counts.join(', ')}`);
    } finally {
      agent.destroy();
      t.ctx.app.server.off('connection', onConnection);
    }
  });
});

describe('result files absent or damaged', () => {
  it('an absent result file answers 503, charges nothing, and the server keeps serving', async () => {
    const { id, key } = await largeDocument();
    const before = await documentCharacters();
    await t.ctx.services.documents.files.remove(id.toUpperCase(), ['result']);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const res = await fullDownload(agent, id, key);
      assert.equal(res.status, 503, res.body.toString());
      assert.match(res.body.toString(), /not available/);
      assert.equal(await get(agent, '/v2/languages'), 200);
      assert.equal(await documentCharacters(), before);
      assert.equal((await t.ctx.services.documents.repository.get(id.toUpperCase()))?.status, 'done', 'released for a later try');
    } finally {
      agent.destroy();
    }
  });

  it('a damaged result file ends the response, charges nothing, and the server keeps serving', async () => {
    const { id, key } = await largeDocument();
    const before = await documentCharacters();
    await t.ctx.services.documents.files.write(id.toUpperCase(), 'result', [Buffer.alloc(200_000, 7)]);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await fullDownload(agent, id, key).then(
        (res) => assert.ok(res.body.length < 200_000, 'the response cannot complete'),
        () => undefined, // the connection is cut mid-response
      );
      await until('the download to be released', async () => (await t.ctx.services.documents.repository.get(id.toUpperCase()))?.status === 'done');
      assert.equal(await documentCharacters(), before);
      assert.equal(await get(new Agent(), '/v2/languages'), 200);
    } finally {
      agent.destroy();
    }
  });
});
