// `tolk models install` against a local server speaking the public index's format (Remote Settings records and
// attachments): hashes verified, a corrupted file and an interrupted download refused, nothing left half-installed.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { installModel, removeModel, verifyModels } from '../../src/models/install.js';
import { makeModel } from '../helpers/bergamot-models.js';

const run = promisify(execFile);
let server: Server;
let indexUrl: string;
let work: string;
let source: string;
const files = new Map<string, Buffer>();

interface Rec {
  pair: string;
  version: string;
  fileType: string;
  name: string;
  data: Buffer;
  corrupt?: boolean;
  cut?: boolean;
}

function record(r: Rec, i: number) {
  const [fromLang, toLang] = r.pair.split('-');
  const location = `main-workspace/translations-models/${i}-${r.name}`;
  files.set(`/attachments/${location}`, r.corrupt ? Buffer.concat([r.data.subarray(0, 100), Buffer.from('x'), r.data.subarray(101)]) : r.data);
  return {
    id: `rec-${i}`,
    name: r.name,
    fromLang,
    toLang,
    version: r.version,
    fileType: r.fileType,
    attachment: { hash: createHash('sha256').update(r.data).digest('hex'), size: r.data.length, filename: r.name, location, mimetype: 'application/octet-stream' },
  };
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'tolk-install-'));
  source = await makeModel(join(work, 'src', 'en-es'), 'en-es');
  const read = (name: string) => readFile(join(source, name));
  const model = await read('model.enes.intgemm.alphas.bin');
  const lex = await read('lex.50.50.enes.s2t.bin');
  const vocab = await read('vocab.esen.spm');
  const set = (pair: string, version: string, extra: Partial<Rec> = {}): Rec[] => [
    { pair, version, fileType: 'model', name: 'model.enes.intgemm.alphas.bin', data: model, ...extra },
    { pair, version, fileType: 'lex', name: 'lex.50.50.enes.s2t.bin', data: lex },
    { pair, version, fileType: 'vocab', name: 'vocab.esen.spm', data: vocab },
  ];
  const records = [
    ...set('en-es', '1.0'),
    ...set('en-es', '1.1'),
    ...set('en-es', '2.0a1'),
    ...set('en-de', '1.0', { corrupt: true }),
    ...set('en-fr', '1.0', { cut: true }),
  ];
  const cut = new Set<string>();
  const body = JSON.stringify({ data: records.map((r, i) => { if (r.cut) cut.add(`/attachments/main-workspace/translations-models/${i}-${r.name}`); return record(r, i); }) });
  server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/v1/') return res.end(JSON.stringify({ capabilities: { attachments: { base_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/attachments/` } } }));
    if (url === '/v1/buckets/main/collections/translations-models/records') return res.end(body);
    const data = files.get(url);
    if (!data) return res.writeHead(404).end();
    res.writeHead(200, { 'content-length': data.length });
    if (cut.has(url)) {
      // The connection drops half way through.
      res.write(data.subarray(0, data.length >> 1), () => res.destroy());
      return;
    }
    res.end(data);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  indexUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/buckets/main/collections/translations-models/records`;
});
after(async () => {
  server.close();
  await rm(work, { recursive: true, force: true });
});

describe('tolk models install', () => {
  it('installs the newest release of a direction from the index, verifying every hash', async () => {
    const modelsDir = join(work, 'm1');
    const seen = new Set<string>();
    const info = await installModel('en-es', { modelsDir, indexUrl, progress: (file) => seen.add(file) });
    assert.equal(`${info.source}-${info.target}`, 'en-es');
    assert.equal(info.version, '1.1');
    assert.deepEqual([...seen].sort(), ['lex.50.50.enes.s2t.bin', 'model.enes.intgemm.alphas.bin', 'vocab.esen.spm']);
    assert.deepEqual(await readdir(modelsDir), ['en-es']);
    assert.deepEqual((await verifyModels(modelsDir)).map((r) => r.ok), [true]);
    // A file damaged after install is found by verify.
    await writeFile(join(modelsDir, 'en-es', 'vocab.esen.spm'), 'garbage');
    const [bad] = await verifyModels(modelsDir);
    assert.equal(bad!.ok, false);
    assert.match(bad!.problems.join('\n'), /vocab\.esen\.spm/);
    assert.match(await removeModel(modelsDir, 'en-es'), /en-es/);
    assert.deepEqual(await readdir(modelsDir), []);
  });

  it('refuses a corrupted file and leaves nothing behind', async () => {
    const modelsDir = join(work, 'm2');
    await assert.rejects(installModel('en-de', { modelsDir, indexUrl }), /model\.enes\.intgemm\.alphas\.bin .* is corrupted: its SHA-256 is [0-9a-f]{64}, the index says/);
    assert.deepEqual(await readdir(modelsDir), []);
  });

  it('reports an interrupted download and leaves nothing behind', async () => {
    const modelsDir = join(work, 'm3');
    await assert.rejects(installModel('en-fr', { modelsDir, indexUrl }), /download of model\.enes\.intgemm\.alphas\.bin .* was interrupted after \d+ of \d+ bytes/);
    assert.deepEqual(await readdir(modelsDir), []);
  });

  it('says which pairs exist when the index lacks one, and when the index cannot be reached', async () => {
    await assert.rejects(installModel('ja-en', { modelsDir: join(work, 'm4'), indexUrl }), /no ja-en model \(it has: en-de, en-es, en-fr\)/);
    await assert.rejects(installModel('en-es', { modelsDir: join(work, 'm4'), indexUrl: 'http://127.0.0.1:9/v1/buckets/main/collections/translations-models/records' }), /cannot reach the model index/);
  });

  it('installs an archive from a URL, its files gzipped as in Mozilla’s repository', async () => {
    const modelsDir = join(work, 'm6');
    const packed = join(work, 'packed', 'enes');
    await run('mkdir', ['-p', packed]);
    await run('cp', [...['model.enes.intgemm.alphas.bin', 'lex.50.50.enes.s2t.bin', 'vocab.esen.spm'].map((n) => join(source, n)), packed]);
    await run('gzip', [join(packed, 'model.enes.intgemm.alphas.bin'), join(packed, 'lex.50.50.enes.s2t.bin')]);
    await run('tar', ['-czf', join(work, 'enes.tgz'), '-C', join(work, 'packed'), 'enes']);
    files.set('/archives/enes.tgz', await readFile(join(work, 'enes.tgz')));
    const base = indexUrl.slice(0, indexUrl.indexOf('/v1/'));
    const info = await installModel(`${base}/archives/enes.tgz`, { modelsDir });
    assert.equal(`${info.source}-${info.target}`, 'en-es');
    assert.ok(info.files.model.endsWith('.bin.gz'));
    await assert.rejects(installModel(`${base}/archives/missing.tgz`, { modelsDir }), /HTTP 404/);
  });

  it('installs from a directory and from a .tar.gz through the CLI', async () => {
    const modelsDir = join(work, 'm5');
    const env = { ...process.env, TOLK_MODELS_DIR: modelsDir, TOLK_DATA_DIR: work };
    const cli = join(process.cwd(), 'dist/src/cli.js');
    const fromDir = await run(process.execPath, [cli, 'models', 'install', source], { env });
    assert.match(fromDir.stdout, /installed en-es in .*en-es/);
    await run('tar', ['-czf', join(work, 'ende.tar.gz'), '-C', join(work, 'src'), 'en-es'], {});
    await run(process.execPath, [cli, 'models', 'remove', 'en-es'], { env });
    const fromTar = await run(process.execPath, [cli, 'models', 'install', join(work, 'ende.tar.gz')], { env });
    assert.match(fromTar.stdout, /installed en-es/);
    const list = JSON.parse((await run(process.execPath, [cli, 'models', 'list', '--json'], { env })).stdout);
    assert.deepEqual(list.models.map((m: { pair: string }) => m.pair), ['en-es']);
    const bad = await run(process.execPath, [cli, 'models', 'install', join(work, 'nothing-here')], { env }).catch((e: { code: number; stderr: string }) => e);
    assert.equal((bad as { code: number }).code, 1);
    assert.match((bad as { stderr: string }).stderr, /neither a directory, an archive, a URL nor a language pair/);
  });
});
