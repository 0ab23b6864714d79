// /health/live and /health/ready: no key, trace id, what readiness checks and says.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestContext } from '../helpers/harness.js';
import { HealthService } from '../../src/ops/health-service.js';
import type { TranslationEngine } from '../../src/engines/engine.js';
import { ApertiumEngine } from '../../src/engines/apertium/index.js';

let ctx: TestContext;
before(async () => {
  // One pair, started lazily: warm only after its first request.
  ctx = await createTestApp({ engines: [new ApertiumEngine({ pairs: ['en-es'], maxPipelinesPerPair: 1 })] });
});
after(async () => ctx.close());

describe('health endpoints', () => {
  it('live: 200 without a key, with a trace id', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/health/live' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
    assert.match(String(res.headers['x-trace-id']), /^[0-9a-f]{32}$/);
  });

  it('ready: database, migrations and engines checked; warm pairs listed after use', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/health/ready' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.status, 'ready');
    assert.deepEqual(body.reasons, []);
    assert.deepEqual(body.database, { reachable: true, pending_migrations: [] });
    assert.ok(body.engines.some((e: { name: string; pairs: number }) => e.name === 'apertium' && e.pairs > 0));
    assert.ok(res.headers['x-trace-id']);
    assert.deepEqual(body.warm_pairs, []);
    await ctx.services.router.translate('en', 'es', ['Hello.'], {});
    const after = (await ctx.app.inject({ method: 'GET', url: '/health/ready' })).json();
    assert.deepEqual(after.warm_pairs, ['en-es']);
  });

  it('ready: 503 naming the reason while draining', async () => {
    const health = new HealthService({ store: ctx.services.store, engines: [], warmPairs: () => [] });
    health.drain();
    const r = await health.readiness();
    assert.equal(r.ready, false);
    assert.deepEqual(r.reasons, ['shutting down', 'no engine can translate']);
  });
});

describe('readiness without a database or engines', () => {
  const engine = { name: 'e', pairs: () => [{ source: 'en', target: 'es', formality: false }] } as unknown as TranslationEngine;

  it('names an unreachable database and pending migrations', async () => {
    const down = new HealthService({ store: { health: async () => ({ reachable: false, pendingMigrations: [], error: 'refused' }) }, engines: [engine], warmPairs: () => [] });
    assert.deepEqual((await down.readiness()).reasons, ['database not reachable']);
    const behind = new HealthService({ store: { health: async () => ({ reachable: true, pendingMigrations: ['0099_x'] }) }, engines: [engine], warmPairs: () => [] });
    assert.deepEqual((await behind.readiness()).reasons, ['migrations not applied: 0099_x']);
  });

  it('asks the database at most once per cache period', async () => {
    let calls = 0;
    let now = 0;
    const health = new HealthService({
      store: { health: async () => (calls++, { reachable: true, pendingMigrations: [] }) },
      engines: [engine],
      warmPairs: () => [],
      now: () => now,
    });
    await Promise.all([health.readiness(), health.readiness(), health.readiness()]);
    now = 999;
    await health.readiness();
    assert.equal(calls, 1);
    now = 1000;
    await health.readiness();
    assert.equal(calls, 2);
  });
});
