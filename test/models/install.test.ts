// `tolk models install` against a local server speaking the public index's formats (Remote Settings records and
// attachments): today's `translations-models-v2` (the real records of ../shared/data/firefox-models with generated,
// zstd-compressed models in place of Mozilla's) and the older `translations-models`: hashes verified, the variant
// Firefox desktop release picks, a corrupted file and an interrupted download refused, nothing left half-installed,
// and the running server translating through what was installed.
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
import { BergamotEngine } from '../../src/engines/bergamot/index.js';
import { loadConfig } from '../../src/config.js';
import { modelsCommand } from '../../src/models/cli.js';
import { installModel, removeModel, verifyModels } from '../../src/models/install.js';
import { makeModel, type ModelSpec } from '../helpers/bergamot-models.js';
import { authHeaders, createAccount, createTestApp } from '../helpers/harness.js';

const run = promisify(execFile);
let server: Server;
let indexUrl: string;
let indexV2Url: string;
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
    if (url === '/v1/buckets/main/collections/translations-models-v2/records') return res.end(JSON.stringify({ data: recordsV2 }));
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
  indexV2Url = indexUrl.replace(/translations-models\/records$/, 'translations-models-v2/records');
  recordsV2 = await generatedRecordsV2();
});
/**
 * The directions whose attachments are served (generated models of the architecture the desktop release variant has,
 * at reduced width); every other record stays in the index unserved.
 */
const SERVED: Record<string, ModelSpec> = {
  'en-de': { architecture: 'base-memory' },
  'de-en': { architecture: 'base-memory' },
  'zh-Hans-en': { architecture: 'base' },
  'en-zh-Hans': { architecture: 'base-memory', splitVocab: true },
  'en-ko': { architecture: 'base' },
  'en-fr': { architecture: 'tiny' },
};
/** Its attachments arrive damaged. */
const CORRUPTED = 'en-fr';
let recordsV2: RealRecord[];

interface RealRecord {
  name: string;
  version: string;
  fileType: string;
  sourceLanguage: string;
  targetLanguage: string;
  filter_expression: string;
  decompressedHash: string;
  decompressedSize: number;
  attachment: { hash: string; size: number; filename: string; location: string; mimetype: string };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * The 288 real records of translations-models-v2; those of the served directions (every variant: desktop, Android,
 * pre-release) point at a generated model, zstd-compressed, with its real sizes and hashes.
 */
async function generatedRecordsV2(): Promise<RealRecord[]> {
  const real = JSON.parse(await readFile(join(process.cwd(), '../shared/data/firefox-models/records-v2.json'), 'utf8')) as { data: RealRecord[] };
  const generated = new Map<string, Record<string, Buffer>>();
  for (const [direction, spec] of Object.entries(SERVED)) {
    // The generator names pairs by their bare languages (zh-Hans → zh).
    const dir = await makeModel(join(work, 'v2', direction), direction.replace('-Hans', ''), spec);
    const names = await readdir(dir);
    const read = (re: RegExp) => {
      const name = names.find((n) => re.test(n));
      return name ? readFile(join(dir, name)) : undefined;
    };
    const [model, lex, vocab, srcvocab, trgvocab] = await Promise.all([/^model\./, /^lex\./, /^vocab\./, /^srcvocab\./, /^trgvocab\./].map(read));
    // Android variants of a direction may split its vocabulary where the desktop one does not: both get the shared one.
    generated.set(direction, { model: model!, lex: lex!, vocab: vocab ?? srcvocab!, srcvocab: srcvocab ?? vocab!, trgvocab: trgvocab ?? vocab! });
  }
  const records: RealRecord[] = [];
  for (const r of real.data) {
    const direction = `${r.sourceLanguage}-${r.targetLanguage}`;
    const data = generated.get(direction)?.[r.fileType];
    if (!data) {
      records.push(r);
      continue;
    }
    const compressed = await compressZstd(data);
    const location = `main-workspace/translations-models-v2/${r.attachment.location.split('/').pop()}`;
    files.set(`/attachments/${location}`, direction === CORRUPTED ? corrupt(compressed) : compressed);
    records.push({
      ...r,
      decompressedHash: sha256(data),
      decompressedSize: data.length,
      attachment: { ...r.attachment, hash: sha256(compressed), size: compressed.length, location },
    });
  }
  return records;
}

/** zstd's own command line (Debian package zstd) writes what Mozilla's attachments are. */
function compressZstd(data: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile('zstd', ['-q', '-c', '-3'], { encoding: 'buffer', maxBuffer: 1 << 28 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    child.stdin!.end(data);
  });
}

/** One byte changed in the middle, as a damaged transfer or disk would. */
function corrupt(data: Buffer): Buffer {
  const copy = Buffer.from(data);
  const at = copy.length >> 1;
  copy[at] = copy[at]! ^ 0xff;
  return copy;
}

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
    assert.match((bad as { stderr: string }).stderr, /neither a directory, an archive, a URL, a language pair like en-de, whisper-NAME nor llm-NAME/);
  });
});

