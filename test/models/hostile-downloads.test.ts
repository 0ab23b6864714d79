// `tolk models install` against a hostile or broken model index, made at test time: the real records of
// translations-models-v2 (../shared/data/firefox-models) with en-de's changed into file names that leave the models
// folder, sizes no model has, zstd bombs (the zstd command's own, and frames built byte by byte in the shapes that
// expand most), and downloads that stall until the install is killed. Each ends in a clear error, nothing lands
// outside the models folder, the installing process's resident memory stays within a stated bound, and what a killed
// install left is gone after the next install and after the server starts.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { installModel } from '../../src/models/install.js';
import { partialPath, removeInstallLeftovers, FOREIGN_LEFTOVER_MS } from '../../src/models/model-paths.js';
import { freePort } from '../helpers/harness.js';
import { growthMib, MIB, sampleMemory } from '../helpers/peak-memory.js';
import { CLI, startServe } from '../helpers/serve-process.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface RealRecord {
  name: string;
  fileType: string;
  sourceLanguage: string;
  targetLanguage: string;
  decompressedHash: string;
  decompressedSize: number | string;
  attachment: { hash: string; size: number | string; filename: string; location: string; mimetype: string };
}

/** What the index says of one en-de file and what its URL serves. */
interface Served {
  /** The body served (zstd). */
  body: Buffer;
  name?: string;
  /** What the record declares; by default the truth. */
  size?: number | string;
  decompressedSize?: number | string;
  decompressedHash?: string;
  /** The connection sends half the body, then hangs (until the test ends). */
  stall?: boolean;
}

let server: Server;
let indexUrl: string;
let work: string;
let realRecords: RealRecord[];
/** The en-de files of the index served now, by file type (the others get a valid small file). */
let enDe: Record<string, Served> = {};
let decent: Served;
const hanging = new Set<ServerResponse>();

function zstd(data: Buffer, ...args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile('zstd', ['-q', '-c', ...args], { encoding: 'buffer', maxBuffer: 1 << 28 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    child.stdin!.end(data);
  });
}

/** A zstd frame built byte by byte: a header asking for a window of 2^windowLog bytes, then RLE blocks of `blockBytes` each. */
function rleFrame(windowLog: number, blockBytes: number, blocks: number): Buffer {
  const header = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (windowLog - 10) << 3]);
  const block = (last: boolean) => {
    const word = (blockBytes << 3) | (1 << 1) | (last ? 1 : 0);
    return Buffer.from([word & 0xff, (word >> 8) & 0xff, (word >> 16) & 0xff, 0]);
  };
  return Buffer.concat([header, ...Array.from({ length: blocks }, (_, i) => block(i === blocks - 1))]);
}

