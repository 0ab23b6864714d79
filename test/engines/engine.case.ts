// Contract every TranslationEngine must meet; engine test files call runEngineContract with a factory.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EngineError, type LanguagePair, type TranslationEngine } from '../../src/engines/engine.js';

export interface EngineContractSetup {
  /** A fresh, not yet started engine. */
  engine: TranslationEngine;
  /** A pair the engine must offer after start(). */
  pair: LanguagePair;
  /** Sentences in pair.source; at least three, different from each other. */
  samples: string[];
  /** Child processes the engine runs, if any (checked to be gone after close()). */
  childPids?: () => number[];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function runEngineContract(label: string, factory: () => EngineContractSetup | Promise<EngineContractSetup>): void {
  describe(`engine contract: ${label}`, () => {
    let setup: EngineContractSetup;
    let engine: TranslationEngine;

    before(async () => {
      setup = await factory();
      engine = setup.engine;
      await engine.start();
    });
    after(async () => {
      await engine?.close();
    });

    it('lists pairs after start', () => {
      const pairs = engine.pairs();
      assert.ok(pairs.length > 0);
      assert.ok(pairs.some((p) => p.source === setup.pair.source && p.target === setup.pair.target));
      for (const p of pairs) {
        assert.equal(p.source, p.source.toLowerCase());
        assert.equal(typeof p.formality, 'boolean');
      }
    });

    it('returns one output per input, in order, without marks', async () => {
      const out = await engine.translate(setup.pair, setup.samples, {});
      assert.equal(out.length, setup.samples.length);
      for (const [i, s] of out.entries()) {
        assert.ok(s.trim().length > 0, `segment ${i} empty`);
        assert.doesNotMatch(s, /(^|\s)[*#@]\p{L}/u, `marks in ${JSON.stringify(s)}`);
      }
      // order: translating one by one gives the same results
      for (const [i, sample] of setup.samples.entries()) {
        assert.deepEqual(await engine.translate(setup.pair, [sample], {}), [out[i]]);
      }
    });

    it('empty string in gives empty string out', async () => {
      assert.deepEqual(await engine.translate(setup.pair, [''], {}), ['']);
      assert.deepEqual(await engine.translate(setup.pair, [], {}), []);
      const mixed = await engine.translate(setup.pair, ['', setup.samples[0]!, ''], {});
      assert.equal(mixed[0], '');
      assert.ok(mixed[1]!.length > 0);
      assert.equal(mixed[2], '');
    });

    it('rejects an unknown pair with unsupported_pair', async () => {
      await assert.rejects(
        engine.translate({ source: 'xx', target: 'yy' }, ['hello'], {}),
        (err: unknown) => err instanceof EngineError && err.kind === 'unsupported_pair',
      );
    });

    it('answers 20 parallel calls correctly', async () => {
      const inputs = Array.from({ length: 20 }, (_, i) => setup.samples[i % setup.samples.length]!);
      const expected = new Map<string, string>();
      for (const s of setup.samples) expected.set(s, (await engine.translate(setup.pair, [s], {}))[0]!);
      const outs = await Promise.all(inputs.map((s) => engine.translate(setup.pair, [s], {})));
      outs.forEach((o, i) => assert.deepEqual(o, [expected.get(inputs[i]!)]));
    });

    it('close() ends its child processes', async () => {
      const pids = setup.childPids?.() ?? [];
      await engine.close();
      for (const pid of pids) assert.equal(alive(pid), false, `pid ${pid} still alive`);
    });
  });
}
