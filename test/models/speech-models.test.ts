// `tolk models install whisper-NAME` against a local server standing in for whisper.cpp's Hugging Face repository:
// the SHA-1 whisper.cpp publishes is checked, a corrupted or interrupted download leaves nothing behind, and list,
// verify and remove see speech models beside translation models.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ModelInstallError } from '../../src/models/install.js';
import { installSpeechModel, listSpeechModels, removeSpeechModel, verifySpeechModels } from '../../src/models/speech-models.js';

const run = promisify(execFile);
const good = randomBytes(300_000);
const sha1 = (b: Buffer) => createHash('sha1').update(b).digest('hex');
let server: Server;
let baseUrl: string;
let work: string;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'tolk-speech-models-'));
  server = createServer((req, res) => {
    const data = req.url === '/repo/ggml-cut.bin' || req.url?.startsWith('/repo/ggml-') ? good : null;
    if (!data) return res.writeHead(404).end();
    res.writeHead(200, { 'content-length': data.length });
    // the connection drops half way through
    if (req.url === '/repo/ggml-cut.bin') return void res.write(data.subarray(0, data.length >> 1), () => res.destroy());
    res.end(data);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/repo/`;
});
after(async () => {
  server.close();
  await rm(work, { recursive: true, force: true });
});

describe('speech models (whisper.cpp ggml files)', () => {
  it('installs a model whose SHA-1 matches, into whisper/ggml-NAME.bin, with nothing else left in the directory', async () => {
    const modelsDir = join(work, 'm1');
    const m = await installSpeechModel('tiny.en', { modelsDir, baseUrl, models: { 'tiny.en': sha1(good) } });
    assert.equal(m.path, join(modelsDir, 'whisper', 'ggml-tiny.en.bin'));
    assert.deepEqual(await readFile(m.path), good);
    assert.deepEqual(await readdir(join(modelsDir, 'whisper')), ['ggml-tiny.en.bin']);
    assert.deepEqual((await listSpeechModels(modelsDir)).map((x) => [x.name, x.bytes]), [['tiny.en', good.length]]);
    assert.deepEqual((await verifySpeechModels(modelsDir, { 'tiny.en': sha1(good) })).map((x) => x.ok), [true]);
    await removeSpeechModel(modelsDir, 'tiny.en');
    assert.deepEqual(await listSpeechModels(modelsDir), []);
  });

  it('refuses a file whose SHA-1 differs, an interrupted download and an unknown name, leaving nothing', async () => {
    const modelsDir = join(work, 'm2');
    await assert.rejects(installSpeechModel('base', { modelsDir, baseUrl, models: { base: sha1(Buffer.from('other')) } }), (e: Error) => e instanceof ModelInstallError && /ggml-base\.bin .* is corrupted: its SHA-1 is/.test(e.message));
    await assert.rejects(installSpeechModel('cut', { modelsDir, baseUrl, models: { cut: sha1(good) } }), ModelInstallError);
    await assert.rejects(installSpeechModel('huge', { modelsDir, baseUrl }), /unknown speech model whisper-huge \(known: whisper-tiny, whisper-tiny\.en/);
    assert.deepEqual(await readdir(join(modelsDir, 'whisper')), []);
  });

  it('through the CLI: install checks whisper.cpp\'s published hash; list and verify show speech models', async () => {
    const modelsDir = join(work, 'm3');
    const env = { ...process.env, TOLK_MODELS_DIR: modelsDir, TOLK_DATA_DIR: work, TOLK_WHISPER_MODELS_URL: baseUrl };
    const cli = join(process.cwd(), 'dist/src/cli.js');
    // the local server's bytes are not whisper.cpp's tiny model
    const bad = await run(process.execPath, [cli, 'models', 'install', 'whisper-tiny'], { env }).catch((e: { code: number; stderr: string }) => e);
    assert.equal((bad as { code: number }).code, 1);
    assert.match((bad as { stderr: string }).stderr, /ggml-tiny\.bin .* is corrupted: its SHA-1 is \w+, whisper.cpp publishes bd577a113a864445d4c299885e0cb97d4ba92b5f/);
    await mkdir(join(modelsDir, 'whisper'), { recursive: true });
    await writeFile(join(modelsDir, 'whisper', 'ggml-base.en.bin'), good); // copied in by hand, wrong content
    await writeFile(join(modelsDir, 'whisper', 'ggml-custom.bin'), good);
    const list = JSON.parse((await run(process.execPath, [cli, 'models', 'list', '--json'], { env })).stdout);
    assert.deepEqual(list.speech_models.map((m: { name: string }) => m.name), ['whisper-base.en', 'whisper-custom']);
    const verify = await run(process.execPath, [cli, 'models', 'verify'], { env }).catch((e: { code: number; stdout: string }) => e);
    assert.equal((verify as { code: number }).code, 1);
    assert.match((verify as { stdout: string }).stdout, /FAILED +whisper-base\.en/);
    assert.match((verify as { stdout: string }).stdout, /ok +whisper-custom/);
  });
});
