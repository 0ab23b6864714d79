// Apertium engine: the shared contract plus stream escaping, crash recovery, timeouts and probing of broken modes.

import assert from 'node:assert/strict';
import { chmod, copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it, mock } from 'node:test';
import { ApertiumEngine } from '../../src/engines/apertium/index.js';
import { buildStages, parseModeName } from '../../src/engines/apertium/mode-discovery.js';
import { deformat, reformat, splitForPipe, stripMarks } from '../../src/engines/apertium/stream-format.js';
import { EngineError } from '../../src/engines/engine.js';
import { hasUnknownWord } from '../../src/engines/apertium/tagger-relay.js';
import { WEAR_LIMITS, wornOut } from '../../src/engines/apertium/pair-pool.js';
import type { ApertiumPipeline } from '../../src/engines/apertium/pipeline.js';
import { EngineRouter } from '../../src/translate/engine-router.js';
import { runEngineContract } from './engine.case.js';
import { LOAD_FACTOR } from '../helpers/wait.js';

const MODES = '/usr/share/apertium/modes';

/** Waits for a condition on the event loop's check phase: not on timers, which some tests here mock. */
async function untilImmediate(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

runEngineContract('apertium', () => {
  const engine = new ApertiumEngine({ pairs: ['en-es'] });
  return {
    engine,
    pair: { source: 'en', target: 'es' },
    samples: ['The house is big.', 'I have two dogs and a blorfy cat.', 'Where is the train station?'],
    childPids: () => engine.childPids(),
  };
});

describe('apertium stream format', () => {
  it('escapes and restores special characters', () => {
    const text = 'a [b] \\ ^c$ @d *e #f <b>g</b> {h} /i ~j';
    assert.equal(reformat(deformat(text)), text);
  });
  it('keeps newlines as superblanks', () => {
    assert.equal(deformat('a\nb\n\nc'), 'a[\n]b.[][\n\n]c.[]');
    assert.equal(reformat('x[\n]y.[][\n\n]z.[]'), 'x\ny\n\nz');
  });
  it('strips marks only when the source had none', () => {
    assert.equal(stripMarks('un *blorfy gato #comer @x', 'a blorfy cat'), 'un blorfy gato comer x');
    assert.equal(stripMarks('C# y *importante*', 'C# and *important*'), 'C# y *importante*');
  });
  it('splits long text below PIPE_BUF at sentence ends', () => {
    const text = 'This is one sentence. '.repeat(500);
    const parts = splitForPipe(text);
    assert.ok(parts.length > 1);
    assert.equal(parts.join(''), text);
    for (const p of parts) assert.ok(Buffer.byteLength(p) <= 4096);
    for (const p of parts.slice(0, -1)) assert.match(p, /\.\s$/);
  });
  it('builds null-flush stages from a mode line', () => {
    assert.deepEqual(buildStages("lt-proc 'a b.bin' | apertium-tagger -g $2 'x.prob' | lt-proc $1 'g.bin'"), [
      ['lt-proc', '-z', 'a b.bin'],
      ['apertium-tagger', '-z', '-d', '-g', 'x.prob'],
      ['lt-proc', '-z', '-n', 'g.bin'],
    ]);
  });
  it('rewrites an old-style transfer stage as the apertium command does', () => {
    assert.deepEqual(buildStages("apertium-pretransfer | apertium-transfer 'a.t1x' 'a.t1x.bin' 'a.autobil.bin' | lt-proc $1 'g.bin'"), [
      ['apertium-pretransfer', '-z'],
      ['lt-proc', '-z', '-b', 'a.autobil.bin'],
      ['apertium-transfer', '-z', '-b', 'a.t1x', 'a.t1x.bin'],
      ['lt-proc', '-z', '-n', 'g.bin'],
    ]);
  });
  it('tells analysed blocks with unknown words from those without', () => {
    assert.equal(hasUnknownWord(Buffer.from('^Whitehall/*Whitehall$ ^is/be<vbser>$')), true);
    assert.equal(hasUnknownWord(Buffer.from('^a\\/\\*b/a\\/\\*b<n>$')), false);
    assert.equal(hasUnknownWord(Buffer.from('^house/house<n><sg>$^./.<sent>$[]')), false);
  });
  it('replaces a pipeline by translations, age and resident-memory growth', () => {
    const p = { translatedBlocks: 10, startedAt: Date.now(), firstRss: undefined } as unknown as ApertiumPipeline;
    assert.equal(wornOut(p, WEAR_LIMITS, 100 * 2 ** 20), undefined);
    assert.equal(wornOut(p, WEAR_LIMITS, 150 * 2 ** 20), undefined);
    assert.match(wornOut(p, WEAR_LIMITS, 200 * 2 ** 20) ?? '', /resident memory/);
    assert.match(wornOut(p, { ...WEAR_LIMITS, maxBlocksPerPipeline: 10 }) ?? '', /10 blocks/);
    assert.equal(wornOut(p, { ...WEAR_LIMITS, maxPipelineAgeMs: 0 }), 'age');
  });
  it('keeps a final period apart from the end mark', () => {
    assert.equal(deformat('born 1979.'), 'born 1979.[].[]');
    assert.equal(reformat('født 1979.[].[]'), 'født 1979.');
  });
  it('maps mode names to Tolk codes and skips meaningless variants', () => {
    assert.deepEqual(parseModeName('spa-eng_US'), { source: 'es', target: 'en-us' });
    assert.deepEqual(parseModeName('es-pt_BR'), { source: 'es', target: 'pt-br' });
    assert.deepEqual(parseModeName('nob-swe'), { source: 'nb', target: 'sv' });
    assert.ok('reason' in parseModeName('spa-cat_valencia_uni'));
    assert.ok('reason' in parseModeName('eng-cat_iec2017'));
    assert.ok('reason' in parseModeName('eco-es-fr'));
  });
});

describe('apertium engine (real pipelines)', () => {
  let engine: ApertiumEngine;
  before(async () => {
    engine = new ApertiumEngine({ pairs: ['en-es', 'es-pt'] });
    await engine.start();
  });
  after(async () => {
    await engine.close();
  });

  it('round-trips special characters as text', async () => {
    const [out] = await engine.translate({ source: 'en', target: 'es' }, ['The [big] house \\ ^cost$ is 5 * 3 # 2 at <b>home</b> {x} @me.'], {});
    for (const s of ['[', ']', '\\', '^', '$', '*', '#', '<b>', '</b>', '{x}', '@']) assert.ok(out!.includes(s), `${s} missing in ${out}`);
  });

  it('keeps newlines and edge whitespace', async () => {
    const [out] = await engine.translate({ source: 'en', target: 'es' }, ['  The house is big.\nThe dog is small.\n\nNew paragraph here\n'], {});
    assert.equal(out!.match(/\n/g)?.length, 4);
    assert.ok(out!.startsWith('  '));
    assert.ok(out!.endsWith('\n'));
    assert.match(out!, /casa/);
  });

  it('keeps final punctuation', async () => {
    const out = await engine.translate({ source: 'en', target: 'es' }, ['Mr. Smith went home.', 'Is it big?', 'Yes!'], {});
    assert.match(out[0]!, /\.$/);
    assert.match(out[1]!, /\?$/);
    assert.match(out[2]!, /!$/);
  });

  it('translates long input (split below PIPE_BUF)', async () => {
    const text = 'The house is big and the dog is small. '.repeat(300).trim();
    const [out] = await engine.translate({ source: 'en', target: 'es' }, [text], {});
    assert.equal(out!.match(/casa/g)?.length, 300);
  });

  it('restarts a pipeline killed from outside', async () => {
    await engine.translate({ source: 'es', target: 'pt' }, ['La casa es grande.'], {});
    const pids = engine.childPids('es-pt');
    assert.ok(pids.length > 0);
    process.kill(pids[pids.length - 1]!, 'SIGKILL');
    // the request right after the kill is retried on a fresh pipeline
    const out = await engine.translate({ source: 'es', target: 'pt' }, ['La casa es grande.'], {});
    assert.match(out[0]!, /casa/);
    assert.ok(!engine.childPids('es-pt').includes(pids[pids.length - 1]!));
  });

  it('runs old-style modes as the apertium command does', async () => {
    const [out] = await engine.translate({ source: 'es', target: 'pt' }, ['Las casas tienen sus capas.'], {});
    assert.equal(out, 'As casas têm suas capas.');
  });

  it('retires a pipeline after its block limit without dropping requests', async () => {
    const small = new ApertiumEngine({ pairs: ['es-pt'], maxBlocksPerPipeline: 2 });
    await small.start();
    try {
      const first = small.childPids('es-pt');
      const outs = await Promise.all(Array.from({ length: 6 }, () => small.translate({ source: 'es', target: 'pt' }, ['La casa es grande.'], {})));
      for (const [o] of outs) assert.equal(o, 'A casa é grande.');
      assert.ok(!small.childPids('es-pt').some((pid) => first.includes(pid)), 'the first pipeline was replaced');
    } finally {
      await small.close();
    }
  });

  it('pivots en→pt through es with the router', async () => {
    const logs: object[] = [];
    const router = new EngineRouter([engine], { logger: { info: (o) => logs.push(o), warn() {}, error() {} } });
    const route = router.resolve('en', 'pt');
    assert.equal(route?.kind, 'pivot');
    assert.deepEqual(route?.legs.map((l) => `${l.source}-${l.target}`), ['en-es', 'es-pt']);
    const [out] = await router.translate('en', 'pt', ['The house is big.']);
    assert.match(out!, /casa/);
    assert.equal(logs.length, 1);
  });
});

describe('apertium engine (fake modes)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tolk-modes-'));
    // echo stage: answers each \0 block with itself, sleeps on blocks containing SLOW, holds those containing WAIT
    // until the file `gate` exists beside it
    const echo = path.join(dir, 'echo.py');
    await writeFile(
      echo,
      [
        '#!/usr/bin/env python3',
        'import os, sys, time',
        'gate = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gate")',
        'buf = b""',
        'while True:',
        '    c = sys.stdin.buffer.read1(65536)',
        '    if not c: break',
        '    buf += c',
        '    while b"\\0" in buf:',
        '        block, buf = buf.split(b"\\0", 1)',
        '        if b"SLOW" in block: time.sleep(30)',
        '        while b"WAIT" in block and not os.path.exists(gate): time.sleep(0.01)',
        '        sys.stdout.buffer.write(block + b"\\0"); sys.stdout.buffer.flush()',
      ].join('\n'),
    );
    await chmod(echo, 0o755);
    await writeFile(path.join(dir, 'eng-spa.mode'), `'${echo}'\n`);
    await writeFile(path.join(dir, 'spa-eng.mode'), 'cat /dev/null\n');
    await writeFile(path.join(dir, 'fr-es.mode'), 'false\n');
    await writeFile(path.join(dir, 'es-fr.mode'), '\n');
    await copyFile(path.join(MODES, 'pt-es.mode'), path.join(dir, 'pt-es.mode'));
    await writeFile(path.join(dir, 'ita-spa.mode'), 'no-such-apertium-program -x\n');
    await writeFile(path.join(dir, 'ro-es.mode'), "lt-proc '/nonexistent/ro-es.automorf.bin'\n");
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lists installed modes without starting them; a mode failing its first probe is marked broken and unlisted', async () => {
    let changes = 0;
    const engine = new ApertiumEngine({ modesDir: dir, onPairsChanged: () => changes++ });
    await engine.start();
    try {
      const listed = () => engine.pairs().map((p) => `${p.source}-${p.target}`);
      // A missing program or data file is seen at start; 'false' and 'cat /dev/null' only when they run.
      assert.deepEqual(listed(), ['en-es', 'es-en', 'fr-es', 'pt-es']);
      assert.deepEqual(engine.childPids(), [], 'nothing started at start');
      for (const source of ['es', 'fr']) {
        await assert.rejects(engine.translate({ source, target: source === 'es' ? 'en' : 'es' }, ['Hola.'], {}), (err: EngineError) => err.kind === 'failed');
      }
      assert.deepEqual(listed(), ['en-es', 'pt-es']);
      assert.equal(changes, 2);
      // A working pair starts on its first request and stays warm.
      assert.deepEqual(await engine.translate({ source: 'en', target: 'es' }, ['hello'], {}), ['hello']);
      assert.deepEqual(engine.stats().filter((s) => s.pipelines > 0).map((s) => s.pair), ['en-es']);
    } finally {
      await engine.close();
    }
  });

  it('warms the pairs named in warmPairs at start ("*": all), probing them', async () => {
    const engine = new ApertiumEngine({ modesDir: dir, warmPairs: ['*'] });
    await engine.start();
    try {
      assert.deepEqual(engine.pairs().map((p) => `${p.source}-${p.target}`), ['en-es', 'pt-es']);
      assert.deepEqual(engine.stats().filter((s) => s.pipelines > 0).map((s) => s.pair).sort(), ['en-es', 'pt-es']);
    } finally {
      await engine.close();
    }
  });

  it('rejects with overloaded when the queue is full', async () => {
    const engine = new ApertiumEngine({ modesDir: dir, pairs: ['en-es'], maxPipelinesPerPair: 1, maxInFlightPerPipeline: 1, maxQueuePerPair: 1 });
    await engine.start();
    const gate = path.join(dir, 'gate');
    try {
      const held = engine.translate({ source: 'en', target: 'es' }, ['WAIT'], {});
      await untilImmediate(() => engine.stats()[0]?.inFlight === 1);
      const queued = engine.translate({ source: 'en', target: 'es' }, ['a'], {});
      await assert.rejects(
        engine.translate({ source: 'en', target: 'es' }, ['b'], {}),
        (err: unknown) => err instanceof EngineError && err.kind === 'overloaded',
      );
      await writeFile(gate, '');
      assert.deepEqual(await Promise.all([held, queued]), [['WAIT'], ['a']]);
    } finally {
      await rm(gate, { force: true });
      await engine.close();
    }
  });

  it('pipelines concurrent requests through one pipeline and answers each with its own output', async () => {
    const engine = new ApertiumEngine({ modesDir: dir, pairs: ['en-es'], warmPairs: ['en-es'], maxPipelinesPerPair: 1, maxInFlightPerPipeline: 8 });
    await engine.start();
    try {
      const pids = engine.childPids();
      const texts = Array.from({ length: 40 }, (_, i) => Array.from({ length: 1 + (i % 3) }, (_, j) => `request ${i} [segment ${j}] ^${'x'.repeat(i)}$`));
      const pending = texts.map((segments) => engine.translate({ source: 'en', target: 'es' }, segments, {}));
      // blocks are handed out synchronously: 8 in flight on the one pipeline (requests 0-3 and the first block of 4)
      assert.deepEqual(
        engine.stats().map((s) => [s.pipelines, s.inFlight, s.queued]),
        [[1, 8, 36]],
      );
      const outs = await Promise.all(pending);
      assert.deepEqual(outs, texts);
      assert.deepEqual(engine.childPids(), pids, 'one pipeline, never replaced');
    } finally {
      await engine.close();
    }
  });

  it('a deadline cancels only its own request: the others in the same pipeline are answered by it', async () => {
    const engine = new ApertiumEngine({ modesDir: dir, pairs: ['en-es'], maxPipelinesPerPair: 1, requestTimeoutMs: 4000 });
    await engine.start();
    const gate = path.join(dir, 'gate');
    // deadlines on a clock the test moves: WAIT's passes, those sent after it do not
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const held = engine.translate({ source: 'en', target: 'es' }, ['WAIT here', 'and more'], { requester: 'x' }).catch((e: unknown) => e);
      await untilImmediate(() => engine.stats()[0]?.inFlight === 2);
      const pids = engine.childPids();
      mock.timers.tick(2000);
      const behind = ['one', 'two'].map((t) => engine.translate({ source: 'en', target: 'es' }, [t], { requester: 'y' }));
      await untilImmediate(() => engine.stats()[0]?.inFlight === 4);
      mock.timers.tick(2000);
      assert.equal(((await held) as EngineError).kind, 'timeout');
      await writeFile(gate, '');
      assert.deepEqual(await Promise.all(behind), [['one'], ['two']]);
      assert.deepEqual(engine.childPids(), pids, 'the pipeline was kept');
      assert.equal(engine.stats()[0]!.restarts, 0);
    } finally {
      mock.timers.reset();
      await rm(gate, { force: true });
      await engine.close();
    }
  });

  it('replaces a wedged pipeline (no output for a bounded time) and re-runs the other requests on the new one', async () => {
    // The probe's limit (also a fresh pipeline's first answer's) follows the machine's load, for a pair whose probe timed
    // out is not served; it stays well below the 30 s the SLOW block sleeps, so the fresh pipeline is found wedged too.
    const engine = new ApertiumEngine({ modesDir: dir, pairs: ['en-es'], maxPipelinesPerPair: 1, requestTimeoutMs: 60_000, wedgeTimeoutMs: 300, probeTimeoutMs: Math.min(15_000, 5000 * LOAD_FACTOR) });
    await engine.start();
    assert.deepEqual(engine.stats().map((s) => s.pair), ['en-es'], 'the pair was probed and is served');
    try {
      let ended: unknown;
      const stuck = engine.translate({ source: 'en', target: 'es' }, ['SLOW'], { requester: 'x' }).catch((e: unknown) => (ended = e));
      // a request that ended before it reached the pipeline fails here with its error, not after the wait's deadline
      await untilImmediate(() => engine.stats()[0]?.inFlight === 1 || ended !== undefined);
      assert.equal(ended, undefined, `the request ended before it reached the pipeline: ${String(ended)}`);
      const before = engine.childPids();
      const behind = ['one', 'two', 'three'].map((t) => engine.translate({ source: 'en', target: 'es' }, [t], { requester: 'y' }));
      assert.deepEqual(await Promise.all(behind), [['one'], ['two'], ['three']]);
      assert.ok(engine.childPids().every((p) => !before.includes(p)), 'the wedged pipeline was replaced');
      // the block that wedged it is tried on one fresh pipeline, then its request ends as not answered in time
      const err = (await stuck) as EngineError;
      assert.equal(err.kind, 'timeout', String(err));
    } finally {
      await engine.close();
    }
  });
});
