// The identifier pass over large texts: matched window by window with the event loop getting turns in between, and
// the same spans as over the whole text (issue 31: a 10 MB one-line document held the loop for 2.5 s).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { identifierSpans } from '../../src/markup/index.js';
import { LoopStallMonitor } from '../helpers/loop-stall.js';

/** Longest stall of the loop (late timer while this process was busy on the CPU; see loop-stall.ts) allowed. */
const STALL_MS = 300;

const SENTENCE = 'Order 12df-321a (SPARSE-2024-INV) to a.b@example.org, see www.example.com/x and `make all` then src/app.ts; ';

describe('identifier spans of a large text', () => {
  it('are those of each of its parts, wherever the windows fall', async () => {
    const one = await identifierSpans(SENTENCE);
    assert.equal(one.length, 6);
    // Over 300 kB with no line break: several windows, one of them ending inside each kind of identifier somewhere.
    const copies = Math.ceil(300_000 / SENTENCE.length);
    const expected = Array.from({ length: copies }, (_, i) => one.map((s) => ({ start: s.start + i * SENTENCE.length, end: s.end + i * SENTENCE.length }))).flat();
    assert.deepEqual(await identifierSpans(SENTENCE.repeat(copies)), expected);
  });

  it('do not hold the event loop for a one-line text of megabytes', async () => {
    let text = '';
    for (let i = 0; text.length < 4_000_000; i++) text += `the house ${i} and SKU${i} and `;
    const monitor = new LoopStallMonitor(STALL_MS);
    try {
      const spans = await identifierSpans(text);
      const stall = monitor.worst();
      assert.ok(spans.length > 100_000);
      assert.equal(text.slice(spans.at(-1)!.start, spans.at(-1)!.end), /SKU\d+ and $/u.exec(text)![0].slice(0, -5));
      assert.equal(stall, undefined, `the event loop stalled ${stall?.lagMs} ms (${stall?.cpuMs} ms on the CPU)`);
    } finally {
      monitor.stop();
    }
  });
});
