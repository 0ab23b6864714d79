#!/usr/bin/env node
// Builds a self-contained archive for benchmarking Tolk on a machine that has no Node.js, no Apertium and no network
// (issue 46: the 16-core benchmark): this machine's `node`, the built server and benches with only the files of
// node_modules a benchmark run really loads (traced), Apertium's programs for one pair with their shared libraries
// (the C library and libstdc++ excepted: the target's own serve) and the pair's data, the compiled tagger shim, the
// FLORES sentences the benches read, and the model generator with the real vocabularies for the neural benches.
// scripts/device-bench.sh unpacks and runs it there.
//
// Usage: npm run build && node scripts/make-device-bundle.mjs [--out=.device/tolk-bench.tar.xz] [--pair=eng-spa]
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
if (args.has('help')) {
  console.log('usage: node scripts/make-device-bundle.mjs [--out=.device/tolk-bench.tar.xz] [--pair=eng-spa] (after npm run build)');
  process.exit(0);
}
const out = resolve(repo, args.get('out') ?? '.device/tolk-bench.tar.xz');
const pair = args.get('pair') ?? 'eng-spa';
const modesDir = '/usr/share/apertium/modes';
if (!existsSync(join(repo, 'dist/bench/translate.js'))) throw new Error('run `npm run build` first');

const stage = mkdtempSync(join(tmpdir(), 'tolk-bundle-'));
const root = join(stage, 'tolk-bench');
const copy = (from, to) => {
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
};
const copyTree = (from, to, keep = () => true) => {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, entry.name);
    if (!keep(src)) continue;
    if (entry.isDirectory()) copyTree(src, join(to, entry.name), keep);
    else if (entry.isFile()) copy(src, join(to, entry.name));
  }
};

// 1. What short benchmark runs load: the translate bench (Tolk, the bare route and the engine, each in its process)
// and the two neural benches (a generated en-es model through workers and HTTP; one base-memory direction).
const trace = join(stage, 'loads.txt');
writeFileSync(trace, '');
const tracer = join(repo, 'scripts/trace-loads.mjs');
const traced = [
  ['dist/bench/translate.js', '--only=engine,tolk,bare', '--client=node', '--concurrency=2', '--modes=concurrent', '--texts=short', '--duration=300', '--warmup=100', '--rounds=1'],
  ['dist/bench/bergamot.js', '--workers=1', '--concurrency=2', '--duration=300', '--rounds=1'],
  ['dist/bench/bergamot-memory.js', '--order=round-robin', '--directions=1', '--workers=1', '--clients=2', '--duration=300'],
];
for (const argv of traced) {
  const run = spawnSync(process.execPath, argv, {
    cwd: repo,
    env: { ...process.env, TOLK_TRACE_FILE: trace, NODE_OPTIONS: `--import=${tracer}` },
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 300_000,
  });
  if (run.status !== 0) throw new Error(`the traced run of ${argv[0]} failed:\n${run.stderr}`);
}
const loaded = [...new Set(readFileSync(trace, 'utf8').split('\n').filter(Boolean))];

// 2. The server: dist/, package.json, and each loaded node_modules file with its package's package.json.
// (of the compiled tests only the helpers the benches import; no source maps: the archive stays under 40 MiB)
const testsDir = join(repo, 'dist/test');
const wanted = (file) => !file.endsWith('.map') && (!file.startsWith(`${testsDir}/`) || file.startsWith(`${testsDir}/helpers`));
copyTree(join(repo, 'dist'), join(root, 'dist'), wanted);
copy(join(repo, 'package.json'), join(root, 'package.json'));
// data the server reads by path beside dist/ (style-rule catalogue, detection n-grams)
copyTree(join(repo, 'assets'), join(root, 'assets'));
const modules = join(repo, 'node_modules');
let moduleFiles = 0;
for (const file of loaded) {
  if (!file.startsWith(`${modules}/`)) continue;
  copy(file, join(root, relative(repo, file)));
  moduleFiles++;
  // the package.json files on the way up tell Node each package's type and exports
  for (let dir = dirname(file); dir.startsWith(`${modules}/`); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && !existsSync(join(root, relative(repo, manifest)))) copy(manifest, join(root, relative(repo, manifest)));
  }
}

// The Bergamot runtime's glue script is read as text beside its .wasm (runtime-worker.ts), not loaded as a module.
const bergamotWorker = join(modules, '@browsermt/bergamot-translator/worker');
for (const f of readdirSync(bergamotWorker)) copy(join(bergamotWorker, f), join(root, relative(repo, bergamotWorker), f));

// 3. Node itself, and below the Apertium binaries, without their debug symbols where `strip` exists (smaller archive).
const strip = (file) => spawnSync('strip', [file]).status === 0;
copy(process.execPath, join(root, 'bin/node'));
strip(join(root, 'bin/node'));

