// Every download has a byte budget enforced while it streams: a model index that never ends, and language or speech
// model files whose server declares more than such a file can be, end in a clear error with nothing installed and the
// installing process's memory flat; a declared size larger than the disk's free space is refused before the first byte.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, stat, statfs } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { readModelIndex } from '../../src/models/model-index.js';
import { installLlmModel, MAX_LLM_FILE_BYTES } from '../../src/models/llm-models.js';
import { installSpeechModel } from '../../src/models/speech-models.js';
import { growthMib, sampleMemory } from '../helpers/peak-memory.js';

let server: Server;
let base: string;
let work: string;
const open = new Set<ServerResponse>();
/** Bytes the endless index route has sent. */
let indexBytesSent = 0;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'tolk-download-budgets-'));
  server = createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const url = req.url ?? '';
    if (url.startsWith('/endless/')) {
      // `{"data":[` and then records for ever, as fast as the client reads.
      res.writeHead(200, { 'content-type': 'application/json' });
      const record = Buffer.from(`{"name":"x","fileType":"model","sourceLanguage":"en","targetLanguage":"de","version":"1.0"},`.repeat(512));
      res.write('{"data":[');
      const more = () => {
        while (!res.destroyed && res.write(record)) indexBytesSent += record.length;
        if (!res.destroyed) res.once('drain', more);
      };
      more();
      return;
    }
    // A file whose server declares a size, then sends a little and waits.
    const declared = /\/declares-(\d+)\//.exec(url)?.[1];
    if (declared) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': declared });
      res.write(Buffer.alloc(1024));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const res of open) res.destroy();
  await new Promise((r) => server.close(r));
  await rm(work, { recursive: true, force: true });
});

it('a model index that never ends is stopped at its budget, without buffering it', async () => {
  const memory = sampleMemory();
  await assert.rejects(readModelIndex(`${base}/endless/v1/buckets/main/collections/translations-models-v2/records`), /the model index at http:\S+ is larger than 67108864 bytes; stopped there/);
  memory.stop();
  assert.ok(indexBytesSent < 80 * 1024 * 1024, `the server was read past the budget: ${indexBytesSent} bytes sent`);
  // The 64 MiB read is held once (a JSON string of it would double that); far from the gigabytes an unbounded read reaches.
  assert.ok(growthMib(memory) < 200, `resident memory grew by ${growthMib(memory)} MiB`);
});

it('a language model whose server declares more than a model file can be is refused before the first byte', async () => {
  const modelsDir = join(work, 'llm');
  const size = MAX_LLM_FILE_BYTES + 1;
  await assert.rejects(
    installLlmModel('huge', { modelsDir, from: `${base}/declares-${size}/huge.gguf#sha256=${'0'.repeat(64)}` }),
    new RegExp(`cannot download .*huge\\.gguf.*: the server declares ${size} bytes, more than the ${MAX_LLM_FILE_BYTES} such a file may be; nothing was installed`),
  );
  assert.deepEqual((await readdir(join(modelsDir, 'llm')).catch(() => [])).filter((f) => !f.startsWith('.')), []);
});

it('a language model larger than the free disk is refused before the first byte', async (t) => {
  // On a small disk the refusal is reachable without writing anything: /dev/shm (half the memory) where there is one.
  const small = await stat('/dev/shm').then((s) => s.isDirectory(), () => false);
  const modelsDir = small ? await mkdtemp('/dev/shm/tolk-download-budgets-') : join(work, 'llm-disk');
  t.after(() => rm(modelsDir, { recursive: true, force: true }));
  await mkdir(join(modelsDir, 'llm'), { recursive: true });
  const disk = await statfs(join(modelsDir, 'llm'));
  const size = disk.bavail * disk.bsize + 1024 ** 3;
  if (size > MAX_LLM_FILE_BYTES) return t.skip(`this disk has more free space than a GGUF file may be (${size} bytes)`);
  await assert.rejects(
    installLlmModel('large', { modelsDir, from: `${base}/declares-${size}/large.gguf#sha256=${'0'.repeat(64)}` }),
    new RegExp(`cannot download .*large\\.gguf.*: it is ${size} bytes and \\S+ has \\d+ bytes to spare; nothing was installed`),
  );
  assert.deepEqual((await readdir(join(modelsDir, 'llm'))).filter((f) => !f.startsWith('.')), []);
});

it('a speech model whose server declares more than whisper.cpp\'s largest file is refused before the first byte', async () => {
  const modelsDir = join(work, 'speech-huge');
  const size = 5 * 1024 ** 3;
  await assert.rejects(
    installSpeechModel('tiny', { modelsDir, baseUrl: `${base}/declares-${size}/`, models: { tiny: '0'.repeat(40) } }),
    new RegExp(`ggml-tiny\\.bin from \\S+: the server declares ${size} bytes, more than the 4294967296 such a file may be; nothing was installed`),
  );
  assert.deepEqual(await readdir(join(modelsDir, 'whisper')), []);
});
