// Accounts share a pair's pipelines in turn: one account's backlog does not make another account's request wait
// behind all of it (issue 17: fair sharing of engine-like child processes between accounts).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ApertiumEngine } from '../../src/engines/apertium/index.js';

// One pipeline taking one request at a time, so every other request queues.
const engine = new ApertiumEngine({ pairs: ['en-es'], warmPairs: ['en-es'], maxPipelinesPerPair: 1, maxInFlightPerPipeline: 1 });
before(() => engine.start());
after(() => engine.close());

it("another account's request is served before the rest of one account's backlog", async () => {
  const pair = { source: 'en', target: 'es' };
  const finished: string[] = [];
  const send = (requester: string, label: string) =>
    engine.translate(pair, [`The house number ${label} is big.`], { requester }).then(() => finished.push(label));
  const backlog = Array.from({ length: 8 }, (_, i) => send('account-a', `a${i}`));
  const other = send('account-b', 'b');
  await Promise.all([...backlog, other]);
  // a0 had the pipeline already; b is the next turn, not the ninth.
  assert.deepEqual(finished.slice(0, 2), ['a0', 'b'], finished.join(' '));
  // Within one account, order is kept.
  assert.deepEqual(finished.filter((l) => l.startsWith('a')), backlog.map((_, i) => `a${i}`));
});