// 4. Apertium: the pair's mode, its programs, their libraries but the C runtime's (device-bench.sh puts them on
// LD_LIBRARY_PATH: a wrapper script would take the tagger shim's LD_PRELOAD itself), and the data files the mode
// names; paths rewritten to @BUNDLE@, which device-bench.sh replaces with where the bundle was unpacked.
const mode = readFileSync(join(modesDir, `${pair}.mode`), 'utf8');
const dataFiles = [...new Set(mode.match(/\/usr\/share\/apertium\/[^' ]+/g) ?? [])];
const programs = [...new Set(mode.split('|').map((stage) => stage.trim().split(/\s+/)[0]))];
mkdirSync(join(root, 'apertium/modes'), { recursive: true });
writeFileSync(join(root, 'apertium/modes', `${pair}.mode`), mode.replaceAll('/usr/share/apertium/', '@BUNDLE@/apertium/share/'));
for (const file of dataFiles) copy(file, join(root, 'apertium/share', relative('/usr/share/apertium', file)));
const runtime = /^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libstdc\+\+\.so|libgcc_s\.so)/;
const libs = new Set();
for (const program of programs) {
  const path = execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim();
  copy(path, join(root, 'apertium/bin', program));
  chmodSync(join(root, 'apertium/bin', program), 0o755);
  for (const line of execFileSync('ldd', [path], { encoding: 'utf8' }).split('\n')) {
    const m = /^\s*(\S+) => (\/\S+)/.exec(line);
    if (m && !runtime.test(m[1])) libs.add(m[2]);
  }
}
for (const lib of libs) copy(lib, join(root, 'apertium/lib', lib.split('/').pop()));
for (const dir of ['apertium/bin', 'apertium/lib']) for (const f of readdirSync(join(root, dir))) strip(join(root, dir, f));

// 5. The tagger shim as this machine compiled it (the target has no compiler); its cache key is the source's hash.
const shimDir = join(tmpdir(), `tolk-${process.getuid?.() ?? 'user'}`);
if (existsSync(shimDir)) for (const f of readdirSync(shimDir).filter((n) => n.endsWith('.so'))) copy(join(shimDir, f), join(root, 'tagger-shim', f));

// 6. FLORES English (the bench's FLORES texts).
// (where the tests and benches find them: one place names the directories)
const { FLORES_DIR: flores } = await import(join(repo, 'dist/test/helpers/flores.js'));
for (const f of readdirSync(flores).filter((n) => /^flores-dev\.(en|eng)/.test(n))) copy(join(flores, f), join(root, 'flores-dev', f));

// 7. What the neural benches generate their models with there: the generator and the real Firefox vocabularies.
for (const f of ['make-test-model.mjs', 'seeded-random.mjs']) copy(join(repo, 'scripts', f), join(root, 'scripts', f));
const { BERGAMOT_VOCABS_DIR: vocabs } = await import(join(repo, 'dist/test/helpers/bergamot-models.js'));
for (const f of ['vocab.esen.spm', 'vocab.deen.spm']) copy(join(vocabs, f), join(root, 'bergamot-vocabs', f));

copy(join(repo, 'scripts/device-bench.sh'), join(root, 'device-bench.sh'));

// 8. The staged tree on its own (its node, its node_modules, no repository around it): Tolk must answer in the
// translate bench (which skips a variant that does not start) and the neural bench must run.
const smoke = (argv, expect) => {
  const r = spawnSync(join(root, 'bin/node'), argv, {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TOLK_FLORES_DIR: join(root, 'flores-dev'), TOLK_BERGAMOT_VOCABS: join(root, 'bergamot-vocabs') },
    timeout: 300_000,
  });
  if (r.status !== 0 || !r.stdout.includes(expect)) throw new Error(`the bundle cannot run ${argv[0]} on its own:\n${r.stdout}\n${r.stderr}`);
};
smoke(['dist/bench/translate.js', '--only=tolk', '--client=node', '--concurrency=2', '--modes=concurrent', '--texts=short', '--duration=300', '--warmup=100', '--rounds=1'], '| tolk /v2/translate');
smoke(['dist/bench/bergamot.js', '--engine-only', '--workers=1', '--concurrency=1', '--duration=300', '--rounds=1'], '| engine');
mkdirSync(dirname(out), { recursive: true });
execFileSync('tar', ['-C', stage, '-cJf', out, 'tolk-bench'], { env: { ...process.env, XZ_OPT: '-6 -T0' } });
const size = (statSync(out).size / 2 ** 20).toFixed(1);
console.log(`${out}: ${size} MiB (${moduleFiles} node_modules files, ${programs.length} Apertium programs, ${libs.size} libraries, ${dataFiles.length} data files)`);
rmSync(stage, { recursive: true, force: true });
