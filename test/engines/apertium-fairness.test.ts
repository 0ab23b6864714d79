// Accounts share a pair's pipelines in turn: one account's backlog does not make another account's request wait
// behind all of it (issue 17), and work already handed to the pipeline does not either (issue 31: requests go in as
// small blocks, interleaved between accounts, so a short request waits for at most a block or so of someone else's).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ApertiumEngine } from '../../src/engines/apertium/index.js';
import { HUNG_TEST_MS, waitFor } from '../helpers/wait.js';

// One pipeline per pair, as on a machine with 2 cores; the request deadline scaled with the machine's load (the large
// requests below take seconds on a busy machine, and the order asserted is what counts).
const engine = new ApertiumEngine({ pairs: ['en-es'], warmPairs: ['en-es'], maxPipelinesPerPair: 1, requestTimeoutMs: HUNG_TEST_MS });
before(() => engine.start());
after(() => engine.close());
const pair = { source: 'en', target: 'es' };

it("another account's request is served before the rest of one account's backlog", async () => {
  const finished: string[] = [];
  const send = (requester: string, label: string) =>
    engine.translate(pair, [`The house number ${label} is big.`], { requester }).then(() => finished.push(label));
  const backlog = Array.from({ length: 40 }, (_, i) => send('account-a', `a${i}`));
  const other = send('account-b', 'b');
  await Promise.all([...backlog, other]);
  // b waits for at most the blocks already in the pipeline (its window: 4 blocks), not for the whole backlog.
  assert.ok(finished.indexOf('b') <= 4, finished.join(' '));
  // Within one account, order is kept.
  assert.deepEqual(finished.filter((l) => l.startsWith('a')), backlog.map((_, i) => `a${i}`));
});

it("a short request is not queued behind another account's large requests already in the pipeline", async () => {
  // texts of 2.5 kB as in the largest legal request (50 of them; 6 here keep the test short), two requests at once
  const text = 'The house is big and the dog is small, but the garden behind the old school is much larger. '.repeat(28).trim();
  const bulk = Array.from({ length: 6 }, () => text);
  const finished: string[] = [];
  const large = ['a1', 'a2'].map((label) => engine.translate(pair, bulk, { requester: 'account-a' }).then(() => finished.push(label)));
  await waitFor('the large requests in the pipeline', () => engine.stats()[0]!.inFlight > 0);
  const [short] = await engine.translate(pair, ['Where is the train station?'], { requester: 'account-b' });
  finished.push('b');
  await Promise.all(large);
  assert.match(short!, /tren/);
  assert.deepEqual(finished, ['b', 'a1', 'a2']);
});
