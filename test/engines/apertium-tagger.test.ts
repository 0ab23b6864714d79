// The HMM tagger keeps no state from one request into the next: with the preloaded shim (tagger-shim.ts) and with the
// tagger relay it falls back to (tagger-relay.ts).

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ApertiumEngine } from '../../src/engines/apertium/index.js';
import { prepareTaggerShim, type TaggerReset } from '../../src/engines/apertium/tagger-shim.js';
import { floresLines } from '../helpers/flores.js';
import { waitFor } from '../helpers/wait.js';

/** Translates `probes` on a fresh engine, then each probe among other requests on a used one; both answers must match. */
async function assertIndependentOfEarlierRequests(reset: 'shim' | 'relay'): Promise<void> {
  const lines = floresLines('en');
  const probes = ['Siminoff appeared on television.', ...lines.slice(0, 12)];
  const fresh = new ApertiumEngine({ pairs: ['en-es'], taggerReset: reset });
  await fresh.start();
  const expected: string[] = [];
  try {
    for (const p of probes) expected.push((await fresh.translate({ source: 'en', target: 'es' }, [p], {}))[0]!);
  } finally {
    await fresh.close();
  }
  const engine = new ApertiumEngine({ pairs: ['en-es'], taggerReset: reset });
  await engine.start();
  try {
    assert.equal(engine.taggerReset.kind, reset);
    // FLORES sentences 20-119 hold words whose ambiguity classes the en-es tagger model lacks (they change its state)
    const others = lines.slice(20, 120);
    const got: string[] = [];
    for (const [i, p] of probes.entries()) {
      // each probe goes in among other requests, sent before and after it without waiting
      const batch = [...others.slice(i * 7, i * 7 + 4), p, ...others.slice(i * 7 + 4, i * 7 + 7)];
      const outs = await Promise.all(batch.map((t) => engine.translate({ source: 'en', target: 'es' }, [t], {})));
      got.push(outs[4]![0]!);
    }
    assert.deepEqual(got, expected);
  } finally {
    await engine.close();
  }
}

describe('apertium tagger without state between requests', () => {
  it('uses the preloaded shim where a C++ compiler is installed', async () => {
    const engine = new ApertiumEngine({ pairs: ['en-es'] });
    await engine.start();
    try {
      assert.equal(engine.taggerReset.kind, 'shim');
      const [out] = await engine.translate({ source: 'en', target: 'es' }, ['The house is big.'], {});
      assert.equal(out, 'La casa es grande.');
    } finally {
      await engine.close();
    }
  });

  it('reports why the shim is not available (no compiler), so the engine falls back to the relay', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tolk-shim-test-'));
    try {
      const shim = await prepareTaggerShim({ dir, compiler: path.join(dir, 'no-such-compiler') });
      assert.equal(shim.path, undefined);
      assert.match(shim.path === undefined ? shim.reason : '', /no-such-compiler failed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('builds the shim again when its file is removed (a temp-directory cleaner), the relay serving meanwhile', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tolk-shim-test-'));
    const engine = new ApertiumEngine({ pairs: ['en-es'], taggerShimDir: dir });
    try {
      await engine.start();
      const reset = engine.taggerReset;
      assert.equal(reset.kind, 'shim');
      rmSync(reset.kind === 'shim' ? reset.path : '', { force: true });
      // read through a function: a getter whose answer changes between reads
      const current = (): TaggerReset => engine.taggerReset;
      assert.equal(current().kind, 'relay');
      await waitFor('the shim to be rewritten', () => current().kind === 'shim');
      const again = current();
      assert.ok(again.kind === 'shim' && existsSync(again.path));
      const [out] = await engine.translate({ source: 'en', target: 'es' }, ['The house is big.'], {});
      assert.equal(out, 'La casa es grande.');
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives the same output whatever was translated before, also with requests interleaved (shim)', () => assertIndependentOfEarlierRequests('shim'));
  it('gives the same output whatever was translated before, also with requests interleaved (relay)', () => assertIndependentOfEarlierRequests('relay'));

  it('replaces a pipeline whose tagger (started by the relay, not by this process) is killed from outside', async () => {
    const engine = new ApertiumEngine({ pairs: ['en-es'], taggerReset: 'relay' });
    await engine.start();
    try {
      await engine.translate({ source: 'en', target: 'es' }, ['The house is big.'], {});
      // stage order: the analyser, then the relay's taggers (the one in use first)
      const tagger = engine.childPids('en-es')[1]!;
      assert.match(readFileSync(`/proc/${tagger}/cmdline`, 'utf8'), /apertium-tagger/);
      process.kill(tagger, 'SIGKILL');
      const [out] = await engine.translate({ source: 'en', target: 'es' }, ['The house is big.'], {});
      assert.equal(out, 'La casa es grande.');
      assert.ok(!engine.childPids('en-es').includes(tagger));
    } finally {
      await engine.close();
    }
  });
});
