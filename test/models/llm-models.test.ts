// `tolk models install llm-NAME` against a local server standing in for the models' public repositories: curated
// models and URLs are checked against their SHA-256, a mismatch or an interrupted download is refused and leaves
// nothing behind; `--from FILE.gguf` takes a local GGUF file and refuses anything else; list, verify and remove.
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
import { ModelInstallError } from '../../src/models/install.js';
import { installLlmModel, listLlmModels, removeLlmModel, verifyLlmModels } from '../../src/models/llm-models.js';
import { testLlmFile } from '../helpers/test-llm.js';

const run = promisify(execFile);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
let gguf: Buffer;
let server: Server;
let baseUrl: string;
let work: string;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'tolk-llm-models-'));
  gguf = await readFile(testLlmFile());
  server = createServer((req, res) => {
    if (!req.url?.startsWith('/repo/')) return res.writeHead(404).end();
    res.writeHead(200, { 'content-length': gguf.length });
    // the connection drops half way through
    if (req.url === '/repo/cut.gguf') return void res.write(gguf.subarray(0, gguf.length >> 1), () => res.destroy());
    res.end(gguf);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(async () => {
  server.close();
  await rm(work, { recursive: true, force: true });
});

const llmDirEntries = async (modelsDir: string) => (await readdir(join(modelsDir, 'llm')).catch(() => [] as string[])).filter((n) => !n.endsWith('.sha256.json'));

describe('language models (GGUF)', () => {
  it('installs a curated model (split in two parts) whose SHA-256 matches; list, verify and remove see it', async () => {
    const modelsDir = join(work, 'm1');
    const curated = { tiny: { licence: 'MIT', files: [{ path: 'repo/a.gguf', sha256: sha256(gguf) }, { path: 'repo/b.gguf', sha256: sha256(gguf) }] } };
    const m = await installLlmModel('tiny', { modelsDir, baseUrl, curated });
    assert.deepEqual(await llmDirEntries(modelsDir), ['tiny-00001-of-00002.gguf', 'tiny-00002-of-00002.gguf']);
    assert.equal(m.bytes, gguf.length * 2);
    assert.deepEqual((await listLlmModels(modelsDir)).map((x) => [x.name, x.files.length]), [['tiny', 2]]);
    assert.deepEqual(await verifyLlmModels(modelsDir), [{ name: 'tiny', ok: true }]);
    await writeFile(m.files[1]!, Buffer.from('GGUF broken'));
    assert.match((await verifyLlmModels(modelsDir))[0]!.problem ?? '', /tiny-00002-of-00002\.gguf: SHA-256 \w+, installed as/);
    await removeLlmModel(modelsDir, 'tiny');
    assert.deepEqual(await readdir(join(modelsDir, 'llm')), []);
  });

  it('refuses a SHA-256 mismatch, an interrupted download, a URL without its hash and an unknown name, leaving nothing', async () => {
    const modelsDir = join(work, 'm2');
    const curated = { other: { licence: 'MIT', files: [{ path: 'repo/x.gguf', sha256: sha256(Buffer.from('something else')) }] } };
    await assert.rejects(installLlmModel('other', { modelsDir, baseUrl, curated }), (e: Error) => e instanceof ModelInstallError && /x\.gguf is refused: its SHA-256 is \w+, expected/.test(e.message));
    await assert.rejects(installLlmModel('cut', { modelsDir, from: `${baseUrl}repo/cut.gguf#sha256=${sha256(gguf)}` }), ModelInstallError);
    await assert.rejects(installLlmModel('nohash', { modelsDir, from: `${baseUrl}repo/m.gguf` }), /needs its SHA-256/);
    await assert.rejects(installLlmModel('huge', { modelsDir }), /unknown language model llm-huge \(known: llm-qwen2\.5-1\.5b-instruct, llm-qwen2\.5-7b-instruct/);
    assert.deepEqual(await readdir(join(modelsDir, 'llm')), []);
    // the right hash for the URL form installs it
    await installLlmModel('fromurl', { modelsDir, from: `${baseUrl}repo/m.gguf#sha256=${sha256(gguf)}` });
    assert.deepEqual(await llmDirEntries(modelsDir), ['fromurl.gguf']);
  });

  it('through the CLI: --from FILE.gguf installs a local model, a file that is no GGUF is refused; list shows it', async () => {
    const modelsDir = join(work, 'm3');
    const env = { ...process.env, TOLK_MODELS_DIR: modelsDir, TOLK_DATA_DIR: work, TOLK_LLM_MODELS_URL: baseUrl };
    const cli = join(process.cwd(), 'dist/src/cli.js');
    const notGguf = join(work, 'not.gguf');
    await writeFile(notGguf, 'hello, no model here');
    const bad = await run(process.execPath, [cli, 'models', 'install', 'llm-bad', '--from', notGguf], { env }).catch((e: { code: number; stderr: string }) => e);
    assert.equal((bad as { code: number }).code, 1);
    assert.match((bad as { stderr: string }).stderr, /not\.gguf is not a GGUF model file/);
    const ok = await run(process.execPath, [cli, 'models', 'install', 'llm-mine', '--from', testLlmFile()], { env });
    assert.match(ok.stdout, /installed llm-mine/);
    assert.deepEqual(await llmDirEntries(modelsDir), ['mine.gguf']);
    const listed = (await run(process.execPath, [cli, 'models', 'list'], { env })).stdout;
    assert.match(listed, /^MODEL +VERSION +SIZE +PATH$/m, 'the list has a header row');
    assert.match(listed, /^llm-mine +\d/m);
    const json = JSON.parse((await run(process.execPath, [cli, 'models', 'list', '--json'], { env })).stdout) as { language_models: { name: string }[] };
    assert.deepEqual(json.language_models.map((m) => m.name), ['llm-mine']);
    assert.match((await run(process.execPath, [cli, 'models', 'verify', 'llm-mine'], { env })).stdout, /ok +llm-mine/);
  });
});