describe('tolk models install from translations-models-v2', () => {
  /** `tolk models …` in this process (starting the CLI costs seconds on a busy machine): its stdout. */
  const models = async (modelsDir: string, ...args: string[]) => {
    let stdout = '';
    const env = { ...process.env, TOLK_MODELS_DIR: modelsDir, TOLK_DATA_DIR: work, TOLK_MODELS_INDEX_URL: indexV2Url };
    const code = await modelsCommand(args[0], args.slice(1), () => loadConfig(env), { out: (s) => (stdout += s), err: () => {} });
    assert.equal(code, 0, stdout);
    return stdout;
  };

  it('installs en-de, de-en, zh-en, en-zh and en-ko in one command, the desktop release variants, and the server translates through each', async () => {
    const modelsDir = join(work, 'v2-installed');
    const stdout = await models(modelsDir, 'install', 'en-de', 'de-en', 'zh-en', 'en-zh', 'en-ko');
    assert.match(stdout, /\[5\/5\] installed en-ko 3\.0 in /);
    assert.deepEqual((await readdir(modelsDir)).sort(), ['de-en', 'en-de', 'en-ko', 'en-zh-hans', 'zh-hans-en']);
    // Not the Android variants (3.1, base-memory): the desktop ones (3.0, base).
    for (const dir of ['en-ko', 'zh-hans-en']) {
      const { version, architecture } = await installedMeta(modelsDir, dir);
      assert.deepEqual([version, architecture], ['3.0', 'base'], dir);
    }
    // Split vocabularies installed decompressed under the names the runtime loads.
    assert.deepEqual((await readdir(join(modelsDir, 'en-zh-hans'))).sort(), ['lex.50.50.enzh.s2t.bin', 'model.enzh.intgemm.alphas.bin', 'srcvocab.enzh.spm', 'tolk-model.json', 'trgvocab.enzh.spm']);
    assert.deepEqual((await verifyModels(modelsDir)).map((r) => r.ok), [true, true, true, true, true]);

    const available = (await models(modelsDir, 'available')).split('\n');
    assert.match(available[0]!, /^DIRECTION +VERSION +ARCHITECTURE +DOWNLOAD +INSTALLED$/);
    assert.match(available.find((l) => l.startsWith('en-ko '))!, /^en-ko +3\.0 +base +[\d.]+ MB +yes$/);
    assert.match(available.find((l) => l.startsWith('en-fr '))!, /^en-fr +3\.0 +base-memory +[\d.]+ MB +-$/);
    assert.equal(await models(modelsDir, 'update'), 'every installed direction is at the newest version the index offers\n');

    const bergamot = new BergamotEngine({ modelsDir, workers: 1, rescanIntervalMs: 0 });
    const ctx = await createTestApp({ engines: [bergamot] });
    try {
      const account = await createAccount(ctx);
      const languages = async (type: string) =>
        (await ctx.app.inject({ method: 'GET', url: `/v2/languages?type=${type}`, headers: authHeaders(account) })).json().map((l: { language: string }) => l.language);
      assert.deepEqual(await languages('source'), ['DE', 'EN', 'ZH']);
      assert.deepEqual(await languages('target'), ['DE', 'EN', 'EN-GB', 'EN-US', 'KO', 'ZH', 'ZH-HANS']);
      for (const [source_lang, target_lang, engineSource, engineTarget] of [
        ['EN', 'DE', 'en', 'de'],
        ['DE', 'EN-US', 'de', 'en'],
        ['ZH', 'EN-GB', 'zh', 'en'],
        ['EN', 'ZH', 'en', 'zh-hans'],
        ['EN', 'ZH-HANS', 'en', 'zh-hans'],
        ['EN', 'KO', 'en', 'ko'],
      ] as const) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/v2/translate',
          headers: { ...authHeaders(account), 'content-type': 'application/json' },
          payload: { text: ['The house is big.'], source_lang, target_lang },
        });
        assert.equal(res.statusCode, 200, `${source_lang}→${target_lang}: ${res.body}`);
        const [direct] = await bergamot.translate({ source: engineSource, target: engineTarget }, ['The house is big.'], {});
        assert.equal(res.json().translations[0].text, direct, `${source_lang}→${target_lang}`);
        assert.notEqual(direct, 'The house is big.');
      }
    } finally {
      await ctx.close();
    }
  });

  it('refuses a corrupted attachment with a clear message and installs nothing', async () => {
    const modelsDir = join(work, 'v2-corrupted');
    await assert.rejects(models(modelsDir, 'install', 'en-fr'), /^Error: model\.enfr\.intgemm\.alphas\.bin from http:\/\/127\.0\.0\.1:\d+\/attachments\/\S+\.zst is corrupted: .+; nothing was installed$/);
    assert.deepEqual(await readdir(modelsDir), []);
  });

  it('names directions with or without script subtags, and installs a newer version the index gains with update', async () => {
    const modelsDir = join(work, 'v2-names');
    const info = await installModel('en-zh-Hans', { modelsDir, indexUrl: indexV2Url });
    assert.deepEqual([info.source, info.target, info.version], ['en', 'zh-hans', '3.0']);
    await assert.rejects(installModel('en-xx', { modelsDir, indexUrl: indexV2Url }), /no en-xx model \(it has: .*en-zh-Hans.*\)/);
    // A pre-release only: installed, saying so.
    const notes: string[] = [];
    await assert.rejects(installModel('az-en', { modelsDir, indexUrl: indexV2Url, notice: (m) => notes.push(m) }), /cannot download/);
    assert.deepEqual(notes, ['az-en exists only as a pre-release (3.0a1); installing that']);

    const newer = recordsV2.filter((r) => r.sourceLanguage === 'en' && r.targetLanguage === 'zh-Hans').map((r) => ({ ...r, version: '3.2' }));
    recordsV2.push(...newer);
    try {
      const stdout = await models(modelsDir, 'update');
      assert.match(stdout, /^en-zh-Hans: 3\.0 → 3\.2\ninstalled en-zh-hans 3\.2 in /);
      assert.equal((await installedMeta(modelsDir, 'en-zh-hans')).version, '3.2');
    } finally {
      recordsV2.splice(recordsV2.length - newer.length, newer.length);
    }
    assert.match(await removeModel(modelsDir, 'en-zh'), /en-zh-hans/);
  });

  it('answers --help for every models subcommand with its own usage, reading no configuration', async () => {
    for (const sub of ['list', 'available', 'install', 'update', 'remove', 'verify']) {
      let stdout = '';
      const code = await modelsCommand(sub, ['--help'], () => assert.fail('--help read the configuration'), { out: (s) => (stdout += s), err: () => {} });
      assert.equal(code, 0);
      assert.match(stdout, new RegExp(`^Usage:\\n  tolk models ${sub} `));
      assert.doesNotMatch(stdout.replace(/^Usage:\n/, ''), new RegExp(`^  tolk models (?!${sub} )`, 'm'));
    }
  });
});

async function installedMeta(modelsDir: string, dir: string): Promise<{ version: string; architecture: string }> {
  return JSON.parse(await readFile(join(modelsDir, dir, 'tolk-model.json'), 'utf8')) as { version: string; architecture: string };
}