function indexRecords(): RealRecord[] {
  return realRecords.map((r) => {
    const served = r.sourceLanguage === 'en' && r.targetLanguage.split('-')[0] === 'de' ? (enDe[r.fileType] ?? decent) : undefined;
    if (!served) return r;
    const location = `attachments/en-de/${r.fileType}.zst`;
    return {
      ...r,
      name: served.name ?? r.name,
      decompressedSize: served.decompressedSize ?? r.decompressedSize,
      decompressedHash: served.decompressedHash ?? r.decompressedHash,
      attachment: { ...r.attachment, hash: sha256(served.body), size: served.size ?? served.body.length, location },
    };
  });
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'tolk-hostile-downloads-'));
  realRecords = (JSON.parse(await readFile(join(process.cwd(), '../shared/data/firefox-models/records-v2.json'), 'utf8')) as { data: RealRecord[] }).data;
  const plain = randomBytes(1 << 20);
  decent = { body: await zstd(plain), decompressedSize: plain.length, decompressedHash: sha256(plain) };
  server = createServer((req, res) => {
    const url = req.url ?? '/';
    const port = (server.address() as AddressInfo).port;
    if (url === '/v1/') return res.end(JSON.stringify({ capabilities: { attachments: { base_url: `http://127.0.0.1:${port}/` } } }));
    if (url === '/v1/buckets/main/collections/translations-models-v2/records') return res.end(JSON.stringify({ data: indexRecords() }));
    const fileType = /^\/attachments\/en-de\/(\w+)\.zst$/.exec(url)?.[1];
    const served = fileType ? (enDe[fileType] ?? decent) : undefined;
    if (!served) return res.writeHead(404).end();
    res.writeHead(200, { 'content-length': served.body.length });
    if (!served.stall) return res.end(served.body);
    hanging.add(res);
    res.write(served.body.subarray(0, served.body.length >> 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  indexUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/buckets/main/collections/translations-models-v2/records`;
});

after(async () => {
  for (const res of hanging) res.destroy();
  server.close();
  await rm(work, { recursive: true, force: true });
});

/** Every file and folder under `root`, relative to it. */
async function tree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true });
  return entries.map((e) => relative(root, join(root, e))).sort();
}

/** A models folder three levels down a fresh folder: what an escape writes lands in one of its parents. */
async function nestedModelsDir(name: string): Promise<{ root: string; modelsDir: string }> {
  const root = join(work, name);
  const modelsDir = join(root, 'data', 'tolk', 'models');
  await mkdir(modelsDir, { recursive: true });
  return { root, modelsDir };
}

/** A ustar archive of `entries` (names as given, unchecked, as a hostile archive holds them). */
function tarOf(entries: [string, Buffer][]): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, data] of entries) {
    const header = Buffer.alloc(512);
    header.write(name, 0, 100, 'utf8');
    header.write('0000644\0', 100);
    header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write('0', 156);
    header.write('ustar\0' + '00', 257, 'latin1');
    header.fill(' ', 148, 156);
    header.write(`${header.reduce((sum, b) => sum + b, 0).toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  return Buffer.concat([...blocks, Buffer.alloc(1024)]);
}

describe('a hostile model index', () => {
  it('refuses record names that are not plain file names of a model, before fetching anything, writing nothing anywhere', async () => {
    const cases: [string, RegExp][] = [
      ['../../evil-v2.bin', /it holds a path separator/],
      ['/etc/x', /it holds a path separator/],
      ['a/b', /it holds a path separator/],
      ['..\\..\\evil.bin', /it holds a path separator/],
      ['..', /it is or holds '\.\.' or '\.'/],
      ['model..bin', /it is or holds '\.\.'/],
      ['model.en\0de.bin', /it holds a NUL byte/],
      [`model.${'x'.repeat(300)}.bin`, /it is 310 bytes long, more than 128/],
      ['model.en\u202ede.bin', /characters other than letters, digits/],
      ['evil.sh', /it is not a model, shortlist or vocabulary file name/],
    ];
    for (const [name, reason] of cases) {
      const { root, modelsDir } = await nestedModelsDir(`names-${cases.findIndex((c) => c[0] === name)}`);
      enDe = { model: { ...decent, name } };
      const quoted = JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
      await assert.rejects(installModel('en-de', { modelsDir, indexUrl }), (err: Error) => {
        assert.match(err.message, /^the model index at http:\/\/\S+: refusing the file name /, name);
        assert.ok(err.message.includes(`refusing the file name ${quoted} (`), err.message);
        assert.match(err.message, reason, name);
        return true;
      });
      assert.deepEqual(await tree(root), ['data', 'data/tolk', 'data/tolk/models'], `after ${JSON.stringify(name)}`);
    }
  });

  it('refuses language codes that would name a folder outside the models folder', async () => {
    const { root, modelsDir } = await nestedModelsDir('codes');
    enDe = {};
    const records = realRecords;
    realRecords = records.map((r) => (r.sourceLanguage === 'en' && r.targetLanguage === 'de' ? { ...r, targetLanguage: 'de-/../../../evil' } : r));
    try {
      await assert.rejects(installModel('en-de', { modelsDir, indexUrl }), /refusing the file name "en-de-\/\.\.\/\.\.\/\.\.\/evil" \(it holds a path separator\)/);
    } finally {
      realRecords = records;
    }
    assert.deepEqual(await tree(root), ['data', 'data/tolk', 'data/tolk/models']);
  });

  it('refuses model archives whose entries leave the folder they are unpacked in', async () => {
    const cases: [string, RegExp][] = [
      ['enes/../../../evil.bin', /refusing the file name "\.\." \(it is or holds/],
      ['/tmp/evil.bin', /: refusing it \(it is an absolute path\)/],
      ['enes/model\u202eevil.bin', /characters other than letters, digits/],
    ];
    for (const [i, [name, reason]] of cases.entries()) {
      const { root, modelsDir } = await nestedModelsDir(`archive-${i}`);
      const archive = join(work, `hostile-${i}.tar`);
      await writeFile(archive, tarOf([['enes/vocab.esen.spm', Buffer.from('vocabulary')], [name, randomBytes(1024)]]));
      await assert.rejects(installModel(archive, { modelsDir }), (err: Error) => {
        assert.ok(err.message.startsWith(`${archive}, entry ${JSON.stringify(name)}: `), err.message);
        assert.match(err.message, reason);
        return true;
      });
      assert.deepEqual(await tree(root), ['data', 'data/tolk', 'data/tolk/models'], name);
    }
  });

  it('refuses sizes no model file has, and a body longer than the index says, before writing it', async () => {
    const { root, modelsDir } = await nestedModelsDir('sizes');
    const cases: [Served, RegExp][] = [
      [{ ...decent, decompressedSize: 5e12 }, /vocab\.ende\.spm: the index gives its decompressed size as 5000000000000 bytes, more than the 1073741824 a model file may be; nothing was installed/],
      [{ ...decent, size: 2 ** 40 }, /vocab\.ende\.spm: the index gives its size as 1099511627776 bytes, more than the 1073741824/],
      [{ ...decent, size: 'lots' }, /vocab\.ende\.spm: the index gives its size as something else than a number, not a number of bytes/],
      [{ ...decent, decompressedSize: -1 }, /the index gives its decompressed size as -1, not a number of bytes/],
      [{ ...decent, size: 1000 }, /vocab\.ende\.spm from http:\S+ is longer than the 1000 bytes expected; stopped there, nothing was installed/],
    ];
    for (const [served, message] of cases) {
      enDe = { vocab: served };
      await assert.rejects(installModel('en-de', { modelsDir, indexUrl }), message);
      assert.deepEqual(await tree(root), ['data', 'data/tolk', 'data/tolk/models']);
    }
  });

  it("stops a zstd bomb (2 GiB of zeros, zstd's own RLE blocks, declared as 1000 bytes) at the declared size: `tolk models install` stays under 512 MiB", async (t) => {
    const { root, modelsDir } = await nestedModelsDir('bomb-cli');
    const bomb = (await run('sh', ['-c', 'head -c 2G /dev/zero | zstd -q -c -1'], { encoding: 'buffer', maxBuffer: 1 << 24 })).stdout;
    assert.ok(bomb.length < 128 * 1024, `the bomb is ${bomb.length} bytes`);
    enDe = { vocab: { body: bomb, decompressedSize: 1000 } };
    const env = { ...process.env, TOLK_MODELS_DIR: modelsDir, TOLK_DATA_DIR: join(root, 'data'), TOLK_MODELS_INDEX_URL: indexUrl };
    const child = spawn(process.execPath, [CLI, 'models', 'install', 'en-de'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const memory = sampleMemory(child.pid!, 10);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const peak = memory.stop();
    assert.equal(code, 1, stderr);
    assert.match(stderr, /vocab\.ende\.spm from http:\S+ decompresses to more than the 1000 bytes the index says; stopped there, nothing was installed/);
    t.diagnostic(`tolk models install: peak RSS ${Math.round(peak / MIB)} MiB`);
    assert.ok(peak < 512 * MIB, `tolk models install peaked at ${Math.round(peak / MIB)} MiB`);
    assert.deepEqual(await tree(root), ['data', 'data/tolk', 'data/tolk/models']);
  });

  it('refuses zstd frames built to expand most (2 MiB RLE blocks, a 1 GiB window) and bounds a legal one-chunk expansion, this process growing < 256 MiB', async (t) => {
    const { root, modelsDir } = await nestedModelsDir('bomb-frames');
    const cases: [Served, RegExp][] = [
      // fzstd would make 2 MiB of each 4-byte block, 512 MiB from these 1 KiB; zstd allows 128 KiB.
      [{ body: rleFrame(21, (1 << 21) - 1, 256), decompressedSize: 1 << 29 }, /is corrupted: a zstd block of 2097151 bytes, more than zstd's 131072/],
      // fzstd would copy the whole 1 GiB window for every block.
      [{ body: rleFrame(30, 1 << 17, 64), decompressedSize: 1 << 23 }, /a zstd frame asks for a 1073741824-byte window, more than the 134217728 zstd itself allows/],
      // Legal: 512 MiB of RLE blocks in 16 KiB, the size the index says; written as fast as the disk takes it, then refused by hash.
      [{ body: rleFrame(21, 1 << 17, 4096), decompressedSize: 1 << 29, decompressedHash: '0'.repeat(64) }, /is corrupted: its decompressed SHA-256 is [0-9a-f]{64}, the index says 0{64}/],
    ];
    for (const [served, message] of cases) {
      enDe = { vocab: served };
      const memory = sampleMemory(process.pid, 10);
      await assert.rejects(installModel('en-de', { modelsDir, indexUrl }), message);
      memory.stop();
      t.diagnostic(`${message.source.slice(0, 40)}: grew ${growthMib(memory)} MiB`);
      assert.ok(growthMib(memory) < 256, `${message}: this process grew by ${growthMib(memory)} MiB`);
      assert.deepEqual(await tree(root), ['data', 'data/tolk', 'data/tolk/models']);
    }
  });
});

/** Starts `tolk models install WHAT`; resolves once it has begun writing under the models folder (`writing`), with a kill (SIGKILL). */
async function startedInstall(modelsDir: string, what: string[], writing: () => Promise<boolean>): Promise<() => Promise<unknown>> {
  const env = { ...process.env, TOLK_MODELS_DIR: modelsDir, TOLK_DATA_DIR: work, TOLK_MODELS_INDEX_URL: indexUrl };
  const child = spawn(process.execPath, [CLI, 'models', 'install', ...what], { env, stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const kill = () => {
    child.kill('SIGKILL');
    return exited;
  };
  try {
    await waitFor(`tolk models install ${what.join(' ')} to write a partial file`, writing);
  } catch (err) {
    await kill();
    throw err;
  }
  return kill;
}

const hidden = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith('.'));

/**
 * Kills an install from the index and one of a language model half way through their downloads (both running at
 * once: each removes what dead installs left when it starts); returns what they left.
 */
async function leaveLeftovers(modelsDir: string): Promise<string[]> {
  enDe = { vocab: { ...decent, stall: true } };
  const gguf = `http://127.0.0.1:${(server.address() as AddressInfo).port}/attachments/en-de/vocab.zst#sha256=${'0'.repeat(64)}`;
  const kills = await Promise.all([
    startedInstall(modelsDir, ['en-de'], async () => {
      for (const staging of await hidden(modelsDir)) if ((await readdir(join(modelsDir, staging)).catch(() => [])).length > 0) return true;
      return false;
    }),
    startedInstall(modelsDir, ['llm-tiny', '--from', gguf], async () => (await hidden(join(modelsDir, 'llm'))).length > 0),
  ]);
  await Promise.all(kills.map((kill) => kill()));
  const left = [...(await hidden(modelsDir)).map((n) => join(modelsDir, n)), ...(await hidden(join(modelsDir, 'llm'))).map((n) => join(modelsDir, 'llm', n))];
  assert.ok(left.length === 2 && left.some((p) => p.endsWith('.tiny.gguf')) && left.some((p) => /\.install-\w+$/.test(p)), `a staging folder and a partial download: ${left.join(', ')}`);
  return left;
}

describe('what a killed install leaves', () => {
  it('is removed when the next install starts', async () => {
    const modelsDir = join(work, 'killed-then-install');
    await leaveLeftovers(modelsDir);
    enDe = {};
    await assert.rejects(installModel('xx-yy', { modelsDir, indexUrl }), /no xx-yy model/);
    assert.deepEqual([...(await hidden(modelsDir)), ...(await hidden(join(modelsDir, 'llm')))], []);
  });

  it('is removed when the server starts', async () => {
    const modelsDir = join(work, 'killed-then-serve');
    await leaveLeftovers(modelsDir);
    const env = { ...process.env, TOLK_DATA_DIR: join(work, 'serve-data'), TOLK_MODELS_DIR: modelsDir, TOLK_PORT: String(await freePort()), TOLK_FREE_PORT: String(await freePort()), TOLK_APERTIUM_PAIRS: 'en-es' };
    const served = await startServe(env);
    try {
      assert.deepEqual([...(await hidden(modelsDir)), ...(await hidden(join(modelsDir, 'llm')))], []);
      assert.match(served.logs(), /removed what interrupted model installs left/);
    } finally {
      assert.equal(await served.stop('SIGTERM'), 0);
    }
  });

  it('keeps what an install still running writes, and what another host or an older release left until it is old', async () => {
    const modelsDir = join(work, 'leftover-owners');
    await mkdir(join(modelsDir, 'llm'), { recursive: true });
    const exited = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => exited.once('exit', resolve));
    const mine = partialPath(modelsDir, 'install-mine');
    const dead = mine.replace(`.${process.pid}.install-mine`, `.${exited.pid}.install-dead`);
    const alive = mine.replace(`.${process.pid}.install-mine`, `.${process.ppid}.install-parent`);
    const paths = {
      mine,
      dead,
      alive,
      otherHostFresh: join(modelsDir, '.partial.elsewhere.1.install-x'),
      otherHostOld: join(modelsDir, '.partial.elsewhere.2.install-y'),
      legacyFresh: join(modelsDir, '.install-AbC123'),
      legacyOld: join(modelsDir, '.install-XyZ789'),
      legacyPartOld: join(modelsDir, 'llm', '.qwen.gguf.4242.part'),
      hashesOld: join(modelsDir, 'llm', '.qwen.sha256.json'),
    };
    for (const path of Object.values(paths)) await writeFile(path, 'x');
    const old = (Date.now() - FOREIGN_LEFTOVER_MS - 60_000) / 1000;
    for (const path of [paths.otherHostOld, paths.legacyOld, paths.legacyPartOld, paths.hashesOld]) await utimes(path, old, old);
    const removed = await removeInstallLeftovers(modelsDir);
    assert.deepEqual(removed.sort(), [paths.dead, paths.legacyOld, paths.otherHostOld, paths.legacyPartOld].sort());
    for (const path of [paths.mine, paths.alive, paths.otherHostFresh, paths.legacyFresh, paths.hashesOld]) assert.ok(await stat(path), path);
  });
});
