// Issue 17 item 2: the real Hunspell shared between accounts. A request of long non-words (Hunspell's slowest input)
// must not hold back another account's short request, a request whose client went away releases its checker, and a
// request past its deadline ends with a timeout and a fresh checker.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { EngineError } from '../../src/engines/engine.js';
import { Hunspell } from '../../src/write/hunspell.js';
import { correctSpelling } from '../../src/write/spelling-corrector.js';
import { prng } from '../helpers/prng.js';
import { gone } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

/** CPU time a process has used so far, in clock ticks (user + system, /proc/PID/stat). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Long consonant runs: every one rejected, and Hunspell's suggestion search is slowest on them. */
function nonWords(count: number, seed: number): string[] {
  const random = prng(seed);
  const letters = 'qwrtzpsdfghjklxcvbnm';
  return Array.from({ length: count }, () => Array.from({ length: 30 + random(20) }, () => letters[random(letters.length)]).join(''));
}

describe('Hunspell shared between accounts', () => {
  // one checker: the strictest case, fairness comes from the round-robin alone
  const hunspell = new Hunspell({ processes: 1, timeoutMs: 60_000 });
  after(() => hunspell.close());

  it("a long request of non-words does not hold back another account's short one", async () => {
    const short = 'Teh results were good.';
    assert.equal(await correctSpelling(short, 'en-us', hunspell, { account: 'normal' }), 'The results were good.');

    // the long request is made first: its first batch takes the only checker, the rest of it queues behind
    const order: string[] = [];
    const hostile = hunspell.check('en-us', nonWords(32, 17), { account: 'hostile' }).then(() => order.push('hostile'));
    const normal = correctSpelling(short, 'en-us', hunspell, { account: 'normal' }).then((text) => {
      order.push('normal');
      return text;
    });
    assert.equal(await normal, 'The results were good.');
    await hostile;
    // served between the hostile request's batches, not after all of them
    assert.deepEqual(order, ['normal', 'hostile']);
  });

  it('a request whose client went away releases its checker at once', async () => {
    await hunspell.check('en-us', ['warm']);
    const [pid] = hunspell.pids();
    const idle = cpuTicks(pid!);
    const controller = new AbortController();
    const abandoned = hunspell.check('en-us', nonWords(48, 18), { account: 'gone', signal: controller.signal });
    await waitFor('the checker to work on the abandoned request', () => cpuTicks(pid!) > idle);
    controller.abort();
    await assert.rejects(abandoned);
    assert.ok(await gone(pid!), 'the abandoned checker is killed');
    assert.deepEqual(await hunspell.check('en-us', ['hello', 'wrold'], { account: 'next' }).then((r) => r.map((c) => c.correct)), [true, false]);
    assert.ok(hunspell.replaced().cancelled! >= 1);
  });

  it('a request past its deadline ends with a timeout; its checker is killed and replaced', async () => {
    await hunspell.check('en-us', ['warm']);
    const [pid] = hunspell.pids();
    const late = hunspell.check('en-us', nonWords(48, 19), { account: 'slow', deadlineAt: Date.now() + 200 });
    await assert.rejects(late, (err: unknown) => err instanceof EngineError && err.kind === 'timeout');
    assert.ok(await gone(pid!));
    assert.ok(hunspell.replaced().deadline! >= 1);
    assert.equal((await hunspell.check('en-us', ['hello']))[0]!.correct, true);
  });
});
