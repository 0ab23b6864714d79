// Engine router: direct routes, pivots, target variants and routing rules, with in-test fake engines.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError, type EnginePairInfo, type LanguagePair, type TranslationEngine } from '../../src/engines/engine.js';
import { EngineRouter } from '../../src/translate/engine-router.js';

class FakeEngine implements TranslationEngine {
  readonly features = { context: false };
  constructor(
    readonly name: string,
    private readonly list: string[],
    private readonly formality = false,
  ) {}
  async start(): Promise<void> {}
  pairs(): EnginePairInfo[] {
    return this.list.map((p) => {
      const [source, target] = p.split('>') as [string, string];
      return { source, target, formality: this.formality };
    });
  }
  async translate(pair: LanguagePair, segments: string[]): Promise<string[]> {
    if (!this.list.includes(`${pair.source}>${pair.target}`)) throw new EngineError('unsupported_pair', 'no');
    return segments.map((s) => `${s}|${this.name}:${pair.source}>${pair.target}`);
  }
  async close(): Promise<void> {}
}

describe('engine router', () => {
  const a = new FakeEngine('a', ['en>es', 'es>en', 'es>pt', 'es>pt-br', 'es>en-us', 'ca>es']);
  const b = new FakeEngine('b', ['en>es', 'en>de', 'de>fr'], true);

  it('routes a direct pair to the first engine that has it', async () => {
    const r = new EngineRouter([a, b]);
    assert.equal(r.resolve('en', 'es')?.kind, 'direct');
    assert.equal(r.resolve('en', 'es')?.legs[0]?.engine.name, 'a');
    assert.deepEqual(await r.translate('en', 'es', ['x']), ['x|a:en>es']);
  });

  it('honours routing rules (pair before *)', () => {
    assert.equal(new EngineRouter([a, b], { routing: [{ pair: 'en-es', engine: 'b' }] }).resolve('en', 'es')?.legs[0]?.engine.name, 'b');
    assert.equal(new EngineRouter([a, b], { routing: [{ pair: '*', engine: 'b' }] }).resolve('en', 'es')?.legs[0]?.engine.name, 'b');
    // a rule naming an engine without the pair is ignored
    assert.equal(new EngineRouter([a, b], { routing: [{ pair: '*', engine: 'b' }] }).resolve('es', 'pt')?.legs[0]?.engine.name, 'a');
  });

  it('pivots through the shortest path, across engines, and logs it', async () => {
    const logs: object[] = [];
    const r = new EngineRouter([a, b], { logger: { info: (o) => logs.push(o), warn() {}, error() {} } });
    const route = r.resolve('en', 'pt');
    assert.equal(route?.kind, 'pivot');
    assert.deepEqual(route?.legs.map((l) => `${l.engine.name}:${l.source}>${l.target}`), ['a:en>es', 'a:es>pt']);
    assert.deepEqual(await r.translate('en', 'pt', ['x', '']), ['x|a:en>es|a:es>pt', '|a:en>es|a:es>pt']);
    assert.equal(logs.length, 1);
    const cross = r.resolve('es', 'de');
    assert.deepEqual(cross?.legs.map((l) => `${l.engine.name}:${l.source}>${l.target}`), ['a:es>en', 'b:en>de']);
    assert.equal(cross?.formality, true);
  });

  it('resolves target variants', () => {
    const r = new EngineRouter([a, b]);
    assert.equal(r.resolve('es', 'en-gb')?.legs[0]?.target, 'en'); // no en-gb pair: base
    assert.equal(r.resolve('es', 'en-us')?.legs[0]?.target, 'en-us'); // exact variant
    assert.equal(r.resolve('es', 'pt')?.legs[0]?.target, 'pt');
    assert.equal(r.resolve('es', 'pt-br')?.legs[0]?.target, 'pt-br');
    const onlyVariant = new EngineRouter([new FakeEngine('c', ['es>pt-br'])]);
    assert.equal(onlyVariant.resolve('es', 'pt')?.legs[0]?.target, 'pt-br');
    const preferred = new EngineRouter([new FakeEngine('c', ['es>pt-br', 'es>pt-pt'])], { defaultVariants: { pt: 'pt-pt' } });
    assert.equal(preferred.resolve('es', 'pt')?.legs[0]?.target, 'pt-pt');
  });

  it('returns null and rejects for unknown pairs or paths longer than maxLegs', async () => {
    const r = new EngineRouter([a, b]);
    assert.equal(r.resolve('en', 'xx'), null);
    assert.equal(r.resolve('ca', 'fr'), null); // ca>es>en>de>fr needs 4 legs
    assert.ok(new EngineRouter([a, b], { maxLegs: 4 }).resolve('ca', 'fr'));
    assert.equal(new EngineRouter([a, b], { maxLegs: 1 }).resolve('en', 'pt'), null);
    await assert.rejects(r.translate('en', 'xx', ['x']), (e: unknown) => e instanceof EngineError && e.kind === 'unsupported_pair');
  });

  it('lists direct and pivot pairs', () => {
    const pairs = new EngineRouter([a, b]).pairs();
    const enPt = pairs.find((p) => p.source === 'en' && p.target === 'pt');
    assert.deepEqual(enPt && { kind: enPt.kind, via: enPt.via, engines: enPt.engines }, { kind: 'pivot', via: ['es'], engines: ['a', 'a'] });
    assert.equal(pairs.find((p) => p.source === 'en' && p.target === 'es')?.kind, 'direct');
    assert.ok(!pairs.some((p) => p.source === p.target));
  });
});
